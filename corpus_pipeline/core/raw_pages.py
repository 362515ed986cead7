"""Reading the raw_pages contract back, one document at a time.

Downstream stages must not hold a whole website's bodies in memory: rows are
read in Arrow batches, filtered, and handed out one by one.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus_pipeline.core.arrow_values import bool_scalar, string_array, string_scalar, value_reader
from corpus_pipeline.core.memory import return_freed_memory
from corpus_pipeline.core.outcomes import USABLE_OUTCOME_VALUES

# The filters' constants as Arrow values: pyarrow would import pandas to convert Python ones (core.arrow_values).
_USABLE = string_array(USABLE_OUTCOME_VALUES)
_SITEMAP = string_scalar("sitemap")
_FALSE = bool_scalar(False)

DOCUMENT_COLUMNS = (
    "url",
    "final_url",
    "kind",
    "outcome",
    "content_type",
    "last_modified",
    "sitemap_lastmod",
    "category",
    "hreflang",
    "indexable",
    "fetched_at",
    "body_fetched_at",
    "body",
)


def count_documents(path: Path, kind: str) -> int:
    """How many documents ``iter_documents`` yields, counted without reading the bodies (usable rows of a document
    kind always carry one: the crawler keeps it)."""
    batches = pq.ParquetFile(path).iter_batches(columns=["kind", "outcome", "indexable"])
    return sum(pc.sum(_usable_mask(batch, kind, check_body=False)).as_py() or 0 for batch in batches)


def iter_documents(path: Path, kind: str, batch_rows: int = 512, body: bool = True) -> Iterator[dict[str, Any]]:
    """Usable, indexable documents of one ``kind`` (``html`` or ``pdf``), URL-sorted within each batch of
    ``batch_rows`` rows (a section's pages together, as boilerplate learning wants, without sorting the website in
    memory). With ``body=False`` each has its ``row`` in the file instead of its body, for :class:`DocumentBodies`."""
    parquet = pq.ParquetFile(path)
    present = parquet.schema_arrow.names  # a partition written before body_fetched_at has none
    columns = [name for name in DOCUMENT_COLUMNS if (body or name != "body") and name in present]
    for number, batch in enumerate(_batches(parquet, batch_rows, columns)):
        # Only the small key columns are filtered and sorted, and each row is converted from the batch as it is asked
        # for: a batch's bodies are never copied. Usable rows of a kind always carry their body (count_documents).
        selected = pc.indices_nonzero(_usable_mask(batch, kind, check_body=body))
        if len(selected) == 0:
            continue
        keys = batch.select(["final_url", "url"]).take(selected)
        order = selected.take(pc.sort_indices(keys, sort_keys=[("final_url", "ascending"), ("url", "ascending")]))
        readers = [(name, value_reader(batch.column(name))) for name in columns]
        indexes = order.to_pylist()
        del selected, keys, order
        start = number * batch_rows  # every batch but the last holds batch_rows rows (_batches)
        for index in indexes:
            row = {name: read(index) for name, read in readers}
            # A row written before the column (older partition or journal): its body was fetched when it was decided.
            row["body_fetched_at"] = row.get("body_fetched_at") or row["fetched_at"]
            if not body:
                row["row"] = start + index
            yield row
        # Hand the batch's pages back to the system before the next one is read (see core.memory.return_freed_memory).
        del batch, readers
        return_freed_memory()


class DocumentBodies:
    """The bodies of a raw_pages file's rows, by their ``row`` (``iter_documents(..., body=False)``), read a row
    group at a time: rows asked for in about the file's order read each group once (a few are cached)."""

    def __init__(self, path: Path, cached_groups: int = 8) -> None:
        parquet = pq.ParquetFile(path)
        sizes = [parquet.metadata.row_group(group).num_rows for group in range(parquet.num_row_groups)]
        self._starts = list(accumulate(sizes, initial=0))
        self._bodies = lru_cache(cached_groups)(lambda group: parquet.read_row_group(group, columns=["body"])["body"])

    def body(self, row: int) -> bytes:
        """The body of the file's row ``row``."""
        group = bisect_right(self._starts, row) - 1
        return self._bodies(group)[row - self._starts[group]].as_py()


def _batches(parquet: pq.ParquetFile, rows: int, columns: list[str]) -> Iterator[pa.Table]:
    """The file's rows ``rows`` at a time, in order, read one row group at a time: unlike ``iter_batches``, nothing
    is held between batches but the rows the next batch starts with (not a batch's decoded row groups)."""
    pending: list[pa.Table] = []
    pending_rows = 0
    for group in range(parquet.metadata.num_row_groups):
        table = parquet.read_row_group(group, columns=columns)
        # Reading a row group frees its compressed and decoded pages into malloc's heap: handed back, not kept.
        return_freed_memory()
        pending.append(table)
        pending_rows += table.num_rows
        del table
        while pending_rows >= rows:
            joined = pa.concat_tables(pending)
            rest = joined.slice(rows)
            pending, pending_rows = ([rest] if rest.num_rows else []), rest.num_rows
            batch = [joined.slice(0, rows)]
            del joined, rest
            yield batch.pop()  # this frame keeps no reference to it while the caller holds the batch
    if pending_rows:
        yield pa.concat_tables(pending)


def iter_sitemaps(path: Path, batch_rows: int = 64) -> Iterator[tuple[str, bytes]]:
    """The sitemaps the crawl read (plain or gzip, as fetched), each as ``(address, body)``: the address (after
    redirects) is what a ``<loc>`` written as a path is read against."""
    parquet = pq.ParquetFile(path)
    for batch in parquet.iter_batches(batch_size=batch_rows, columns=["url", "final_url", "kind", "outcome", "body"]):
        keep = pc.and_(
            pc.and_(pc.equal(batch.column("kind"), _SITEMAP), pc.is_in(batch.column("outcome"), value_set=_USABLE)),
            pc.is_valid(batch.column("body")),
        )
        kept = batch.filter(keep)
        addresses = pc.coalesce(kept.column("final_url"), kept.column("url")).to_pylist()
        yield from zip(addresses, kept.column("body").to_pylist(), strict=True)


def _usable_mask(batch: pa.RecordBatch | pa.Table, kind: str, check_body: bool = True) -> pa.Array:
    of_kind = pc.equal(batch.column("kind"), string_scalar(kind))
    mask = pc.and_(
        pc.and_(of_kind, pc.is_in(batch.column("outcome"), value_set=_USABLE)),
        pc.fill_null(batch.column("indexable"), _FALSE),
    )
    return pc.and_(mask, pc.is_valid(batch.column("body"))) if check_body else mask
