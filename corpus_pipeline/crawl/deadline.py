"""A whole-request deadline that holds while a server trickles headers or body.

Socket timeouts bound each read, not the request: a server sending one byte a
second never trips them. A timer shuts the request's socket down when the
deadline passes, which ends any blocked read at once.
"""

from __future__ import annotations

import socket
import threading


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
