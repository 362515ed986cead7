"""The crawl journal of an unfinished run on an object store, so that a re-run on any machine resumes.

Each part is one object written by a single PUT, so it appears whole or not at all (no temporary
names needed); the keys are those of the local layout:
``_checkpoints/<asset>/website=<name>/part-000001.parquet`` and ``started.json``.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.core.checkpoint import STARTED_FILE, Checkpoint
from corpus_pipeline.core.storage import ObjectStore


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
        self.store.write_parquet_bytes(f"{self.folder_key}/{name}", table)

    def _read_marker(self) -> str | None:
        data = self.store.read_bytes(f"{self.folder_key}/{STARTED_FILE}")
        return data.decode() if data is not None else None

    def _write_marker(self, text: str) -> None:
        self.store.write_bytes(f"{self.folder_key}/{STARTED_FILE}", text.encode())

    def _prepare_to_append(self) -> None:
        """Nothing to clean: a part's PUT either completed or left nothing."""
