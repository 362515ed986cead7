"""The crawler's HTTP transport: connections that report to the request's deadline and check their peer.

The private-address check before a request resolves the host name once; the
connection resolves it again. A name that answers a public address first and a
private one next (DNS rebinding) would pass the first check, so the address the
socket actually connected to is checked too, before anything is sent.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import cast
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool

from corpus_pipeline.crawl.deadline import RequestDeadline

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

    def __init__(self, request_deadline: RequestDeadline, peer_check: PeerCheck | None = None, **kwargs) -> None:
        self.request_deadline = request_deadline
        self.peer_check = peer_check
        super().__init__(**kwargs)

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None) -> HTTPConnectionPool:
        pool = cast(HTTPConnectionPool, super().get_connection_with_tls_context(request, verify, proxies, cert))
        if not isinstance(pool.conn_kw.get("request_deadline"), RequestDeadline):
            secure = pool.scheme == "https"
            pool.ConnectionCls = _CrawlHTTPSConnection if secure else _CrawlHTTPConnection
            pool.conn_kw["request_deadline"] = self.request_deadline
            pool.conn_kw["peer_check"] = self.peer_check
        return pool


class EnvironmentProxies:
    """The proxies the environment names for a URL (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``),
    read once per scheme and host.

    requests reads them, and looks for a ``.netrc`` file, on every request of a session that trusts the
    environment: about 0.4 ms of CPU a request, a sixth of a fast crawl's. The crawl's sessions do not
    (:func:`crawl_session`) and ask this instead. ``.netrc`` credentials are never sent: they are the user's, not
    the crawl's, and a crawl visits hosts it does not know.
    """

    def __init__(self) -> None:
        self._by_origin: dict[tuple[str, str], dict[str, str]] = {}

    def for_url(self, url: str) -> dict[str, str]:
        """The proxies to pass to a request of ``url``: empty when the environment names none or bypasses its host."""
        parts = urlsplit(url)
        key = (parts.scheme, parts.netloc)
        proxies = self._by_origin.get(key)
        if proxies is None:  # two threads may both look it up: the same answer
            proxies = self._by_origin[key] = requests.utils.get_environ_proxies(url)
        return proxies


def crawl_session(user_agent: str, adapter: Callable[[], CrawlAdapter]) -> requests.Session:
    """A session that does not read the environment per request: its proxies come from :class:`EnvironmentProxies`
    and its certificate bundle (``REQUESTS_CA_BUNDLE``, ``CURL_CA_BUNDLE``) is read here, once."""
    session = requests.Session()
    session.trust_env = False
    session.verify = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
    session.headers["User-Agent"] = user_agent
    session.headers["Accept"] = "text/html,application/xhtml+xml,application/xml;q=0.9,application/pdf,*/*;q=0.5"
    for prefix in ("http://", "https://"):
        session.mount(prefix, adapter())
    return session
