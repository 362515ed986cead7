"""Rows of an unfinished materialization, flushed to disk in small parts so that a re-run resumes.

A crawl writes its rows here as it goes: every few hundred rows (or seconds) the buffer becomes one complete Parquet
part, renamed into place, so a run killed at any moment loses at most its last buffer. When the crawl completes, its
parts are compacted into a version of the partition and the checkpoint is cleared. Layout:
``<root>/_checkpoints/<asset>/website=<name>/part-000001.parquet``; on an object store (:class:`ObjectCheckpoint`) the
same keys, each part one PUT (whole or absent), so a re-run on any machine resumes.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import Any, Self

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.core.arrow_values import table_from_rows, table_rows
from corpus_pipeline.core.partition_writer import dictionary_columns
from corpus_pipeline.core.storage import ObjectStore

CHECKPOINTS_DIR = "_checkpoints"
STARTED_FILE = "started.json"
FLUSH_ROWS = 100  # a killed crawl re-fetches at most this many pages
FLUSH_SECONDS = 15.0  # ...or what it fetched in this long, on a slow website
READ_BATCH_ROWS = 256  # rows read back at a time: a resumed crawl holds a few hundred bodies, not its whole past


class Checkpoint:
    """The parts written so far by an unfinished run of one partition."""

    def __init__(self, folder: Path, schema: pa.Schema, drop_columns: Iterable[str] = ()) -> None:
        self.folder = folder
        self.file_schema = pa.schema([f for f in schema if f.name not in set(drop_columns)])

    def parts(self) -> list[Any]:
        """The complete parts, in the order they were written (local paths here)."""
        return sorted(self.folder.glob("part-*.parquet"))

    def started_at(self) -> datetime | None:
        """When the unfinished run began, or None when there is no checkpoint."""
        marker = self._read_marker()
        return datetime.fromisoformat(json.loads(marker)["started_at"]) if marker is not None else None

    def note(self, key: str) -> str | None:
        """What the run noted under ``key`` when it started (:meth:`start`), or None."""
        marker = self._read_marker()
        return json.loads(marker).get(key) if marker is not None else None

    def is_resumable(self, max_age: timedelta) -> bool:
        """Whether parts exist and are recent enough to build on (older ones describe a stale website)."""
        started = self.started_at()
        return bool(self.parts()) and started is not None and datetime.now(UTC) - started <= max_age

    def row_count(self) -> int:
        return sum(self._open_part(part).metadata.num_rows for part in self.parts())

    def rows(self, extra: Mapping[str, Any] | None = None) -> Iterator[dict[str, Any]]:
        """The rows written so far, one at a time (parts are read in batches), with ``extra`` columns added."""
        added = extra or {}
        # A generator's first iterable is evaluated at once: the parts are listed now, as tables() says.
        return ({**row, **added} for table in self.tables() for row in table_rows(table))

    def tables(self) -> Iterator[pa.Table]:
        """The rows written so far as small Arrow tables; the parts are listed now, not when iteration starts, so
        parts appended while a resumed run reads its past never come back to it as past."""
        return _read_parts(self.parts(), self._open_part, self.file_schema)

    def start(self, notes: Mapping[str, str] | None = None) -> None:
        """Begin a fresh run: forget older parts and note the start time (and ``notes``, read back by :meth:`note`)."""
        self.clear()
        self._write_marker(json.dumps({**(notes or {}), "started_at": datetime.now(UTC).isoformat()}))

    def appender(self, flush_rows: int = FLUSH_ROWS) -> CheckpointAppender:
        """A writer that adds parts after the existing ones."""
        return CheckpointAppender(self, flush_rows)

    def clear(self) -> None:
        """Remove the checkpoint (the run completed, or its parts are too old to use)."""
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- storage primitives (a local folder here; overridden for object stores) ----------------------

    def _open_part(self, part: Any) -> pq.ParquetFile:
        return pq.ParquetFile(part)

    def _write_part(self, name: str, table: pa.Table) -> None:
        """Write one complete part; it appears under its final name whole or not at all."""
        final = self.folder / name
        tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
        pq.write_table(table, tmp, compression="zstd", use_dictionary=dictionary_columns(table.schema))
        os.replace(tmp, final)

    def _read_marker(self) -> str | None:
        marker = self.folder / STARTED_FILE
        return marker.read_text() if marker.exists() else None

    def _write_marker(self, text: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / STARTED_FILE).write_text(text)

    def _prepare_to_append(self) -> None:
        """Remove dead runs' temporary parts (the caller holds the partition's lock)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for leftover in self.folder.glob(".*.tmp"):
            leftover.unlink(missing_ok=True)


class ObjectCheckpoint(Checkpoint):
    """The parts written so far by an unfinished run of one partition, as objects under one folder key."""

    def __init__(self, store: ObjectStore, folder_key: str, schema: pa.Schema,
                 drop_columns: tuple[str, ...] = ()) -> None:
        self.file_schema = pa.schema([f for f in schema if f.name not in set(drop_columns)])
        self.store = store
        self.folder_key = folder_key

    def parts(self) -> list[Any]:
        """The keys of the complete parts, in the order they were written."""
        prefix = f"{self.folder_key}/part-"
        return [key for key in self.store.list(self.folder_key) if key.startswith(prefix) and key.endswith(".parquet")]

    def clear(self) -> None:
        self.store.delete_folder(self.folder_key)

    def _open_part(self, part: Any) -> pq.ParquetFile:
        # Parts are small (a few hundred rows), so one GET each is cheaper than ranged reads.
        data = self.store.read_bytes(part)
        if data is None:
            raise FileNotFoundError(f"checkpoint part {self.store.uri_of(part)} disappeared")
        return pq.ParquetFile(pa.BufferReader(data))

    def _write_part(self, name: str, table: pa.Table) -> None:
        buffer = io.BytesIO()  # a part is small: built in memory, then one PUT
        pq.write_table(table, buffer, compression="zstd")
        self.store.write_bytes(f"{self.folder_key}/{name}", buffer.getvalue())

    def _read_marker(self) -> str | None:
        data = self.store.read_bytes(f"{self.folder_key}/{STARTED_FILE}")
        return data.decode() if data is not None else None

    def _write_marker(self, text: str) -> None:
        self.store.write_bytes(f"{self.folder_key}/{STARTED_FILE}", text.encode())

    def _prepare_to_append(self) -> None:
        """Nothing to clean: a part's PUT either completed or left nothing."""


class CheckpointAppender:
    """Buffers rows and writes each full buffer as one complete part."""

    def __init__(self, checkpoint: Checkpoint, flush_rows: int) -> None:
        self.checkpoint = checkpoint
        self.flush_rows = flush_rows
        self.rows_written = 0
        self._buffer: list[dict[str, Any]] = []
        self._last_flush = time.monotonic()
        existing = checkpoint.parts()
        self._next_part = int(PurePosixPath(str(existing[-1])).stem.split("-")[1]) + 1 if existing else 1

    def __enter__(self) -> Self:
        """Open for writing; call it under the partition's lock, as it removes dead runs' temporary parts."""
        self.checkpoint._prepare_to_append()
        return self

    def write(self, row: Mapping[str, Any]) -> None:
        names = self.checkpoint.file_schema.names
        self._buffer.append({name: row.get(name) for name in names})
        if len(self._buffer) >= self.flush_rows or time.monotonic() - self._last_flush >= FLUSH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Write the buffered rows as one part."""
        self._last_flush = time.monotonic()
        if not self._buffer:
            return
        table = table_from_rows(self._buffer, self.checkpoint.file_schema)
        self.checkpoint._write_part(f"part-{self._next_part:06d}.parquet", table)
        self._next_part += 1
        self.rows_written += table.num_rows
        self._buffer.clear()

    def __exit__(self, exc_type, exc, tb) -> None:
        # Flushed on failure too: what was fetched before an error or an interrupt is worth resuming from.
        self.flush()


def _read_parts(parts: list[Any], open_part: Callable[[Any], pq.ParquetFile], schema: pa.Schema) -> Iterator[pa.Table]:
    for part in parts:
        for batch in open_part(part).iter_batches(batch_size=READ_BATCH_ROWS):
            table = pa.Table.from_batches([batch])
            # A part written before a column was added to the schema (a run resumed after an upgrade): nulls.
            for name in schema.names:
                if name not in table.column_names:
                    table = table.append_column(schema.field(name), pa.nulls(table.num_rows, schema.field(name).type))
            yield table
