"""One GET per document: retries, deadlines, size caps and type detection.

The body is streamed and abandoned as soon as it is too large or of a type the
pipeline does not read, so a 2 GB video costs a few kilobytes, not 2 GB.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Literal

import requests

from corpus_pipeline.crawl.settings import CrawlSettings
from corpus_pipeline.crawl.throttle import HostThrottle, RequestSlot

Expected = Literal["document", "sitemap", "robots"]
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
SNIFF_BYTES = 1024
CHUNK_BYTES = 64 * 1024


@dataclass
class FetchResult:
    """What one fetch produced (after retries)."""

    outcome: str
    kind: str | None = None
    status: int | None = None
    final_url: str | None = None
    content_type: str | None = None
    etag: str | None = None
    last_modified: datetime | None = None
    body: bytes | None = None
    error: str | None = None
    attempts: int = 0
    elapsed_s: float = 0.0
    bytes: int = 0
    fetched_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))


def sniff_kind(content_type: str | None, head: bytes, url: str) -> str:
    """``html``, ``pdf``, ``xml`` or ``other``, from the header first and the first bytes second."""
    declared = (content_type or "").split(";", 1)[0].strip().lower()
    start = head.lstrip()[:256].lower()
    if start.startswith(b"%pdf-") or "pdf" in declared:
        return "pdf" if start.startswith(b"%pdf-") or not start.startswith(b"<") else "html"
    if head.startswith(b"\x1f\x8b"):
        return "xml"  # gzip: only ever accepted for sitemaps
    if declared in ("text/html", "application/xhtml+xml"):
        return "html"
    if declared.endswith("xml") or start.startswith(b"<?xml") or start.startswith((b"<urlset", b"<sitemapindex")):
        return "xml"
    if start.startswith((b"<!doctype html", b"<html")) or b"<html" in start:
        return "html"
    if declared in ("", "application/octet-stream", "text/plain") and url.lower().endswith((".html", ".htm", "/")):
        return "html"
    return "other"


class Fetcher:
    """HTTP client of one crawl: one requests session per thread, shared politeness."""

    def __init__(self, settings: CrawlSettings, throttle: HostThrottle) -> None:
        self.settings = settings
        self.throttle = throttle
        self._local = threading.local()

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = requests.Session()
            session.headers["User-Agent"] = self.settings.user_agent
            session.headers["Accept"] = "text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf,*/*;q=0.5"
            session.max_redirects = 10
            self._local.session = session
        return session

    def fetch(self, url: str, host: str, expected: Expected = "document", validators: dict[str, str] | None = None) -> FetchResult:
        """GET ``url`` with retries on 429, 5xx, timeouts and connection errors."""
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            with self.throttle.request_slot(host) as slot:
                result, retry_after = self._attempt(url, expected, validators or {}, slot)
            result.attempts = attempt
            retryable = result.status in RETRY_STATUSES or (
                result.outcome == "error" and (result.error or "").startswith(("timeout", "connection"))
            )
            if not retryable or attempt > self.settings.max_retries:
                result.elapsed_s = time.monotonic() - started
                return result
            if retry_after is not None and retry_after > self.settings.max_retry_after_s:
                result.error = f"{result.error}; Retry-After {retry_after:.0f}s exceeds the {self.settings.max_retry_after_s:.0f}s cap"
                result.elapsed_s = time.monotonic() - started
                return result
            backoff = self.settings.backoff_base_s * (2 ** (attempt - 1)) * (1 + random.random() / 2)
            time.sleep(retry_after if retry_after is not None else backoff)

    def _attempt(self, url: str, expected: Expected, validators: dict[str, str], slot: RequestSlot) -> tuple[FetchResult, float | None]:
        settings = self.settings
        deadline = time.monotonic() + settings.total_timeout_s
        try:
            response = self._session().get(
                url,
                headers=validators,
                timeout=(settings.connect_timeout_s, settings.read_timeout_s),
                stream=True,
                allow_redirects=True,
            )
        except requests.TooManyRedirects:
            return FetchResult("error", error="redirect loop (more than 10 redirects)"), None
        except requests.Timeout as exc:
            return FetchResult("error", error=f"timeout: {_short(exc)}"), None
        except requests.ConnectionError as exc:
            if "NameResolutionError" in str(exc) or "Name or service not known" in str(exc):
                # DNS says the host does not exist: asking again in a second will not change that.
                return FetchResult("error", error=f"unknown host: {_short(exc)}"), None
            return FetchResult("error", error=f"connection failed: {_short(exc)}"), None
        except requests.RequestException as exc:
            return FetchResult("error", error=f"invalid request: {_short(exc)}"), None

        slot.response(response.status_code)  # headers arrived: the throttle learns this host's latency
        with response:
            headers = response.headers
            result = FetchResult(
                "fetched",
                status=response.status_code,
                final_url=response.url,
                content_type=headers.get("Content-Type"),
                etag=headers.get("ETag"),
                last_modified=parse_http_date(headers.get("Last-Modified")),
            )
            if response.status_code == 304:
                result.outcome = "not_modified"
                return result, None
            if response.status_code >= 400:
                result.outcome = "http_error"
                result.error = f"HTTP {response.status_code} {response.reason or ''}".strip()
                return result, _retry_after(headers.get("Retry-After"))
            return self._read_body(response, result, expected, deadline), None

    def _read_body(self, response: requests.Response, result: FetchResult, expected: Expected, deadline: float) -> FetchResult:
        settings = self.settings
        chunks: list[bytes] = []
        size = 0
        try:
            # iter_content decodes Content-Encoding, so the caps apply to decompressed bytes.
            for chunk in response.iter_content(CHUNK_BYTES):
                if result.kind is None:
                    result.kind = _kind_for(sniff_kind(result.content_type, chunk[:SNIFF_BYTES], result.final_url or ""), expected)
                    if result.kind == "other":
                        result.outcome = "unsupported_type"
                        return result
                chunks.append(chunk)
                size += len(chunk)
                cap = _cap(settings, result.kind)
                if size > cap:
                    result.outcome = "too_large"
                    result.error = f"body larger than the {cap} byte cap"
                    result.bytes = size
                    return result
                if time.monotonic() > deadline:
                    result.outcome = "error"
                    result.error = f"timeout: body not complete within {settings.total_timeout_s:.0f}s"
                    return result
        except requests.RequestException as exc:
            result.outcome = "error"
            stalled = "timed out" in str(exc).lower()
            result.error = f"{'timeout' if stalled else 'connection broken'} while reading the body: {_short(exc)}"
            return result
        body = b"".join(chunks)
        if result.kind is None:  # empty body
            result.kind = _kind_for(sniff_kind(result.content_type, b"", result.final_url or ""), expected)
        result.body = body
        result.bytes = len(body)
        return result


def _cap(settings: CrawlSettings, kind: str | None) -> int:
    if kind == "pdf":
        return settings.max_pdf_bytes
    if kind == "sitemap":
        return settings.max_sitemap_bytes
    return settings.max_body_bytes


def _kind_for(sniffed: str, expected: Expected) -> str:
    if expected == "robots":
        return "robots"
    if expected == "sitemap":
        return "sitemap" if sniffed in ("xml", "other", "html") else sniffed
    return "other" if sniffed == "xml" else sniffed


def parse_http_date(value: str | None) -> datetime | None:
    """An HTTP date header as an aware UTC datetime; None when absent or malformed."""
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    when = parse_http_date(value)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds()) if when else None


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 300 else text[:297] + "..."
