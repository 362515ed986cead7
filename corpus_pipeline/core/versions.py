"""Versions of a warehouse partition: a new version becomes current only once it is judged good.

Layout, beside the hive tree that readers glob::

    <root>/<asset>/website=<name>/data.parquet              a copy (not a link) of the current version
    <root>/_versions/<asset>/website=<name>/<id>.parquet    every kept version, the current one included
    <root>/_versions/<asset>/website=<name>/versions.json   the ledger: state, rows, SHA-256 and cause of each version
    <root>/_versions/<asset>/website=<name>/.lock           held by the run that writes this partition

pyarrow, Spark and DuckDB skip folders whose name starts with ``_``, and the notebooks glob one asset's
folder, so the history never leaks into a reader's data.

On an object store (:class:`ObjectPartitionHistory`) the keys under ``s3://bucket/prefix`` are the same: version
objects are never rewritten, the ledger's ``current`` is the pointer, and a ``.lease`` object (lease.py) is the lock.
A version is uploaded, judged on the local copy it was written from, then published: a server-side copy replaces
``data.parquet`` whole (its ``x-amz-meta-corpus-version`` names the version), and the ledger, written last, moves
the pointer. The pipeline reads versions through the pointer; a run that dies between the copy and the ledger
leaves ``data.parquet`` ahead of the pointer, which the next run holding the lease puts back. Versions a run reads
or writes are cached locally, named by their id.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.core.lease import DEFAULT_LEASE_SECONDS, Lease, LeaseBusyError, LeaseLostError
from corpus_pipeline.core.partition_writer import DEFAULT_ROW_GROUP_SIZE, PartitionWriter
from corpus_pipeline.core.storage import ObjectStore

VERSIONS_DIR = "_versions"
LEDGER_FILE = "versions.json"
LOCK_FILE = ".lock"
DEFAULT_KEEP_VERSIONS = 3
# The fact (record_facts) naming the last few runs that kept a version instead of writing one: a roll-back finds it.
KEPT_BY_RUNS, KEPT_RUNS_NOTED = "kept_by_runs", 8
LEASE_OBJECT = ".lease"
VERSION_METADATA = "corpus-version"  # on an object store's data.parquet: the id of the version it is a copy of
LOG = logging.getLogger(__name__)


class VersionState(StrEnum):
    """Where a version stands."""

    CANDIDATE = "candidate"  # written, not judged yet
    PUBLISHED = "published"  # passed its checks and was (or is) the current version
    REFUSED = "refused"  # failed a blocking check; never current


class PartitionBusyError(RuntimeError):
    """Another run is writing the same partition."""


class UnknownVersionError(LookupError):
    """A version id that the ledger does not hold, or that cannot become current."""


class DamagedVersionError(RuntimeError):
    """A kept version whose file is not what the ledger recorded (unreadable, other rows, other checksum)."""


@dataclass(frozen=True)
class Version:
    """One version of a partition, as the ledger records it."""

    id: str
    state: VersionState
    created_at: str  # ISO 8601, UTC
    rows: int
    run_id: str | None = None
    cause: str | None = None  # why it was refused
    published_at: str | None = None
    checksum: str | None = None  # SHA-256 of the version's file (None for a folder version)


@dataclass(frozen=True)
class _Ledger:
    current: str | None
    versions: tuple[Version, ...]  # oldest first
    # What record_facts kept of each version's file, by version id and name (JSON values).
    facts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def find(self, version_id: str) -> Version | None:
        return next((v for v in self.versions if v.id == version_id), None)

    def with_version(self, version: Version) -> _Ledger:
        others = tuple(v for v in self.versions if v.id != version.id)
        return replace(self, versions=tuple(sorted(others + (version,), key=lambda v: v.id)))


class PartitionHistory:
    """The versions of one asset partition, and which of them readers see."""

    def __init__(self, folder: Path, current_path: Path, keep: int = DEFAULT_KEEP_VERSIONS) -> None:
        if keep < 1:
            raise ValueError("keep at least one version (the current one)")
        self.folder = folder
        self.current_path = current_path
        self.keep = keep

    # -- reading ------------------------------------------------------------------------------

    def versions(self) -> list[Version]:
        """Every kept version, newest first."""
        return list(reversed(self._read_ledger().versions))

    def current(self) -> Version | None:
        """The version readers see, or None before the first publication."""
        ledger = self._read_ledger()
        return ledger.find(ledger.current) if ledger.current else None

    def current_file(self) -> Path | None:
        """The file readers see, or None before the first publication or when it is damaged (unreadable, or not the
        ledger's checksum): logged in one line, so the night builds a fresh version instead of failing for good."""
        ledger = self._read_ledger()
        if not ledger.current or not self.current_path.exists():
            return None
        version = ledger.find(ledger.current)
        return self.current_path if version is None else self._checked_current(version, self.current_path)

    def _checked_current(self, version: Version, path: Path) -> Path | None:
        problem = self._damage(version, path)
        if problem is None:
            return path
        LOG.warning("%s: the current version %s is damaged (%s): treated as absent", self.current_uri(), version.id,
                    problem)
        return None

    def current_uri(self) -> str:
        """Where readers outside the pipeline find the current version (a path, or an object store URI)."""
        return str(self.current_path)

    def facts(self, version_id: str, name: str) -> Any | None:
        """What :meth:`record_facts` kept of a version under ``name``, or None."""
        return self._read_ledger().facts.get(version_id, {}).get(name)

    def keep_for_run(self, version_id: str, run_id: str) -> None:
        """Note that run ``run_id`` kept the current version ``version_id`` as its output instead of writing one."""
        runs = self.facts(version_id, KEPT_BY_RUNS) or []
        self.record_facts(version_id, KEPT_BY_RUNS, [*runs[1 - KEPT_RUNS_NOTED:], run_id])

    def runs_of(self, version: Version) -> list[str]:
        """The runs whose output the version is: the one that wrote it, then those that kept it (keep_for_run)."""
        return ([version.run_id] if version.run_id else []) + list(self.facts(version.id, KEPT_BY_RUNS) or [])

    def path_of(self, version_id: str) -> Path:
        """The Parquet file of one version."""
        return self.folder / f"{version_id}.parquet"

    def local_copy(self, version_id: str) -> Path:
        """A local file holding the version, to read it (here the version's own file)."""
        return self.path_of(version_id)

    def uri_of(self, version_id: str) -> str:
        """Where one version is kept (a path, or an object store URI)."""
        return str(self.path_of(version_id))

    def location(self) -> str:
        """Where the versions are kept, for messages (a folder, or an object store URI)."""
        return str(self.folder)

    # -- writing (hold the lock) -----------------------------------------------------------------

    @contextmanager
    def lock(self) -> Iterator[PartitionHistory]:
        """Hold the partition for one run; leftovers of dead runs are cleaned up on entry. An advisory ``flock``: the
        kernel releases it when its process dies, so a killed run never blocks the next one."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / LOCK_FILE, "w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise PartitionBusyError(f"another run is writing {self.folder}") from None
            try:
                self._clean_dead_runs()
                self._adopt_unversioned_current()
                yield self
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def new_version(
        self,
        schema: pa.Schema,
        run_id: str | None = None,
        row_group_size: int = DEFAULT_ROW_GROUP_SIZE,
        drop_columns: tuple[str, ...] = ("website",),
    ) -> VersionWriter:
        """A writer for a new candidate version (the ``website`` column lives in the folder name of a website's
        partition; an asset across websites keeps it in the file with ``drop_columns=()``)."""
        return VersionWriter(self, schema, run_id, row_group_size, drop_columns)

    def new_version_id(self) -> str:
        """A fresh id; ids sort in creation order."""
        return f"{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}-{uuid.uuid4().hex[:6]}"

    def record_candidate(self, version_id: str, rows: int, run_id: str | None, checksum: str | None = None) -> Version:
        """Register a version whose file is complete, before it is judged."""
        version = Version(version_id, VersionState.CANDIDATE, now_iso(), rows, run_id, checksum=checksum)
        self._write_ledger(self._read_ledger().with_version(version))
        return version

    def record_facts(self, version_id: str, name: str, value: Any) -> None:
        """Keep ``value`` (JSON) under ``name`` as a fact of a version's file, as long as the version is kept: what a
        check measured of a candidate is then known of the current version the next night, without reading it."""
        ledger = self._read_ledger()
        self._known(ledger, version_id)
        facts = {**ledger.facts, version_id: {**ledger.facts.get(version_id, {}), name: value}}
        self._write_ledger(replace(ledger, facts=facts))

    def publish(self, version_id: str) -> Version:
        """Make a version current: readers see it from now on. Older versions beyond ``keep`` are pruned."""
        ledger = self._read_ledger()
        version = ledger.find(version_id)
        if version is None or version.state is VersionState.REFUSED or not self._version_exists(version_id):
            raise UnknownVersionError(f"no publishable version {version_id!r} in {self.location()}")
        self._make_current(version_id)
        published = replace(version, state=VersionState.PUBLISHED, published_at=now_iso(), cause=None)
        self._write_ledger(replace(ledger.with_version(published), current=version_id))
        self._prune()
        return published

    def refuse(self, version_id: str, cause: str) -> Version:
        """Keep a version for inspection, marked as never current, with the one-line cause."""
        ledger = self._read_ledger()
        refused = replace(self._known(ledger, version_id), state=VersionState.REFUSED, cause=cause)
        self._write_ledger(ledger.with_version(refused))
        self._prune()
        return refused

    def roll_back(self, to: str | None = None) -> Version:
        """Make an earlier published version current again (by default the one before the current)."""
        ledger = self._read_ledger()
        published = [v for v in ledger.versions if v.state is VersionState.PUBLISHED]
        if to is None:
            earlier = [v for v in published if ledger.current is None or v.id < ledger.current]
            if not earlier:
                raise UnknownVersionError(f"no earlier published version in {self.location()}")
            to = earlier[-1].id
        if to not in {v.id for v in published}:
            raise UnknownVersionError(f"{to!r} is not a published version of {self.location()}")
        self.verify(to)
        return self.publish(to)

    def verify(self, version_id: str) -> None:
        """Raise :class:`DamagedVersionError` unless the version's file is what the ledger recorded."""
        problem = self._damage(self._known(self._read_ledger(), version_id))
        if problem is not None:
            raise DamagedVersionError(f"version {version_id} of {self.location()} is damaged: {problem}")

    def _known(self, ledger: _Ledger, version_id: str) -> Version:
        """The ledger's version ``version_id``; UnknownVersionError when it holds none."""
        version = ledger.find(version_id)
        if version is None:
            raise UnknownVersionError(f"no version {version_id!r} in {self.location()}")
        return version

    def _damage(self, version: Version, path: Path | None = None) -> str | None:
        """What is wrong with a version's file (or ``path``, a copy), in a few words; None when it is as recorded."""
        try:
            path = path or self.local_copy(version.id)
            if version.checksum is not None and file_checksum(path) != version.checksum:
                return "its SHA-256 differs from the ledger's"
            rows = count_rows(path)
        except (OSError, ValueError, pa.ArrowException) as error:
            return f"not readable as Parquet ({_one_line(error)})"
        if rows != version.rows:
            return f"{rows} rows where the ledger recorded {version.rows}"
        return None

    # -- storage primitives (a local folder here; overridden for object stores) ----------------------

    def _version_exists(self, version_id: str) -> bool:
        return self.path_of(version_id).exists()

    def _delete_version(self, version_id: str) -> None:
        self.path_of(version_id).unlink(missing_ok=True)

    def _make_current(self, version_id: str) -> None:
        _copy_atomically(self.path_of(version_id), self.current_path)

    def _store_version(self, version_id: str) -> None:
        """Called once a version's file is complete: a local version is already where it belongs."""

    def _read_ledger_text(self) -> str | None:
        path = self.folder / LEDGER_FILE
        return path.read_text() if path.exists() else None

    def _write_ledger_text(self, text: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{LEDGER_FILE}.{uuid.uuid4().hex}.tmp"
        tmp.write_text(text)
        os.replace(tmp, self.folder / LEDGER_FILE)

    # -- internals ----------------------------------------------------------------------------

    def _clean_dead_runs(self) -> None:
        """Temporary files and unjudged candidates can only come from dead runs while we hold the lock."""
        for folder in (self.folder, self.current_path.parent):
            for leftover in folder.glob(".*.tmp"):
                leftover.unlink(missing_ok=True)
        self._forget_candidates()

    def _forget_candidates(self) -> _Ledger:
        """Drop the versions a dead run left unjudged; the ledger that remains."""
        ledger = self._read_ledger()
        dead = [v for v in ledger.versions if v.state is VersionState.CANDIDATE]
        for version in dead:
            self._delete_version(version.id)
        if dead:
            ledger = replace(ledger, versions=tuple(v for v in ledger.versions if v not in dead))
            self._write_ledger(ledger)
        return ledger

    def _adopt_unversioned_current(self) -> None:
        """A partition written before versions existed becomes the first published version."""
        ledger = self._read_ledger()
        if ledger.current is not None or not self.current_path.exists():
            return
        stamp = datetime.fromtimestamp(self.current_path.stat().st_mtime, UTC)
        version_id = f"{stamp:%Y%m%dT%H%M%S%fZ}-adopted"
        _copy_atomically(self.current_path, self.path_of(version_id))
        version = Version(version_id, VersionState.PUBLISHED, stamp.isoformat(), count_rows(self.current_path),
                          published_at=now_iso(), checksum=file_checksum(self.path_of(version_id)))
        self._write_ledger(replace(ledger.with_version(version), current=version_id))

    def _prune(self) -> None:
        ledger = self._read_ledger()
        kept: list[Version] = []
        for state in (VersionState.PUBLISHED, VersionState.REFUSED):
            of_state = [v for v in ledger.versions if v.state is state]
            newest = of_state[-self.keep:]
            current = [v for v in of_state if v.id == ledger.current and v not in newest]
            kept += newest + current
        kept += [v for v in ledger.versions if v.state is VersionState.CANDIDATE]
        for version in ledger.versions:
            if version not in kept:
                self._delete_version(version.id)
        self._write_ledger(replace(ledger, versions=tuple(sorted(kept, key=lambda v: v.id))))

    def _read_ledger(self) -> _Ledger:
        text = self._read_ledger_text()
        if text is None:
            return _Ledger(None, ())
        raw = json.loads(text)
        versions = tuple(Version(**{**v, "state": VersionState(v["state"])}) for v in raw["versions"])
        return _Ledger(raw.get("current"), versions, raw.get("facts") or {})

    def _write_ledger(self, ledger: _Ledger) -> None:
        data: dict[str, Any] = {"current": ledger.current, "versions": [asdict(v) for v in ledger.versions]}
        kept = {v.id for v in ledger.versions}
        facts = {version_id: named for version_id, named in ledger.facts.items() if version_id in kept}
        if facts:
            data["facts"] = facts
        self._write_ledger_text(json.dumps(data, indent=1, default=str))


class VersionWriter(PartitionWriter):
    """Writes one new version of a partition; once complete it is recorded as a candidate, not yet current."""

    def __init__(
        self,
        history: PartitionHistory,
        schema: pa.Schema,
        run_id: str | None,
        row_group_size: int,
        drop_columns: tuple[str, ...],
    ) -> None:
        self.history = history
        self.version_id = history.new_version_id()
        self.run_id = run_id
        super().__init__(history.path_of(self.version_id), schema, row_group_size, drop_columns=drop_columns)

    def __exit__(self, exc_type, exc, tb) -> None:
        super().__exit__(exc_type, exc, tb)
        if exc_type is None:
            checksum = file_checksum(self.history.path_of(self.version_id))
            self.history._store_version(self.version_id)
            self.history.record_candidate(self.version_id, self.rows_written, self.run_id, checksum)


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

    def current_file(self) -> Path | None:
        """A local copy of the current version, or None before the first publication or when it is damaged."""
        ledger = self._read_ledger()
        if not ledger.current:
            return None
        path = self.local_copy(ledger.current)
        version = ledger.find(ledger.current)
        if version is None or self._damage(version, path) is None:
            return path
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
            # Local copies of versions the ledger no longer holds are dropped, so the cache stays bounded.
            known = {v.id for v in self._read_ledger().versions} | {version_id}
            for copy in self.folder.glob("*.parquet"):
                if copy.stem not in known:
                    copy.unlink(missing_ok=True)
        return path

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

    def _version_exists(self, version_id: str) -> bool:
        return self.store.exists(self._version_key(version_id))

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

    def _clean_dead_runs(self) -> None:
        """Unjudged candidates, and version objects the ledger never heard of, come from dead runs."""
        ledger = self._forget_candidates()
        known = {f"{self.folder_key}/{v.id}.parquet" for v in ledger.versions}
        for key in self.store.list(self.folder_key):
            if key.endswith(".parquet") and key not in known:
                self.store.delete(key)
        for leftover in self.folder.glob(".*.tmp"):
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


def count_rows(path: Path) -> int:
    """Rows of a Parquet file, read from its footer."""
    return pq.ParquetFile(path).metadata.num_rows


def file_checksum(path: Path) -> str:
    """SHA-256 of a file, in hex."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _copy_atomically(source: Path, target: Path) -> None:
    """Make ``target`` a copy of ``source`` in one rename; readers see the old or the new file, never half. Not a hard
    link: damage written into one file must not reach the other (a copy-on-write clone keeps that)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        shutil.copyfile(source, tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def now_iso() -> str:
    return datetime.now(UTC).isoformat()
