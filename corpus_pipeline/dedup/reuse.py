"""A night whose corpus input did not change keeps its corpus: deduplication is a function of its input.

The memo beside corpus (``corpus_memo``) holds a digest of the canonical_url_groups records the current corpus
version was deduplicated from, with the settings and code, and that version's counts. A night whose input digests the
same takes the current version's records instead of deduplicating again. (A night with some records changed still
deduplicates every record: keeping unchanged records' signatures and searching only the changed ones against the
rest is not done yet.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa

from corpus_pipeline.core.reuse import digest

CORPUS_MEMO = "corpus_memo"
# Columns that change every night while the documents do not, and that deduplication does not read: no part of the key;
# a kept record takes tonight's value, from the input record of its canonical URL (a corpus record is one of them).
NIGHTLY_COLUMNS = ("fetched_at",)
CORPUS_MEMO_SCHEMA = pa.schema(
    [
        pa.field("input_key", pa.binary()),  # inputs_key of the records the version was deduplicated from
        pa.field("corpus_version", pa.string()),  # the corpus version they gave
        pa.field("counts", pa.string()),  # JSON: that deduplication's counts (same_url, same_content...)
    ]
)


def inputs_key(records: pl.DataFrame, settings: str) -> bytes:
    """A digest of ``records`` (every column but the NIGHTLY_COLUMNS, every row, in order; polars' row hashes with
    fixed seeds) and ``settings`` (the code version, the threshold)."""
    records = records.drop([name for name in NIGHTLY_COLUMNS if name in records.columns])
    hashes = records.hash_rows(seed=0, seed_1=1, seed_2=2, seed_3=3)
    return digest(settings, str(records.height), ",".join(records.columns), hashes.to_numpy().tobytes())


@dataclass(frozen=True)
class KeptCorpus:
    """The current corpus version's records and counts, when its input is this night's."""

    records: pl.DataFrame
    counts: dict[str, int]


def kept_corpus(
    memo_path: Path | None, current_path: Path | None, current_version: str | None, key: bytes
) -> KeptCorpus | None:
    """The current corpus, when the memo says it was deduplicated from records whose key is ``key``; else None."""
    if memo_path is None or current_path is None or current_version is None:
        return None
    memo = pl.read_parquet(memo_path)
    if memo.height != 1 or memo["input_key"][0] != key or memo["corpus_version"][0] != current_version:
        return None
    return KeptCorpus(pl.read_parquet(current_path), json.loads(memo["counts"][0]))


def with_nightly_columns(kept: pl.DataFrame, groups: pl.DataFrame) -> pl.DataFrame:
    """The kept corpus records with tonight's NIGHTLY_COLUMNS, taken from ``groups`` by canonical URL."""
    nightly = [name for name in NIGHTLY_COLUMNS if name in groups.columns]
    tonight = groups.select("canonical_url", *nightly)
    return kept.drop(nightly).join(tonight, on="canonical_url", how="left", maintain_order="left").select(kept.columns)


def memo_table(key: bytes, corpus_version: str, counts: dict[str, int]) -> pa.Table:
    """The memo of a night: its input's key, the corpus version it gave, the counts of its deduplication."""
    return pl.DataFrame(
        {"input_key": [key], "corpus_version": [corpus_version], "counts": [json.dumps(counts, sort_keys=True)]}
    ).to_arrow().cast(CORPUS_MEMO_SCHEMA)
