"""What an incremental night needs whatever it reuses: body digests, last night's rows by key, and results kept or
computed merged back into the inputs' order.

A stage keeps the result of an input whose every ingredient is unchanged since its current version and computes the
others, in the inputs' order, so an incremental night writes the same file as a full one.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import chain, groupby, islice
from operator import itemgetter
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus_pipeline.core.arrow_values import table_rows

# A 128-bit BLAKE2b digest: ~1 GB/s, and no two bodies of the web will share one by chance.
DIGEST_BYTES = 16
# Row groups of a keyed file held in memory: its rows are read in about the order they were written.
CACHED_ROW_GROUPS = 2
# The same as Arrow tables, for rows taken in bulk (KeyedRows.take): a crawl's order mixes a few neighbouring groups.
CACHED_TABLES = 4

Item = TypeVar("Item")
Meta = TypeVar("Meta")
Result = TypeVar("Result")


def digest(*parts: bytes | str | None) -> bytes:
    """A digest of ``parts`` (None and the empty value differ; no concatenation of two parts collides with another)."""
    hasher = hashlib.blake2b(digest_size=DIGEST_BYTES)
    for part in parts:
        if part is None:
            hasher.update(b"\x00")
            continue
        data = part.encode() if isinstance(part, str) else part
        hasher.update(b"\x01" + len(data).to_bytes(8, "big") + data)
    return hasher.digest()


class KeyedRows:
    """Rows of a Parquet file looked up by one column's value (or by ``key_of`` that value). Only the key column is
    read up front; a row is read with its row group (a few cached), so a website's records never sit in memory."""

    def __init__(
        self, path: Path, key: str, columns: list[str] | None = None, key_of: Callable[[Any], Any] = lambda v: v
    ) -> None:
        parquet = self._file = pq.ParquetFile(path)
        self._columns = columns
        self._where: dict[Any, list[tuple[int, int]]] = {}
        self._rows = lru_cache(CACHED_ROW_GROUPS)(
            lambda group: table_rows(parquet.read_row_group(group, columns=columns)))
        self._table = lru_cache(CACHED_TABLES)(lambda group: parquet.read_row_group(group, columns=columns))
        for group in range(self._file.num_row_groups):
            keys = self._file.read_row_group(group, columns=[key]).column(key).to_pylist()
            for index, value in enumerate(keys):
                self._where.setdefault(key_of(value), []).append((group, index))

    def __contains__(self, key: Any) -> bool:
        return key in self._where

    def count(self, key: Any) -> int:
        """How many rows ``key`` has."""
        return len(self._where.get(key, ()))

    def get(self, key: Any) -> dict[str, Any] | None:
        """The last row of ``key`` as a dict of the file's columns (a fresh dict each time), or None."""
        where = self._where.get(key)
        return self._row(*where[-1]) if where else None

    def get_all(self, key: Any) -> list[dict[str, Any]]:
        """Every row of ``key``, in the file's order."""
        return [self._row(group, index) for group, index in self._where.get(key, ())]

    def position(self, key: Any) -> tuple[int, int] | None:
        """The row group and index in it of the last row of ``key``, or None."""
        where = self._where.get(key)
        return where[-1] if where else None

    def take(self, positions: Sequence[tuple[int, int]]) -> pa.Table:
        """The rows at ``positions`` (row group, index), in that order, as an Arrow table of the file's columns: no
        Python object a value. Positions close in the file read few row groups (a few are cached)."""
        if not positions:
            return self._file.schema_arrow.empty_table().select(self._columns or self._file.schema_arrow.names)
        runs = [(group, [index for _, index in run]) for group, run in groupby(positions, key=itemgetter(0))]
        if all(indexes == list(range(indexes[0], indexes[0] + len(indexes))) for _, indexes in runs):
            # Runs of consecutive rows (an unchanged night's kept records, in the order they were written): slices of
            # the groups' tables, nothing copied.
            return pa.concat_tables([self._table(group).slice(indexes[0], len(indexes)) for group, indexes in runs])
        # Any order (a crawl's): each group's rows taken from its table alone (a take from the groups concatenated
        # copies all their values), then put in the order asked.
        ranked = sorted(range(len(positions)), key=lambda i: positions[i][0])  # stable: by group, then as asked
        pieces = [self._table(group).take(pa.array([positions[i][1] for i in run], pa.int64()))
                  for group, run in groupby(ranked, key=lambda i: positions[i][0])]
        order = pc.sort_indices(pa.array(ranked, pa.int64()))  # ranked's inverse: where each asked row landed
        return pa.concat_tables(pieces).combine_chunks().take(order)

    def _row(self, group: int, index: int) -> dict[str, Any]:
        return dict(self._rows(group)[index])

    def close(self) -> None:
        self._file.close()


def kept_or_computed(
    items: Iterable[Item],
    plan: Callable[[Item], tuple[Meta, Callable[[], Result] | None]],
    compute: Callable[[Iterable[Item]], Iterable[Result]],
    few: Callable[[Iterable[Item]], Iterable[Result]] | None = None,
    few_below: int = 0,
) -> Iterator[tuple[Meta, Result, bool]]:
    """``(meta, result, kept)`` for each item, in the items' order.

    ``plan(item)`` gives what the caller wants back (``meta``, never the body: it waits in memory for its turn) and a
    loader of the kept result, or None to compute it. Items to compute go through ``compute`` in order (it may read
    ahead and run in parallel; not called when there are none), or through ``few`` when fewer than ``few_below`` are
    (starting workers for a handful costs more than the items); up to that many wait in memory to tell."""
    waiting: deque[tuple[Meta, Callable[[], Result] | None]] = deque()

    def to_compute() -> Iterator[Item]:
        for item in items:
            meta, keep = plan(item)
            waiting.append((meta, keep))
            if keep is None:
                yield item

    pending = to_compute()
    first = list(islice(pending, max(few_below, 1) if few is not None else 1))
    if first:
        computing = few if few is not None and len(first) < few_below else compute
        for result in computing(chain(first, pending)):
            while (head := waiting.popleft())[1] is not None:
                yield head[0], head[1](), True
            yield head[0], result, False
    while waiting:  # every item after the last computed one is kept
        meta, keep = waiting.popleft()
        assert keep is not None
        yield meta, keep(), True
