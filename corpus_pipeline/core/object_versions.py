"""Versions of a warehouse partition on an object store, with the guarantees of the local ones.

Layout under ``s3://bucket/prefix`` (the same keys as the local folders)::

    <asset>/website=<name>/data.parquet              a copy of the current version, for notebooks
                                                     (its x-amz-meta-corpus-version names the version)
    _versions/<asset>/website=<name>/<id>.parquet    every kept version (objects are never rewritten)
    _versions/<asset>/website=<name>/versions.json   the ledger, and the pointer: ``current`` names the version
    _versions/<asset>/website=<name>/.lease          held by the run that writes this partition (see lease.py)

A version is uploaded as its own object, judged on the local copy it was written from, and only then
published: a server-side copy replaces ``data.parquet`` whole (one atomic operation), and the ledger,
written last, moves the pointer. The pipeline itself reads through the pointer, so it always reads an
immutable version object; a run that dies between the copy and the ledger write leaves ``data.parquet``
ahead of the pointer, which the next run holding the lease puts back. A refused version only changes
the ledger. Versions a run reads or writes are kept in a local cache folder, named by their id.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from corpus_pipeline.core.lease import DEFAULT_LEASE_SECONDS, Lease, LeaseBusyError, LeaseLostError
from corpus_pipeline.core.storage import ObjectStore
from corpus_pipeline.core.versions import (
    DEFAULT_KEEP_VERSIONS,
    LEDGER_FILE,
    PartitionBusyError,
    PartitionHistory,
    Version,
    VersionState,
    count_rows,
    file_checksum,
    now_iso,
)

LEASE_OBJECT = ".lease"
VERSION_METADATA = "corpus-version"  # on data.parquet: the id of the version it is a copy of


class ObjectPartitionHistory(PartitionHistory):
    """The versions of one asset partition kept in an object store."""

    def __init__(
        self,
        store: ObjectStore,
        folder_key: str,
        current_key: str,
        cache_folder: Path,
        keep: int = DEFAULT_KEEP_VERSIONS,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ) -> None:
        if keep < 1:
            raise ValueError("keep at least one version (the current one)")
        self.store = store
        self.folder_key = folder_key
        self.current_key = current_key
        self.folder = cache_folder  # local copies of versions, named by id
        self.keep = keep
        self.lease_seconds = lease_seconds
        self._lease: Lease | None = None

    # -- reading ------------------------------------------------------------------------------

    def current_file(self) -> Path | None:
        """A local copy of the current version, or None before the first publication or when it is damaged."""
        ledger = self._read_ledger()
        if not ledger.current:
            return None
        path = self.local_copy(ledger.current)
        version = ledger.find(ledger.current)
        if version is None:
            return path
        if self._damage(version, path, decode_all=False) is None:
            return path  # checked once: _checked_current would hash the same bytes again
        # A damaged cache copy: download it again; a fresh copy still damaged is the stored version's damage.
        path.unlink(missing_ok=True)
        return self._checked_current(version, self.local_copy(ledger.current))

    def current_uri(self) -> str:
        return self.store.uri_of(self.current_key)

    def uri_of(self, version_id: str) -> str:
        return self.store.uri_of(self._version_key(version_id))

    def location(self) -> str:
        return self.store.uri_of(self.folder_key)

    def local_copy(self, version_id: str) -> Path:
        """The version's file in the local cache, downloaded once (versions never change)."""
        path = self.path_of(version_id)
        if not path.exists():
            self.store.download(self._version_key(version_id), path)
            self._forget_other_copies(keep={version_id})
        return path

    # -- writing (hold the lock) -----------------------------------------------------------------

    @contextmanager
    def lock(self) -> Iterator[PartitionHistory]:
        """Hold the partition's lease for one run; leftovers of dead runs are cleaned up on entry."""
        lease = Lease(self.store, f"{self.folder_key}/{LEASE_OBJECT}", self.lease_seconds)
        try:
            lease.acquire()
        except LeaseBusyError as error:
            raise PartitionBusyError(str(error)) from None
        self._lease = lease
        try:
            self._clean_dead_runs()
            self._restore_current_copy()
            self._adopt_unversioned_current()
            yield self
        finally:
            self._lease = None
            lease.release()

    # -- storage primitives ------------------------------------------------------------------------

    def _version_exists(self, version_id: str) -> bool:
        return self.store.exists(self._version_key(version_id))

    def _local_version_file(self, version_id: str) -> Path:
        return self.local_copy(version_id)

    def _delete_version(self, version_id: str) -> None:
        self._check_lease()
        self.store.delete(self._version_key(version_id))
        self.path_of(version_id).unlink(missing_ok=True)

    def _make_current(self, version_id: str) -> None:
        self._check_lease()
        self.store.copy(self._version_key(version_id), self.current_key, metadata={VERSION_METADATA: version_id})

    def _store_version(self, version_id: str) -> None:
        self._check_lease()
        self.store.upload(self.path_of(version_id), self._version_key(version_id))

    def _read_ledger_text(self) -> str | None:
        data = self.store.read_bytes(f"{self.folder_key}/{LEDGER_FILE}")
        return data.decode() if data is not None else None

    def _write_ledger_text(self, text: str) -> None:
        self._check_lease()
        self.store.write_bytes(f"{self.folder_key}/{LEDGER_FILE}", text.encode())

    # -- internals ----------------------------------------------------------------------------

    def _clean_dead_runs(self) -> None:
        """Unjudged candidates, and version objects the ledger never heard of, come from dead runs."""
        ledger = self._forget_candidates()
        known = {f"{self.folder_key}/{v.id}.parquet" for v in ledger.versions}
        for key in self.store.list(self.folder_key):
            if key.endswith(".parquet") and key not in known:
                self.store.delete(key)
        for leftover in self.folder.glob(".*.tmp") if self.folder.exists() else ():
            leftover.unlink(missing_ok=True)

    def _restore_current_copy(self) -> None:
        """Put the pointer's version back in ``data.parquet`` if a dead run copied another one there."""
        current = self._read_ledger().current
        if current is None or not self._version_exists(current):
            return
        copied = self.store.metadata(self.current_key) or {}
        if copied.get(VERSION_METADATA) != current:
            self._make_current(current)

    def _adopt_unversioned_current(self) -> None:
        """A partition uploaded without versions becomes the first published version."""
        ledger = self._read_ledger()
        if ledger.current is not None or not self.store.exists(self.current_key):
            return
        version_id = f"{self.new_version_id().split('-')[0]}-adopted"
        self.store.copy(self.current_key, self._version_key(version_id))
        rows = count_rows(self.local_copy(version_id))
        now = now_iso()
        version = Version(version_id, VersionState.PUBLISHED, now, rows, published_at=now,
                          checksum=file_checksum(self.local_copy(version_id)))
        self._write_ledger(replace(ledger.with_version(version), current=version_id))

    def _check_lease(self) -> None:
        """Refuse to write once another run took the partition over (this run's lease expired)."""
        if self._lease is None:
            return
        try:
            self._lease.check()
        except LeaseLostError as error:
            raise PartitionBusyError(str(error)) from None

    def _version_key(self, version_id: str) -> str:
        return f"{self.folder_key}/{version_id}.parquet"

    def _forget_other_copies(self, keep: set[str]) -> None:
        """Local copies of versions the ledger no longer holds are dropped, so the cache stays bounded."""
        known = {v.id for v in self._read_ledger().versions} | keep
        for copy in self.folder.glob("*.parquet"):
            if copy.stem not in known:
                copy.unlink(missing_ok=True)

