"""Parquet partitions in a local folder or an object store: hive layout, versions, checkpoints.

``<root>/<asset>/website=<name>/data.parquet`` is the current version of a partition, the one readers see; versions
are kept beside it (``versions.py``), and rows of an unfinished crawl in ``<root>/_checkpoints`` (``checkpoint.py``).
:func:`open_warehouse` opens a local folder or an ``s3://bucket/prefix`` with the same layout, which workers on several
machines share; files pyarrow reads by row group are downloaded there once per version into a local cache folder.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import polars as pl
import pyarrow as pa

from corpus_pipeline.core.checkpoint import CHECKPOINTS_DIR, Checkpoint, ObjectCheckpoint
from corpus_pipeline.core.folder_versions import FolderHistory, ObjectFolderHistory
from corpus_pipeline.core.lease import DEFAULT_LEASE_SECONDS
from corpus_pipeline.core.partition_writer import DEFAULT_ROW_GROUP_SIZE
from corpus_pipeline.core.registry import WEBSITE_NAME_PATTERN
from corpus_pipeline.core.storage import ObjectStore, ObjectStoreSettings, is_object_store_uri
from corpus_pipeline.core.versions import (
    DEFAULT_KEEP_VERSIONS,
    VERSIONS_DIR,
    ObjectPartitionHistory,
    PartitionHistory,
    VersionWriter,
)

DATA_DIR_ENV_VAR = "CORPUS_PIPELINE_DATA"
WAREHOUSE_ENV_VAR = "CORPUS_PIPELINE_WAREHOUSE"
PARTITION_FILE = "data.parquet"
CACHE_DIR = "object_cache"
ObjectHistory = TypeVar("ObjectHistory", bound=ObjectPartitionHistory)


def default_data_dir() -> Path:
    """``$CORPUS_PIPELINE_DATA``, else ``data/`` at the project root."""
    configured = os.environ.get(DATA_DIR_ENV_VAR)
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "data"


def default_warehouse_location() -> str | Path:
    """``$CORPUS_PIPELINE_WAREHOUSE`` (a folder or ``s3://bucket/prefix``: set on every worker, it points all of them
    at one shared warehouse without run config), else ``<data dir>/warehouse``."""
    return os.environ.get(WAREHOUSE_ENV_VAR) or default_data_dir() / "warehouse"


class PartitionPathError(ValueError):
    """A partition key that would not stay inside the warehouse."""


def partition_key(asset: str, website: str) -> str:
    """``<asset>/website=<name>``, the partition's place under any root; refuses names that are not plain."""
    if not WEBSITE_NAME_PATTERN.fullmatch(website):
        raise PartitionPathError(f"invalid website name for a partition: {website!r}")
    return f"{whole_asset_key(asset)}/website={website}"


def whole_asset_key(asset: str) -> str:
    """``<asset>``, the place of an asset that is not partitioned by website; refuses names that are not plain."""
    if not WEBSITE_NAME_PATTERN.fullmatch(asset.replace("_", "-")):
        raise PartitionPathError(f"invalid asset name: {asset!r}")
    return asset


def partition_dir(root: str | os.PathLike[str], asset: str, website: str) -> Path:
    """Folder of one asset partition; refuses keys that could escape ``root``."""
    partition_key(asset, website)
    root_path = Path(root).resolve()
    folder = (root_path / asset / f"website={website}").resolve()
    if root_path not in folder.parents:
        raise PartitionPathError(f"partition {asset}/{website} escapes {root_path}")
    return folder


class Warehouse:
    """The Parquet partitions of all assets under one root folder, each with its kept versions."""

    def __init__(self, root: str | os.PathLike[str], keep_versions: int = DEFAULT_KEEP_VERSIONS) -> None:
        self.root = Path(root)
        self.uri = str(self.root)
        self.keep_versions = keep_versions

    def path(self, asset: str, website: str) -> Path:
        """The current version of a partition: the file readers see."""
        return partition_dir(self.root, asset, website) / PARTITION_FILE

    def local_file(self, asset: str, website: str) -> Path:
        """A local file holding the current version of a partition, for readers that need one (pyarrow)."""
        return self.path(asset, website)

    def partition_uri(self, asset: str, website: str) -> str:
        """Where readers outside the pipeline find the current version of a partition."""
        return str(self.path(asset, website))

    def asset_glob(self, asset: str) -> str:
        """The pattern a notebook scans for every website's partition of an asset (with hive partitioning)."""
        return f"{self.uri}/{asset}/**/*.parquet"

    def storage_options(self) -> dict[str, str]:
        """``storage_options`` for polars readers of this warehouse (none for a local folder)."""
        return {}

    def exists(self, asset: str, website: str) -> bool:
        return self.path(asset, website).exists()

    def history(self, asset: str, website: str) -> PartitionHistory:
        """The versions of one partition (hold ``history.lock()`` to write one)."""
        folder = partition_dir(self.root / VERSIONS_DIR, asset, website)
        return PartitionHistory(folder, self.path(asset, website), self.keep_versions)

    def whole_asset_history(self, asset: str) -> PartitionHistory:
        """The versions of an asset built across websites (not partitioned): ``<asset>/data.parquet`` is current."""
        key = whole_asset_key(asset)
        return PartitionHistory(self.root / VERSIONS_DIR / key, self.root / key / PARTITION_FILE, self.keep_versions)

    def folder_history(self, asset: str) -> FolderHistory:
        """The versions of an asset that are folders of files (``<asset>/`` is current; folder_versions.py)."""
        key = whole_asset_key(asset)
        return FolderHistory(self.root / VERSIONS_DIR / key, self.root / key, self.keep_versions)

    def scan_whole_asset(self, asset: str) -> pl.LazyFrame:
        """Lazy frame of the current version of an asset built across websites."""
        current = self.whole_asset_history(asset).current_file()
        if current is None:
            raise FileNotFoundError(self._missing(asset))
        return pl.scan_parquet(current)

    def checkpoint(self, asset: str, website: str, schema: pa.Schema) -> Checkpoint:
        """Rows of an unfinished materialization of a partition, kept so that a re-run can resume."""
        return Checkpoint(partition_dir(self.root / CHECKPOINTS_DIR, asset, website), schema, drop_columns=("website",))

    @contextmanager
    def writer(
        self, asset: str, website: str, schema: pa.Schema, row_group_size: int = DEFAULT_ROW_GROUP_SIZE
    ) -> Iterator[VersionWriter]:
        """Write a new version and make it current at once, without checks (for fixtures and tools)."""
        with self.history(asset, website).lock() as history:
            with history.new_version(schema, row_group_size=row_group_size) as writer:
                yield writer
            history.publish(writer.version_id)

    def scan(self, asset: str, website: str) -> pl.LazyFrame:
        """Lazy frame of the current version of a partition, with its ``website`` column restored."""
        path = self.path(asset, website)
        if not path.exists():
            raise FileNotFoundError(self._missing(asset, website))
        return pl.scan_parquet(path).with_columns(pl.lit(website).alias("website"))

    def write_frame(self, asset: str, website: str, frame: pl.DataFrame, schema: pa.Schema) -> int:
        """Write a whole frame as the new current version, without checks; return its row count."""
        with self.writer(asset, website, schema) as writer:
            writer.write_frame(frame)
        return writer.rows_written

    def _missing(self, asset: str, website: str | None = None) -> str:
        if website is None:
            return f"{asset} has no published version yet in {self.uri}: materialize it first"
        where = self.partition_uri(asset, website)
        return f"{asset} has no partition for website {website!r} yet ({where}): materialize it first"


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
        return self._history(ObjectPartitionHistory, partition_key(asset, website), self._current_key(asset, website))

    def whole_asset_history(self, asset: str) -> ObjectPartitionHistory:
        key = whole_asset_key(asset)
        return self._history(ObjectPartitionHistory, key, f"{key}/{PARTITION_FILE}")

    def folder_history(self, asset: str) -> FolderHistory:
        key = whole_asset_key(asset)
        return self._history(ObjectFolderHistory, key, key)

    def _history(self, kind: type[ObjectHistory], key: str, current_key: str) -> ObjectHistory:
        """The versions kept (and cached) under ``_versions/<key>``, the current one's copy at ``current_key``."""
        return kind(self.store, f"{VERSIONS_DIR}/{key}", current_key, self.cache_dir / VERSIONS_DIR / key,
                    self.keep_versions, self.lease_seconds)

    def scan_whole_asset(self, asset: str) -> pl.LazyFrame:
        """Lazy frame of the current version, read from its immutable object."""
        return self._scan_current(self.whole_asset_history(asset), self._missing(asset))

    def checkpoint(self, asset: str, website: str, schema: pa.Schema) -> ObjectCheckpoint:
        return ObjectCheckpoint(self.store, f"{CHECKPOINTS_DIR}/{partition_key(asset, website)}", schema, ("website",))

    def scan(self, asset: str, website: str) -> pl.LazyFrame:
        """Lazy frame of the current version, read from its immutable object, with its ``website`` column."""
        frame = self._scan_current(self.history(asset, website), self._missing(asset, website))
        return frame.with_columns(pl.lit(website).alias("website"))

    def _scan_current(self, history: ObjectPartitionHistory, missing: str) -> pl.LazyFrame:
        current = history.current()
        if current is None:
            raise FileNotFoundError(missing)
        return pl.scan_parquet(history.uri_of(current.id), storage_options=self.storage_options())

    def _current_key(self, asset: str, website: str) -> str:
        return f"{partition_key(asset, website)}/{PARTITION_FILE}"


def open_warehouse(
    location: str | os.PathLike[str],
    keep_versions: int = DEFAULT_KEEP_VERSIONS,
    endpoint_url: str = "",
    lease_seconds: float = DEFAULT_LEASE_SECONDS,
) -> Warehouse:
    """The warehouse at a local folder, or at ``s3://bucket/prefix`` (``endpoint_url``: an S3-compatible server;
    ``lease_seconds``: how long a partition's lock there outlives a run that stopped renewing it)."""
    if not is_object_store_uri(location):
        return Warehouse(location, keep_versions=keep_versions)
    settings = ObjectStoreSettings.from_env(endpoint_url)
    return ObjectWarehouse(str(location), keep_versions, settings, lease_seconds=lease_seconds)
