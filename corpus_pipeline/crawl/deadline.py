"""A whole-request deadline that holds while a server trickles headers or body.

Socket timeouts bound each read, not the request: a server sending one byte a
second never trips them. A timer shuts the request's socket down when the
deadline passes, which ends any blocked read at once.
"""

from __future__ import annotations

import socket
import threading
from typing import cast

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool


class RequestDeadline:
    """Shuts down the socket of the request in progress when armed time runs out (one per thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._sock: socket.socket | None = None
        self._request = 0  # a late timer of a finished request must not shut the next one's socket
        self.expired = False

    def arm(self, seconds: float) -> None:
        """Start the clock of a new request."""
        self.disarm()
        with self._lock:
            self.expired = False
            self._request += 1
            self._timer = threading.Timer(seconds, self._expire, args=(self._request,))
            self._timer.daemon = True
            self._timer.start()

    def disarm(self) -> None:
        """The request ended (or gave up) on its own."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = None
            self._sock = None

    def watch(self, sock: socket.socket | None) -> None:
        """The socket the current request reads from."""
        with self._lock:
            self._sock = sock
            if self.expired:
                _shut(sock)

    def _expire(self, request: int) -> None:
        with self._lock:
            if request != self._request:
                return
            self.expired = True
            _shut(self._sock)


def _shut(sock: socket.socket | None) -> None:
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes up a recv blocked in another thread; close() would not
    except OSError:
        pass


class _Watched:
    """Hands the connection's socket to the request's deadline once the request is sent."""

    def __init__(self, *args, request_deadline: RequestDeadline, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._request_deadline = request_deadline

    def request(self, *args, **kwargs) -> None:
        super().request(*args, **kwargs)  # type: ignore[misc]
        self._request_deadline.watch(self.sock)  # type: ignore[attr-defined]  # connected now; the response follows


class _WatchedHTTPConnection(_Watched, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, HTTPSConnection):
    pass


class DeadlineAdapter(HTTPAdapter):
    """A requests transport whose connections report their socket to a :class:`RequestDeadline`."""

    def __init__(self, request_deadline: RequestDeadline, **kwargs) -> None:
        self.request_deadline = request_deadline
        super().__init__(**kwargs)

    def get_connection_with_tls_context(self, request, verify, proxies=None, cert=None) -> HTTPConnectionPool:
        pool = cast(HTTPConnectionPool, super().get_connection_with_tls_context(request, verify, proxies, cert))
        if not isinstance(pool.conn_kw.get("request_deadline"), RequestDeadline):
            secure = pool.scheme == "https"
            pool.ConnectionCls = _WatchedHTTPSConnection if secure else _WatchedHTTPConnection
            pool.conn_kw["request_deadline"] = self.request_deadline
        return pool
