"""The crawler's HTTP transport: connections that report to the request's deadline and check their peer.

The private-address check before a request resolves the host name once; the
connection resolves it again. A name that answers a public address first and a
private one next (DNS rebinding) would pass the first check, so the address the
socket actually connected to is checked too, before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

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
