"""A lock on an object store: a lease object created by one writer only (``If-None-Match: *``), renewed by a
background thread every third of its duration (``If-Match`` on the ETag it last wrote: a failed renewal means another
run took it over), and taken over once expired on the store's clock (``Date`` against ``Last-Modified``, so machines'
clocks need not agree) with ``If-Match`` on the ETag read, so one of two runs taking over at once wins. Before each
write that matters the holder checks (one HEAD) that the object is still the one it last wrote.

Limits: a holder paused longer than the duration (a stopped VM, a debugger) learns it lost the lease only at its next
renewal or check; a takeover between a check and the write it guards still lets that write land; release is
check-then-delete, not one conditional request.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import uuid
from datetime import timedelta

from corpus_pipeline.core.storage import ObjectStore

DEFAULT_LEASE_SECONDS = 300.0  # a killed run's partition is free again within five minutes
RENEWALS_PER_LEASE = 3  # renewing three times per duration survives two slow or failed renewals


class LeaseBusyError(RuntimeError):
    """Another live holder has the lease."""


class LeaseLostError(RuntimeError):
    """The lease expired and another run took it over while this one still worked."""


class Lease:
    """A lease object at one key of an object store."""

    def __init__(self, store: ObjectStore, key: str, seconds: float = DEFAULT_LEASE_SECONDS) -> None:
        if seconds <= 0:
            raise ValueError("a lease lasts a positive number of seconds")
        self.store = store
        self.key = key
        self.seconds = seconds
        self.owner = uuid.uuid4().hex
        self._etag: str | None = None
        self._lost = threading.Event()
        self._renewing = threading.Lock()  # a check must not compare the store with an ETag being replaced
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self._renewals = 0

    def acquire(self) -> None:
        """Take the lease, or take over an expired one; raise LeaseBusyError when a live run holds it."""
        self._etag = self.store.create(self.key, self._body())
        if self._etag is None:
            self._take_over_if_expired()
        self._stop.clear()
        self._renewer = threading.Thread(target=self._keep_renewing, name=f"lease {self.key}", daemon=True)
        self._renewer.start()

    def check(self) -> None:
        """Raise LeaseLostError unless the lease on the store is still the one this run last wrote."""
        with self._renewing:
            if not self._lost.is_set() and (self._etag is None or self.store.etag(self.key) != self._etag):
                self._lost.set()
        if self._lost.is_set():
            raise LeaseLostError(f"the lease {self.store.uri_of(self.key)} is no longer held by this run")

    def release(self) -> None:
        """Stop renewing and remove the lease if it is still ours."""
        self._stop.set()
        if self._renewer is not None:
            self._renewer.join()
            self._renewer = None
        if self._etag is not None and not self._lost.is_set() and self.store.etag(self.key) == self._etag:
            self.store.delete(self.key)
        self._etag = None

    def _take_over_if_expired(self) -> None:
        existing = self.store.read_with_etag(self.key)
        if existing is None:  # released between our two requests: try once more to create it
            self._etag = self.store.create(self.key, self._body())
        elif existing.server_now - existing.last_modified > timedelta(seconds=self.seconds):
            self._etag = self.store.replace_if(self.key, self._body(), existing.etag)
        if self._etag is None:
            holder = _holder_of(existing.data) if existing else "another run"
            raise LeaseBusyError(f"{self.store.uri_of(self.key)} is held by {holder}")

    def _keep_renewing(self) -> None:
        while not self._stop.wait(self.seconds / RENEWALS_PER_LEASE):
            if self._etag is None:
                return
            with self._renewing:
                self._renewals += 1
                try:
                    renewed = self.store.replace_if(self.key, self._body(), self._etag)
                except OSError:  # the store did not answer this time; the next renewal may, within the lease
                    continue
                if renewed is None:
                    self._lost.set()
                    return
                self._etag = renewed

    def _body(self) -> bytes:
        # The renewal count makes every renewal's bytes (and so its ETag) differ from the last one.
        holder = f"{socket.gethostname()}:{os.getpid()}"
        body = {"owner": self.owner, "holder": holder, "seconds": self.seconds, "renewals": self._renewals}
        return json.dumps(body).encode()


def _holder_of(data: bytes) -> str:
    try:
        return str(json.loads(data).get("holder", "another run"))
    except (ValueError, AttributeError):
        return "another run"
