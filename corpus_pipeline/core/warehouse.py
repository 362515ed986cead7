"""Parquet partitions on disk: hive layout, batched writes, atomic publication.

Layout: ``<root>/<asset>/website=<name>/data.parquet``. A partition is written
to a hidden temporary file next to its final place and renamed when complete,
so a killed run never leaves a half-written file where readers look.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.core.registry import WEBSITE_NAME_PATTERN

DATA_DIR_ENV_VAR = "CORPUS_PIPELINE_DATA"
PARTITION_FILE = "data.parquet"
DEFAULT_ROW_GROUP_SIZE = 256


def default_data_dir() -> Path:
    """``$CORPUS_PIPELINE_DATA``, else ``data/`` at the project root."""
    configured = os.environ.get(DATA_DIR_ENV_VAR)
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "data"


class PartitionPathError(ValueError):
    """A partition key that would not stay inside the warehouse."""


def partition_dir(root: str | os.PathLike[str], asset: str, website: str) -> Path:
    """Folder of one asset partition; refuses keys that could escape ``root``."""
    if not WEBSITE_NAME_PATTERN.match(website):
        raise PartitionPathError(f"invalid website name for a partition: {website!r}")
    if not WEBSITE_NAME_PATTERN.match(asset.replace("_", "-")):
        raise PartitionPathError(f"invalid asset name: {asset!r}")
    root_path = Path(root).resolve()
    folder = (root_path / asset / f"website={website}").resolve()
    if root_path not in folder.parents:
        raise PartitionPathError(f"partition {asset}/{website} escapes {root_path}")
    return folder


def partition_path(root: str | os.PathLike[str], asset: str, website: str) -> Path:
    """The Parquet file of one asset partition."""
    return partition_dir(root, asset, website) / PARTITION_FILE


class PartitionWriter:
    """Streams rows into a partition in row groups, published atomically on close.

    Use as a context manager; on an exception the temporary file is removed and
    the previous partition (if any) stays in place.
    """

    def __init__(
        self,
        path: Path,
        schema: pa.Schema,
        row_group_size: int = DEFAULT_ROW_GROUP_SIZE,
        drop_columns: Iterable[str] = (),
    ) -> None:
        self.path = path
        # The hive partition column lives in the folder name; storing it in the
        # file too would clash when a notebook reads with hive_partitioning.
        self.file_schema = pa.schema([f for f in schema if f.name not in set(drop_columns)])
        self.row_group_size = row_group_size
        self.rows_written = 0
        self._buffer: list[dict[str, Any]] = []
        self._tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
        self._writer: pq.ParquetWriter | None = None

    def __enter__(self) -> PartitionWriter:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = pq.ParquetWriter(self._tmp, self.file_schema, compression="zstd")
        return self

    def write(self, row: Mapping[str, Any]) -> None:
        """Buffer one row; a full buffer is flushed as a row group."""
        self._buffer.append({name: row.get(name) for name in self.file_schema.names})
        if len(self._buffer) >= self.row_group_size:
            self._flush()

    def write_table(self, table: pa.Table) -> None:
        """Append a whole Arrow table (columns are selected and cast to the file schema)."""
        self._flush()
        assert self._writer is not None
        table = table.select(self.file_schema.names).cast(self.file_schema)
        self._writer.write_table(table, row_group_size=self.row_group_size)
        self.rows_written += table.num_rows

    def _flush(self) -> None:
        if not self._buffer:
            return
        assert self._writer is not None
        table = pa.Table.from_pylist(self._buffer, schema=self.file_schema)
        self._writer.write_table(table)
        self.rows_written += table.num_rows
        self._buffer.clear()

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self._flush()
        finally:
            assert self._writer is not None
            self._writer.close()
        if exc_type is None:
            os.replace(self._tmp, self.path)
        else:
            self._tmp.unlink(missing_ok=True)


class Warehouse:
    """The Parquet partitions of all assets under one root folder."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, asset: str, website: str) -> Path:
        return partition_path(self.root, asset, website)

    def exists(self, asset: str, website: str) -> bool:
        return self.path(asset, website).exists()

    def writer(self, asset: str, website: str, schema: pa.Schema, row_group_size: int = DEFAULT_ROW_GROUP_SIZE) -> PartitionWriter:
        """A writer for one partition; the ``website`` column is stored by the hive folder name."""
        return PartitionWriter(self.path(asset, website), schema, row_group_size, drop_columns=("website",))

    def scan(self, asset: str, website: str) -> pl.LazyFrame:
        """Lazy frame of one partition, with its ``website`` column restored."""
        path = self.path(asset, website)
        if not path.exists():
            raise FileNotFoundError(f"{asset} has no partition for website {website!r} yet ({path}): materialize it first")
        return pl.scan_parquet(path).with_columns(pl.lit(website).alias("website"))

    def write_frame(self, asset: str, website: str, frame: pl.DataFrame, schema: pa.Schema) -> int:
        """Write a whole frame as a partition (atomically); return its row count."""
        with self.writer(asset, website, schema) as writer:
            table = frame.to_arrow()
            missing = [name for name in writer.file_schema.names if name not in table.column_names]
            for name in missing:
                table = table.append_column(name, pa.nulls(table.num_rows, writer.file_schema.field(name).type))
            writer.write_table(table)
        return writer.rows_written
