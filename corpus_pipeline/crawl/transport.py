"""The crawler's HTTP transport: connections that report to the request's deadline and check their peer.

The connection resolves a host name again after the private-address check: a name answering a public address first
and a private one next (DNS rebinding) would pass that check, so the address connected to is checked before sending.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import cast

import requests
import urllib3
from requests.adapters import HTTPAdapter
from requests.models import PreparedRequest
from requests.structures import CaseInsensitiveDict
from urllib3 import BaseHTTPResponse, Timeout
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool
from urllib3.exceptions import (
    ClosedPoolError,
    ConnectTimeoutError,
    DecodeError,
    LocationValueError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    ResponseError,
    SSLError,
)

from corpus_pipeline.crawl.deadline import RequestDeadline

# Answers that carry no content: their connection is ready for the next request as soon as the headers are read.
NO_CONTENT_STATUSES = frozenset({204, 304})
ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf,*/*;q=0.5"

PeerCheck = Callable[[str, int, str], "str | None"]
"""``(host, port, connected address) -> reason to refuse``, or None to go on."""


class RefusedPeer(ConnectionError):
    """The connection reached an address the crawl may not talk to; nothing was sent."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def refused_peer(exc: BaseException) -> RefusedPeer | None:
    """The :class:`RefusedPeer` inside whatever requests and urllib3 wrapped it in, if any."""
    pending: list[object] = [exc]
    seen: set[int] = set()
    while pending:
        item = pending.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, RefusedPeer):
            return item
        pending.extend(item.args)
        pending.extend((getattr(item, "reason", None), item.__cause__, item.__context__))
    return None


class _CrawlConnection:
    """Checks the peer once connected, and hands the socket to the request's deadline once the request is sent."""

    def __init__(self, *args, request_deadline: RequestDeadline, peer_check: PeerCheck | None = None,
                 **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._request_deadline = request_deadline
        self._peer_check = peer_check

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        if self._peer_check is None or getattr(self, "proxy", None) is not None:
            return  # through a proxy the peer is the proxy, which resolves the name itself
        sock = self.sock  # type: ignore[attr-defined]
        try:
            address = str(sock.getpeername()[0])
        except OSError:
            return  # not connected after all: the request fails on its own
        reason = self._peer_check(self.host, self.port, address)  # type: ignore[attr-defined]
        if reason is not None:
            self.close()  # type: ignore[attr-defined]
            raise RefusedPeer(reason)

    def request(self, *args, **kwargs) -> None:
        super().request(*args, **kwargs)  # type: ignore[misc]
        self._request_deadline.watch(self.sock)  # type: ignore[attr-defined]  # connected now; the response follows


class _CrawlHTTPConnection(_CrawlConnection, HTTPConnection):
    pass


class _CrawlHTTPSConnection(_CrawlConnection, HTTPSConnection):
    pass


class CrawlAdapter(HTTPAdapter):
    """A requests transport whose connections report to a :class:`RequestDeadline` and pass a :data:`PeerCheck`."""

    def __init__(self, request_deadline: RequestDeadline, peer_check: PeerCheck | None = None) -> None:
        self.request_deadline = request_deadline
        self.peer_check = peer_check
        super().__init__()

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None) -> HTTPConnectionPool:
        pool = cast(HTTPConnectionPool, super().get_connection_with_tls_context(request, verify, proxies, cert))
        if not isinstance(pool.conn_kw.get("request_deadline"), RequestDeadline):
            pool.ConnectionCls = _CrawlHTTPSConnection if pool.scheme == "https" else _CrawlHTTPConnection
            pool.conn_kw.update(request_deadline=self.request_deadline, peer_check=self.peer_check)
        return pool


class CrawlResponse:
    """The response of :meth:`CrawlClient.get`: urllib3's response with requests' reading and closing rules."""

    def __init__(self, raw: BaseHTTPResponse) -> None:
        self.raw = raw
        self.status_code = raw.status
        self.reason = raw.reason
        self.headers = raw.headers  # case-insensitive; repeated fields joined with ", ", as requests gives them
        self._consumed = False

    def iter_content(self, chunk_size: int) -> Iterator[bytes]:
        """The body, decoded of its Content-Encoding, in chunks; a read error raised as a requests exception."""
        try:
            yield from self.raw.stream(chunk_size, decode_content=True)
        except (ProtocolError, DecodeError, ReadTimeoutError, SSLError) as exc:
            raise requests.exceptions.ConnectionError(exc) from exc
        self._consumed = True

    def close(self) -> None:
        """A body not read to its end closes the connection; a read one, or none (a 304), goes back to the pool."""
        if self.status_code in NO_CONTENT_STATUSES:
            # Nothing to read (RFC 9110 15.3.5, 15.4.5): closing would cost every unchanged page a new connection.
            self.raw.drain_conn()
        elif not self._consumed:
            self.raw.close()
        self.raw.release_conn()


class CrawlClient:
    """One thread's HTTP client: the GET requests a requests session would send, without the session (which spends
    more CPU merging settings, running hooks and building its response than urllib3 takes to send a request).

    Sent as by a session with requests' default headers plus ``User-Agent`` and ``Accept``, ``trust_env`` off and
    ``verify`` from ``REQUESTS_CA_BUNDLE`` / ``CURL_CA_BUNDLE``: requests' URL preparation, header checks, URL
    credentials and cookie jar (per thread), through a :class:`CrawlAdapter`'s pools, with requests' exceptions.
    """

    def __init__(self, user_agent: str, adapter: CrawlAdapter) -> None:
        self.adapter = adapter
        self.verify: bool | str = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
        headers = requests.utils.default_headers()
        headers["User-Agent"] = user_agent
        headers["Accept"] = ACCEPT
        self.headers = headers
        self.cookies = requests.cookies.RequestsCookieJar()

    def get(self, url: str, headers: Mapping[str, str], proxies: dict[str, str],
            timeout: tuple[float, float]) -> CrawlResponse:
        """GET ``url`` without following redirects; the body is left to stream."""
        request = self._prepare(url, headers)
        prepared_url = cast(str, request.url)
        if not prepared_url.lower().startswith(("https://", "http://")):  # the prefixes a session mounts
            raise requests.exceptions.InvalidSchema(f"No connection adapters were found for {prepared_url!r}")
        adapter = self.adapter
        try:
            pool = adapter.get_connection_with_tls_context(request, self.verify, proxies=proxies)
        except LocationValueError as exc:
            raise requests.exceptions.InvalidURL(exc, request=request) from exc
        adapter.cert_verify(pool, prepared_url, self.verify, None)
        try:
            raw = pool.urlopen(
                method="GET", url=adapter.request_url(request, proxies), body=None, headers=request.headers,
                redirect=False, assert_same_host=False, preload_content=False, decode_content=False,
                retries=adapter.max_retries, timeout=Timeout(connect=timeout[0], read=timeout[1]), chunked=False,
            )
        except Exception as exc:
            mapped = _as_requests_error(exc, request)
            if mapped is None:
                raise
            raise mapped from exc
        if "Set-Cookie" in raw.headers or "Set-Cookie2" in raw.headers:  # without them the jar would not change
            requests.cookies.extract_cookies_to_jar(self.cookies, request, raw)
        return CrawlResponse(raw)

    def _prepare(self, url: str, headers: Mapping[str, str]) -> PreparedRequest:
        """What ``Session.prepare_request`` makes of a GET: the session's headers first, then the request's."""
        request = PreparedRequest()
        request.method = "GET"
        request.prepare_url(url, None)
        merged = CaseInsensitiveDict(self.headers)
        merged.update(headers)
        request.prepare_headers(merged)
        cookie = requests.cookies.get_cookie_header(self.cookies, request) if len(self.cookies) else None
        if cookie is not None:
            request.headers["Cookie"] = cookie
        request.prepare_auth(None)  # user:password written in the URL
        return request


def _as_requests_error(exc: Exception, request: PreparedRequest) -> requests.RequestException | None:
    """The exception ``HTTPAdapter.send`` raises for what ``urlopen`` raised, as far as the fetcher tells them apart
    (timeouts, other connection errors, other request errors); None where ``send`` lets it through."""
    reason = exc.reason if isinstance(exc, MaxRetryError) else None
    if isinstance(reason, ConnectTimeoutError) and not isinstance(reason, NewConnectionError):
        return requests.exceptions.ConnectTimeout(exc, request=request)
    if isinstance(exc, ReadTimeoutError):
        return requests.exceptions.ReadTimeout(exc, request=request)
    if isinstance(reason, ResponseError):
        return requests.exceptions.RetryError(exc, request=request)
    if isinstance(exc, urllib3.exceptions.InvalidHeader):
        return requests.exceptions.InvalidHeader(exc, request=request)
    # requests' ProxyError and SSLError are ConnectionErrors too.
    if isinstance(exc, ProtocolError | OSError | ClosedPoolError | MaxRetryError | urllib3.exceptions.ProxyError
                  | SSLError):
        return requests.exceptions.ConnectionError(exc, request=request)
    return None
