"""Versions that are folders of files (a dataset export: shards and a card), with a partition's guarantees.

The ledger, lock or lease, states and pruning are those of ``versions.py``; only where a version lives and how it
becomes current differ:

    local   <root>/<asset>                   a symbolic link to the current version's folder, replaced in one rename
            <root>/_versions/<asset>/<id>/   every kept version
    object  <asset>/...                      copies of the current version's objects, replaced one by one (then the
                                             previous version's extra objects removed): a reader who must never mix
                                             two versions reads the folder the ledger's ``current`` names
            _versions/<asset>/<id>/...       every kept version (objects are never rewritten)
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.core.versions import (
    LEDGER_FILE,
    VERSION_METADATA,
    ObjectPartitionHistory,
    PartitionHistory,
    Version,
)


@dataclass
class FolderVersion:
    """A version being written: fill ``path`` (an empty folder) and say how many ``rows`` it holds."""

    version_id: str
    path: Path
    rows: int = 0


class FolderHistory(PartitionHistory):
    """Folder versions in a local warehouse; the current one is a symbolic link readers follow."""

    def path_of(self, version_id: str) -> Path:
        """The local folder of one version."""
        return self.folder / version_id

    @contextmanager
    def new_folder(self, run_id: str | None = None) -> Iterator[FolderVersion]:
        """A new candidate version: written in a hidden folder, renamed into place and recorded when complete."""
        version_id = self.new_version_id()
        staging = self.folder / f".{version_id}.tmp"
        staging.mkdir(parents=True)
        version = FolderVersion(version_id, staging)
        try:
            yield version
            os.rename(staging, self.path_of(version_id))
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        version.path = self.path_of(version_id)
        self._store_version(version_id)
        self.record_candidate(version_id, version.rows, run_id)

    def verify(self, version_id: str) -> None:
        """A folder version is checked by whoever reads its files; here only that the ledger holds it."""
        self._known(self._read_ledger(), version_id)

    def _checked_current(self, version: Version, path: Path) -> Path | None:
        """A folder version's files are checked by their reader."""
        return path

    def _remove_local_leftovers(self) -> None:
        for leftover in self.folder.glob(".*.tmp"):
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)

    def _version_exists(self, version_id: str) -> bool:
        return self.path_of(version_id).is_dir()

    def _delete_version(self, version_id: str) -> None:
        shutil.rmtree(self.path_of(version_id), ignore_errors=True)

    def _make_current(self, version_id: str) -> None:
        target = self.current_path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and not target.is_symlink():
            raise FileExistsError(f"{target} is a folder the warehouse did not write: move it away to publish here")
        link = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
        os.symlink(os.path.relpath(self.path_of(version_id), target.parent), link)
        os.replace(link, target)

    def _clean_dead_runs(self) -> None:
        self._remove_local_leftovers()
        for link in self.current_path.parent.glob(f".{self.current_path.name}.*.tmp"):
            link.unlink(missing_ok=True)
        self._forget_candidates()

    def _adopt_unversioned_current(self) -> None:
        """Nothing to adopt: a folder asset was never written without versions."""


class ObjectFolderHistory(FolderHistory, ObjectPartitionHistory):
    """Folder versions on an object store; ``current_key`` is the folder key readers list. Every storage primitive of
    :class:`FolderHistory` is overridden here, so that of :class:`ObjectPartitionHistory` never shows through."""

    def current_file(self) -> Path | None:
        """A local copy of the current version's folder, or None before the first publication."""
        current = self._read_ledger().current
        return self.local_copy(current) if current else None

    def local_copy(self, version_id: str) -> Path:
        """The version's folder in the local cache, downloaded once (versions never change)."""
        path = self.path_of(version_id)
        if not path.exists():
            staging = self.folder / f".{version_id}.download.tmp"
            shutil.rmtree(staging, ignore_errors=True)
            prefix = self._version_key(version_id)
            for key in self.store.list_tree(prefix):
                self.store.download(key, staging / key[len(prefix) + 1:])
            staging.mkdir(parents=True, exist_ok=True)
            os.rename(staging, path)
        return path

    def _version_key(self, version_id: str) -> str:
        return f"{self.folder_key}/{version_id}"

    def _version_exists(self, version_id: str) -> bool:
        return bool(self.store.list_tree(self._version_key(version_id)))

    def _store_version(self, version_id: str) -> None:
        self._check_lease()
        source = self.path_of(version_id)
        for path in sorted(p for p in source.rglob("*") if p.is_file()):
            self.store.upload(path, f"{self._version_key(version_id)}/{path.relative_to(source).as_posix()}")

    def _delete_version(self, version_id: str) -> None:
        self._check_lease()
        for key in self.store.list_tree(self._version_key(version_id)):
            self.store.delete(key)
        shutil.rmtree(self.path_of(version_id), ignore_errors=True)

    def _make_current(self, version_id: str) -> None:
        self._check_lease()
        prefix = self._version_key(version_id)
        names = [key[len(prefix) + 1:] for key in self.store.list_tree(prefix)]
        for name in names:
            self.store.copy(f"{prefix}/{name}", f"{self.current_key}/{name}", metadata={VERSION_METADATA: version_id})
        wanted = {f"{self.current_key}/{name}" for name in names}
        for key in self.store.list_tree(self.current_key):
            if key not in wanted:
                self.store.delete(key)

    def _restore_current_copy(self) -> None:
        """Copy the pointer's version again if a dead run left the readers' folder half replaced."""
        current = self._read_ledger().current
        if current is None or not self._version_exists(current):
            return
        prefix = self._version_key(current)
        names = {key[len(prefix) + 1:] for key in self.store.list_tree(prefix)}
        copies = {key[len(self.current_key) + 1:]: key for key in self.store.list_tree(self.current_key)}
        if set(copies) != names or any(
            (self.store.metadata(key) or {}).get(VERSION_METADATA) != current for key in copies.values()
        ):
            self._make_current(current)

    def _clean_dead_runs(self) -> None:
        """Unjudged candidates, and version folders the ledger never heard of, come from dead runs."""
        ledger = self._forget_candidates()
        known = {v.id for v in ledger.versions}
        for key in self.store.list_tree(self.folder_key):
            name = key[len(self.folder_key) + 1:]
            version_id = name.split("/", 1)[0]
            if "/" in name and version_id not in known:
                self.store.delete(key)
            elif "/" not in name and name != LEDGER_FILE and not name.startswith("."):
                self.store.delete(key)
        self._remove_local_leftovers()
