"""Streaming rows into one Parquet file in row groups, written under a hidden temporary name next to its place and
renamed there when complete: a killed run never leaves a half-written file where readers look.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Self

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.core.arrow_values import table_from_rows

DEFAULT_ROW_GROUP_SIZE = 256


def dictionary_columns(schema: pa.Schema) -> list[str]:
    """The columns worth a dictionary encoding: all but the binary ones, which hold documents (page bodies, PDFs,
    packed signatures) that do not repeat: a dictionary tried and given up at every row group only slows them."""
    return [f.name for f in schema if not (pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type))]


class PartitionWriter:
    """Streams rows into a partition in row groups, published atomically on leaving its ``with`` block; on an
    exception the temporary file is removed and the previous partition (if any) stays in place."""

    def __init__(
        self,
        path: Path,
        schema: pa.Schema,
        row_group_size: int = DEFAULT_ROW_GROUP_SIZE,
        drop_columns: Iterable[str] = (),
        compression: str = "zstd",
    ) -> None:
        self.path = path
        self.compression = compression
        # The hive partition column lives in the folder name: in the file too, it would clash with hive_partitioning.
        self.file_schema = pa.schema([f for f in schema if f.name not in set(drop_columns)])
        self.row_group_size = row_group_size
        self.rows_written = 0
        self._buffer: list[dict[str, Any]] = []
        self._tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
        self._writer: pq.ParquetWriter | None = None

    def __enter__(self) -> Self:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._writer = pq.ParquetWriter(
            self._tmp, self.file_schema, compression=self.compression,
            use_dictionary=dictionary_columns(self.file_schema),
        )
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

    def write_frame(self, frame: pl.DataFrame) -> None:
        """Append a whole polars frame; columns of the schema it lacks are written as nulls."""
        table = frame.to_arrow()
        for name in self.file_schema.names:
            if name not in table.column_names:
                table = table.append_column(name, pa.nulls(table.num_rows, self.file_schema.field(name).type))
        self.write_table(table)

    def _flush(self) -> None:
        if not self._buffer:
            return
        assert self._writer is not None
        table = table_from_rows(self._buffer, self.file_schema)
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
