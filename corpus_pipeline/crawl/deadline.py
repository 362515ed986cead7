"""A whole-request deadline that holds while a server trickles headers or body.

Socket timeouts bound each read, not the request: a server sending one byte a second never trips them. When a
request's deadline passes, its socket is shut down, which ends any blocked read at once. One watch thread keeps the
deadlines of every request of a crawl (a timer thread per request would start a thread on every fetch).
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import socket
import threading
import time
from collections.abc import Callable


class DeadlineWatch:
    """Calls each scheduled callback when its time comes, on one daemon thread that runs only while some are due.
    A callback no longer wanted is not removed: its owner ignores the late call (see :class:`RequestDeadline`)."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()  # ties at the same instant never compare callbacks
        self._condition = threading.Condition()
        self._running = False

    def call_at(self, when: float, callback: Callable[[], None]) -> None:
        """Call ``callback`` (on the watch's thread) once ``time.monotonic()`` reaches ``when``."""
        with self._condition:
            heapq.heappush(self._due, (when, next(self._order), callback))
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="request-deadlines", daemon=True).start()
            elif self._due[0][2] is callback:
                self._condition.notify()  # due before everything the thread waits for

    def _run(self) -> None:
        while True:
            with self._condition:
                while self._due and self._due[0][0] > time.monotonic():
                    self._condition.wait(self._due[0][0] - time.monotonic())
                if not self._due:
                    self._running = False  # nothing left to watch: the next call starts a new thread
                    return
                _, _, callback = heapq.heappop(self._due)
            callback()


class RequestDeadline:
    """Shuts down the socket of the request in progress when armed time runs out (one per thread)."""

    def __init__(self, watch: DeadlineWatch) -> None:
        self._watch = watch
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._request = 0  # a late call for a finished request must not shut the next one's socket
        self.expired = False

    def arm(self, seconds: float) -> None:
        """Start the clock of a new request."""
        with self._lock:
            self.expired = False
            self._sock = None
            self._request += 1
            request = self._request
        self._watch.call_at(time.monotonic() + seconds, lambda: self._expire(request))

    def disarm(self) -> None:
        """The request ended (or gave up) on its own."""
        with self._lock:
            self._request += 1  # its deadline, when it comes, is no longer the request in progress's
            self._sock = None

    def watch(self, sock: socket.socket | None) -> None:
        """The socket the current request reads from."""
        with self._lock:
            self._sock = sock
            if self.expired:
                _shut(sock)

    def _expire(self, request: int) -> None:
        with self._lock:
            if request == self._request:
                self.expired = True
                _shut(self._sock)


def _shut(sock: socket.socket | None) -> None:
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)  # wakes up a recv blocked in another thread; close() would not
