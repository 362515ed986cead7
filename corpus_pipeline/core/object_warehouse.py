"""The warehouse on an object store (``s3://bucket/prefix``): the local layout, with leases for locks; and
:func:`open_warehouse`, which opens either kind from its location.

Workers on several machines see the same partitions. Readers inside the pipeline resolve each
partition's ledger (its pointer) and read the immutable version object it names; readers outside
(notebooks) read ``<asset>/website=<name>/data.parquet``, which a publication replaces whole.
Files that pyarrow reads row group by row group (raw_pages for the extractors, the previous crawl)
are downloaded once per version into a local cache folder.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
import pyarrow as pa

from corpus_pipeline.core.checkpoint import CHECKPOINTS_DIR
from corpus_pipeline.core.lease import DEFAULT_LEASE_SECONDS
from corpus_pipeline.core.object_checkpoint import ObjectCheckpoint
from corpus_pipeline.core.object_versions import ObjectPartitionHistory
from corpus_pipeline.core.storage import ObjectStore, ObjectStoreSettings, is_object_store_uri
from corpus_pipeline.core.versions import DEFAULT_KEEP_VERSIONS, VERSIONS_DIR
from corpus_pipeline.core.warehouse import (
    PARTITION_FILE,
    Warehouse,
    default_data_dir,
    partition_key,
    whole_asset_key,
)

if TYPE_CHECKING:
    from corpus_pipeline.core.folder_versions import FolderHistory, ObjectFolderHistory

CACHE_DIR = "object_cache"


class ObjectWarehouse(Warehouse):
    """The Parquet partitions of all assets under one ``s3://bucket/prefix``, each with its kept versions."""

    def __init__(
        self,
        uri: str,
        keep_versions: int = DEFAULT_KEEP_VERSIONS,
        settings: ObjectStoreSettings | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ) -> None:
        self.store = ObjectStore(uri, settings)
        self.uri = self.store.uri
        self.keep_versions = keep_versions
        self.lease_seconds = lease_seconds
        # One cache folder per warehouse URI, so two warehouses never share a version's copy.
        uri_key = hashlib.sha256(self.uri.encode()).hexdigest()[:16]
        self.cache_dir = Path(cache_dir) if cache_dir else default_data_dir() / CACHE_DIR / uri_key

    def path(self, asset: str, website: str) -> Path:
        raise NotImplementedError(
            f"{self.uri} is an object store: use local_file() for a local copy or partition_uri() for its address"
        )

    def exists(self, asset: str, website: str) -> bool:
        return self.store.exists(self._current_key(asset, website))

    def local_file(self, asset: str, website: str) -> Path:
        """A local copy of the current version (downloaded once per version)."""
        current = self.history(asset, website).current_file()
        if current is None:
            raise FileNotFoundError(self._missing(asset, website))
        return current

    def partition_uri(self, asset: str, website: str) -> str:
        return self.store.uri_of(self._current_key(asset, website))

    def storage_options(self) -> dict[str, str]:
        return self.store.settings.polars_options()

    def history(self, asset: str, website: str) -> ObjectPartitionHistory:
        """The versions of one partition (hold ``history.lock()`` to write one)."""
        key = partition_key(asset, website)
        return ObjectPartitionHistory(
            self.store,
            f"{VERSIONS_DIR}/{key}",
            self._current_key(asset, website),
            self.cache_dir / VERSIONS_DIR / key,
            self.keep_versions,
            self.lease_seconds,
        )

    def whole_asset_history(self, asset: str) -> ObjectPartitionHistory:
        key = whole_asset_key(asset)
        return ObjectPartitionHistory(
            self.store,
            f"{VERSIONS_DIR}/{key}",
            f"{key}/{PARTITION_FILE}",
            self.cache_dir / VERSIONS_DIR / key,
            self.keep_versions,
            self.lease_seconds,
        )

    def folder_history(self, asset: str) -> FolderHistory | ObjectFolderHistory:
        from corpus_pipeline.core.folder_versions import ObjectFolderHistory

        key = whole_asset_key(asset)
        return ObjectFolderHistory(
            self.store,
            f"{VERSIONS_DIR}/{key}",
            key,
            self.cache_dir / VERSIONS_DIR / key,
            self.keep_versions,
            self.lease_seconds,
        )

    def scan_whole_asset(self, asset: str) -> pl.LazyFrame:
        """Lazy frame of the current version, read from its immutable object."""
        history = self.whole_asset_history(asset)
        current = history.current()
        if current is None:
            raise FileNotFoundError(f"{asset} has no published version yet in {self.uri}: materialize it first")
        return pl.scan_parquet(history.uri_of(current.id), storage_options=self.storage_options())

    def checkpoint(self, asset: str, website: str, schema: pa.Schema) -> ObjectCheckpoint:
        return ObjectCheckpoint(self.store, f"{CHECKPOINTS_DIR}/{partition_key(asset, website)}", schema, ("website",))

    def scan(self, asset: str, website: str) -> pl.LazyFrame:
        """Lazy frame of the current version, read from its immutable object, with its ``website`` column."""
        history = self.history(asset, website)
        current = history.current()
        if current is None:
            raise FileNotFoundError(self._missing(asset, website))
        frame = pl.scan_parquet(history.uri_of(current.id), storage_options=self.storage_options())
        return frame.with_columns(pl.lit(website).alias("website"))

    def _current_key(self, asset: str, website: str) -> str:
        return f"{partition_key(asset, website)}/{PARTITION_FILE}"

    def _missing(self, asset: str, website: str) -> str:
        where = self.partition_uri(asset, website)
        return f"{asset} has no partition for website {website!r} yet ({where}): materialize it first"


def open_warehouse(
    location: str | os.PathLike[str],
    keep_versions: int = DEFAULT_KEEP_VERSIONS,
    endpoint_url: str = "",
    lease_seconds: float = DEFAULT_LEASE_SECONDS,
) -> Warehouse:
    """The warehouse at a local folder, or at ``s3://bucket/prefix``.

    ``endpoint_url`` names an S3-compatible server; ``lease_seconds`` how long an object store partition lock
    outlives a run that stopped renewing it.
    """
    if not is_object_store_uri(location):
        return Warehouse(location, keep_versions=keep_versions)
    settings = ObjectStoreSettings.from_env(endpoint_url)
    return ObjectWarehouse(str(location), keep_versions, settings, lease_seconds=lease_seconds)
