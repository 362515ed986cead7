"""One GET per document: redirects hop by hop, retries, deadlines, size caps and type detection.

The body is streamed and abandoned as soon as it is too large or of a type the
pipeline does not read, so a 2 GB video costs a few kilobytes, not 2 GB.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal
from urllib.parse import urljoin, urlsplit

import requests

from corpus_pipeline.core.outcomes import FetchOutcome
from corpus_pipeline.core.urls import InvalidUrlError, normalize_url
from corpus_pipeline.crawl.deadline import DeadlineWatch, RequestDeadline
from corpus_pipeline.crawl.settings import CrawlSettings
from corpus_pipeline.crawl.throttle import HostThrottle, RequestSlot
from corpus_pipeline.crawl.transport import CrawlAdapter, CrawlClient, CrawlResponse, PeerCheck, refused_peer

Expected = Literal["document", "sitemap", "robots"]
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 10  # what browsers and requests allow; a longer chain is a loop or a trap
DEADLINE_PREFIX = "deadline"
RETRYABLE_PREFIXES = ("timeout", "connection")
NEW_CONNECTION_REASON = re.compile(r"Failed to establish a new connection: ([^'\")]+)")
SNIFF_BYTES = 1024
CHUNK_BYTES = 64 * 1024


@dataclass
class FetchResult:
    """What one fetch produced (after retries)."""

    outcome: FetchOutcome
    kind: str | None = None
    status: int | None = None
    final_url: str | None = None
    content_type: str | None = None
    etag: str | None = None
    last_modified: datetime | None = None
    body: bytes | None = None
    error: str | None = None
    attempts: int = 0
    elapsed_s: float = 0.0  # the request's own time: retries and redirect hops included, waits for the host's pace not
    pace_wait_s: float = 0.0  # time spent waiting for the host's pace (crawl/throttle.py), attempts and hops included
    bytes: int = 0
    fetched_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    body_fetched_at: datetime | None = None  # when the body was first fetched as it is (None: now, at fetched_at)
    redirect_to: str | None = None  # Location of a redirect not yet followed (never stored)
    robots_headers: tuple[str, ...] = ()  # X-Robots-Tag fields of the final response, each as sent
    robots: str | None = None  # the directives that bind us, once the crawler has read the page (crawl/robots_meta.py)


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


HopGuard = Callable[[str], "Refusal | None"]


@dataclass(frozen=True)
class Refusal:
    """A decision not to request a URL: the row's outcome and a short reason."""

    outcome: FetchOutcome
    reason: str


class Fetcher:
    """HTTP client of one crawl: one :class:`CrawlClient` (its connections, its cookies) per thread, shared politeness;
    ``peer_check`` judges the address each connection reached before anything is sent on it."""

    def __init__(self, settings: CrawlSettings, throttle: HostThrottle, peer_check: PeerCheck | None = None) -> None:
        self.settings = settings
        self.throttle = throttle
        self.peer_check = peer_check
        self._local = threading.local()
        self._deadlines = DeadlineWatch()  # one thread keeps every request's deadline
        self._proxies: dict[tuple[str, str], dict[str, str]] = {}  # by scheme and host (_proxies_for)

    def _client(self) -> tuple[CrawlClient, RequestDeadline]:
        client = getattr(self._local, "client", None)
        if client is None:
            deadline = self._local.deadline = RequestDeadline(self._deadlines)
            client = self._local.client = CrawlClient(self.settings.user_agent, CrawlAdapter(deadline, self.peer_check))
        return client, self._local.deadline

    def _proxies_for(self, url: str) -> dict[str, str]:
        """The proxies the environment names for ``url`` (``HTTP_PROXY``, ``NO_PROXY``...), read once per scheme and
        host (a session trusting the environment reads them, and ``.netrc``, per request). ``.netrc`` credentials are
        never sent: they are the user's, and a crawl visits hosts it does not know."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc)
        if key not in self._proxies:  # two threads may both look it up: the same answer
            self._proxies[key] = requests.utils.get_environ_proxies(url)
        return self._proxies[key]

    def fetch(self, url: str, expected: Expected = "document", validators: dict[str, str] | None = None,
              hop_guard: HopGuard | None = None) -> FetchResult:
        """GET ``url``, following redirects: ``hop_guard`` judges each new hop, which takes a slot of its own host."""
        started = time.monotonic()
        attempts = 0
        waited = 0.0
        visited = {url}
        current = url
        for hop in range(MAX_REDIRECTS + 1):
            result = self._fetch_one(current, expected, validators or {})
            attempts += result.attempts
            waited += result.pace_wait_s
            result.attempts, result.pace_wait_s = attempts, waited
            result.elapsed_s = max(0.0, time.monotonic() - started - waited)
            if result.redirect_to is None:
                result.final_url = result.final_url or current
                return result
            target = _redirect_target(current, result.redirect_to)
            if target is None:
                return _failed(result, f"redirect to an invalid URL {result.redirect_to[:200]!r}", current)
            if target in visited:
                return _failed(result, f"redirect loop at {target}", target)
            if hop == MAX_REDIRECTS:
                return _failed(result, f"more than {MAX_REDIRECTS} redirects, the last to {target}", target)
            refusal = hop_guard(target) if hop_guard is not None else None
            if refusal is not None:
                return _failed(result, f"{refusal.reason}: redirect to {target}", target, refusal.outcome)
            visited.add(target)
            current = target
        raise AssertionError("unreachable: the loop returns at MAX_REDIRECTS")

    def _fetch_one(self, url: str, expected: Expected, validators: dict[str, str]) -> FetchResult:
        """One URL, without following redirects, with retries on 429, 5xx, timeouts and connection errors."""
        attempt = 0
        deadline_misses = 0
        waited = 0.0
        while True:
            attempt += 1
            client, deadline = self._client()
            with self.throttle.request_slot(urlsplit(url).hostname or "") as slot:
                waited += slot.waited_s
                deadline.arm(self.settings.total_timeout_s)
                try:
                    result, retry_after = self._request(client, deadline, url, expected, validators, slot)
                finally:
                    deadline.disarm()
            result.attempts, result.pace_wait_s = attempt, waited
            missed_deadline = (result.error or "").startswith(DEADLINE_PREFIX)
            deadline_misses += missed_deadline
            # A server that trickled past the deadline once will likely do it again: one more try only.
            retryable = result.status in RETRY_STATUSES or (missed_deadline and deadline_misses == 1) or (
                result.outcome == FetchOutcome.ERROR and (result.error or "").startswith(RETRYABLE_PREFIXES))
            if not retryable or attempt > self.settings.max_retries:
                return result
            if retry_after is not None and retry_after > self.settings.max_retry_after_s:
                cap = self.settings.max_retry_after_s
                result.error = f"{result.error}; Retry-After {retry_after:.0f}s exceeds the {cap:.0f}s cap"
                return result
            backoff = self.settings.backoff_base_s * (2 ** (attempt - 1)) * (1 + random.random() / 2)
            time.sleep(retry_after if retry_after is not None else backoff)

    def _request(self, client: CrawlClient, deadline: RequestDeadline, url: str, expected: Expected,
                 validators: dict[str, str], slot: RequestSlot) -> tuple[FetchResult, float | None]:
        settings = self.settings
        try:
            response = client.get(
                url, validators, self._proxies_for(url), (settings.connect_timeout_s, settings.read_timeout_s)
            )
        except requests.RequestException as exc:
            refused = refused_peer(exc)
            if refused is not None:
                return FetchResult(FetchOutcome.PRIVATE_ADDRESS, error=refused.reason), None
            if deadline.expired:
                return FetchResult(FetchOutcome.ERROR, error=self._deadline_error("the headers")), None
            return FetchResult(FetchOutcome.ERROR, error=connection_error(url, exc)), None

        # Headers arrived: the throttle learns this host's latency for this kind of answer.
        slot.response(response.status_code, response.headers.get("Content-Type"))
        with closing(response):
            headers = response.headers
            result = FetchResult(
                FetchOutcome.FETCHED,
                status=response.status_code,
                final_url=url,
                content_type=headers.get("Content-Type"),
                etag=headers.get("ETag"),
                last_modified=parse_http_date(headers.get("Last-Modified")),
                # Each field apart: joined with ", ", a "googlebot:" prefix would reach the next field's directives.
                robots_headers=tuple(headers.getlist("X-Robots-Tag")),
            )
            if response.status_code in REDIRECT_STATUSES and headers.get("Location"):
                result.redirect_to = headers["Location"]
                return result, None
            if response.status_code == 304:
                result.outcome = FetchOutcome.NOT_MODIFIED
                return result, None
            if response.status_code >= 400:
                result.outcome = FetchOutcome.HTTP_ERROR
                result.error = f"HTTP {response.status_code} {response.reason or ''}".strip()
                return result, _retry_after(headers.get("Retry-After"))
            return self._read_body(response, result, expected, deadline), None

    def _deadline_error(self, part: str) -> str:
        return f"{DEADLINE_PREFIX} of {self.settings.total_timeout_s:g} s exceeded while reading {part}"

    def _read_body(self, response: CrawlResponse, result: FetchResult, expected: Expected,
                   deadline: RequestDeadline) -> FetchResult:
        settings = self.settings
        chunks: list[bytes] = []
        size = 0
        cap = settings.max_body_bytes
        error: str | None = None
        try:
            # iter_content decodes Content-Encoding, so the caps apply to decompressed bytes.
            for chunk in response.iter_content(CHUNK_BYTES):
                if result.kind is None:
                    result.kind = _kind_for(
                        sniff_kind(result.content_type, chunk[:SNIFF_BYTES], result.final_url or ""), expected
                    )
                    if result.kind == "other":
                        result.outcome = FetchOutcome.UNSUPPORTED_TYPE
                        return result
                    cap = {"pdf": settings.max_pdf_bytes, "sitemap": settings.max_sitemap_bytes}.get(result.kind, cap)
                chunks.append(chunk)
                size += len(chunk)
                if size > cap:
                    result.outcome, result.error = FetchOutcome.TOO_LARGE, f"body larger than the {cap} byte cap"
                    result.bytes = size
                    return result
        except requests.RequestException as exc:
            error = f"{'timeout' if 'timed out' in str(exc).lower() else 'connection broken'} while reading the body"
        if deadline.expired:  # a shut socket may also look like the end of a body without a length
            error = self._deadline_error("the body")
        if error is not None:
            result.outcome, result.error, result.bytes = FetchOutcome.ERROR, error, size
            return result
        if result.kind is None:  # empty body
            result.kind = _kind_for(sniff_kind(result.content_type, b"", result.final_url or ""), expected)
        result.body, result.bytes = b"".join(chunks), size
        return result


def connection_error(url: str, exc: requests.RequestException) -> str:
    """A short, causal error for a request that got no response: "connection refused to host:port"..."""
    parts = urlsplit(url)
    where = f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
    text = str(exc)
    if isinstance(exc, requests.ConnectTimeout):
        return f"timeout connecting to {where}"
    if isinstance(exc, requests.Timeout):
        return f"timeout waiting for the headers from {where}"
    if "NameResolutionError" in text or "Name or service not known" in text or "No address associated" in text:
        return f"unknown host {parts.hostname}"
    if "Connection refused" in text or "Errno 111" in text:
        return f"connection refused to {where}"
    if "RemoteDisconnected" in text or "Connection aborted" in text or "reset by peer" in text.lower():
        return f"connection closed by {where} before the headers"
    if isinstance(exc, requests.ConnectionError):
        reason = NEW_CONNECTION_REASON.search(text)
        return f"connection failed to {where}" + (f": {reason.group(1)[:80]}" if reason else "")
    return f"invalid request: {text if len(text) <= 300 else text[:297] + '...'}"


def _redirect_target(current: str, location: str) -> str | None:
    try:
        return normalize_url(urljoin(current, location.strip()))
    except (InvalidUrlError, ValueError):
        return None


def _failed(result: FetchResult, error: str, final_url: str, outcome: FetchOutcome = FetchOutcome.ERROR) -> FetchResult:
    """A redirect that is not followed ends the fetch: no body, the hop named in the error."""
    result.outcome, result.error, result.final_url, result.redirect_to = outcome, error, final_url, None
    result.kind, result.body = None, None
    return result


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
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    when = parse_http_date(value)
    return max(0.0, (when - datetime.now(UTC)).total_seconds()) if when else None
