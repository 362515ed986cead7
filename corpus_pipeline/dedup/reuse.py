"""A night whose input did not change keeps its output: deduplication, and the grouping and election of
canonical_url_groups, are functions of their input.

The memo beside corpus (``corpus_memo``) holds a digest of the records and settings the current corpus version came
from, and its counts; the memo beside canonical_url_groups (``groups_memo``) the same, its records digested as a set
of rows (the crawl's order varies). A night with some records changed deduplicates them all again, from what the
last deduplication learned (``dedup_memo``, for the same code and threshold): each text's content key and
signature, and each verified pair's score (it depends on the two texts only), by text digest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from corpus_pipeline.core.reuse import digest

CORPUS_MEMO, GROUPS_MEMO = "corpus_memo", "groups_memo"
# A memo's row: the key of the records a version came from (inputs_key, records_key), that version, its counts.
CORPUS_MEMO_SCHEMA, GROUPS_MEMO_SCHEMA = (
    pa.schema([pa.field("input_key", pa.binary()), pa.field(version, pa.string()), pa.field("counts", pa.string())])
    for version in ("corpus_version", "groups_version")
)


def inputs_key(records: pl.DataFrame, settings: str) -> bytes:
    """A digest of ``records`` (every column, every row, in order; polars' row hashes with fixed seeds) and
    ``settings`` (the code version, the threshold)."""
    hashes = records.hash_rows(seed=0, seed_1=1, seed_2=2, seed_3=3)
    return digest(settings, str(records.height), ",".join(records.columns), hashes.to_numpy().tobytes())


def records_key(records: pl.DataFrame, settings: str) -> bytes:
    """A digest of ``records`` as a set of rows (every column, in any order) and ``settings``."""
    hashes = np.sort(records.hash_rows(seed=0, seed_1=1, seed_2=2, seed_3=3).to_numpy())
    return digest(settings, str(records.height), ",".join(records.columns), hashes.tobytes())


def kept_version_counts(
    memo_path: Path | None, current_version: str | None, key: bytes, version_column: str = "corpus_version"
) -> dict[str, int] | None:
    """The counts of ``current_version`` when the memo (its version in ``version_column``) says it came from
    records whose key is ``key``, else None."""
    if memo_path is None or current_version is None:
        return None
    memo = pl.read_parquet(memo_path)
    if memo.height != 1 or memo["input_key"][0] != key or memo[version_column][0] != current_version:
        return None
    return json.loads(memo["counts"][0])


def memo_table(key: bytes, version: str, counts: dict[str, int], schema: pa.Schema = CORPUS_MEMO_SCHEMA) -> pa.Table:
    """The memo of a night: its input's key, the version it gave (the schema's second column), the counts."""
    names = schema.names
    return pl.DataFrame(
        {names[0]: [key], names[1]: [version], names[2]: [json.dumps(counts, sort_keys=True)]}
    ).to_arrow().cast(schema)


DEDUP_MEMO = "dedup_memo"
DEDUP_MEMO_SCHEMA = pa.schema(
    [
        pa.field("settings", pa.string()),  # the code version and threshold the memo holds for
        # A text's row: its digest (dedup/corpus.py's), its content key and MinHash signature (uint64 values).
        pa.field("text", pa.binary()),
        pa.field("content_key", pa.string()),
        pa.field("signature", pa.binary()),
        # A verified pair's row: its texts' digests (in the order of the pair) and its score.
        pa.field("first", pa.binary()),
        pa.field("second", pa.binary()),
        pa.field("score", pa.float64()),
    ]
)


@dataclass
class DedupMemo:
    """What a deduplication learned, by text digest: content keys and signatures, and verified pairs' scores."""

    keys: dict[bytes, tuple[str, np.ndarray]]
    scores: dict[tuple[bytes, bytes], float]

    def score(self, first: bytes, second: bytes) -> float | None:
        """The score of the pair of texts ``first`` and ``second`` (either order), or None when not verified."""
        return self.scores.get((first, second), self.scores.get((second, first)))

    def table(self, settings: str) -> pa.Table:
        """The memo's rows, for ``settings``."""
        texts = list(self.keys.items())
        pairs = list(self.scores.items())
        nulls_t, nulls_p = [None] * len(texts), [None] * len(pairs)
        frame = pl.DataFrame(
            {
                "settings": [settings] * (len(texts) + len(pairs)),
                "text": [digest for digest, _ in texts] + nulls_p,
                "content_key": [key for _, (key, _) in texts] + nulls_p,
                "signature": [signature.astype(np.uint64).tobytes() for _, (_, signature) in texts] + nulls_p,
                "first": nulls_t + [first for (first, _), _ in pairs],
                "second": nulls_t + [second for (_, second), _ in pairs],
                "score": nulls_t + [score for _, score in pairs],
            },
            schema=pl.Schema(DEDUP_MEMO_SCHEMA),
        )
        return frame.to_arrow().cast(DEDUP_MEMO_SCHEMA)


def dedup_memo(path: Path | None, settings: str) -> DedupMemo | None:
    """The memo in ``path`` when it was written for ``settings``; else None."""
    if path is None:
        return None
    frame = pl.read_parquet(path)
    if frame.is_empty() or frame["settings"].unique().to_list() != [settings]:
        return None
    texts = frame.filter(pl.col("text").is_not_null())
    pairs = frame.filter(pl.col("first").is_not_null())
    keys = {
        digest: (key, np.frombuffer(signature, dtype=np.uint64))
        for digest, key, signature in zip(texts["text"], texts["content_key"], texts["signature"], strict=True)
    }
    scores = dict(zip(zip(pairs["first"], pairs["second"], strict=True), pairs["score"], strict=True))
    return DedupMemo(keys, scores)
