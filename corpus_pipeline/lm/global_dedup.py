"""global_corpus: the kept records of every website, one record per text across websites (syndicated articles,
mirrored documentation), found as the per-website stage finds them; each merge is recorded on the record kept.

Time grows linearly with the records because a pair is verified only when its signatures agree on enough values
(``MIN_ESTIMATED_JACCARD``): pages sharing a template's lines share a band's bucket by chance, and those chance
pairs grow with the square of the records.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import UTC, datetime

import polars as pl

from corpus_pipeline.core.budget import WorkerPool
from corpus_pipeline.dedup.corpus import ColumnTexts, merge_near_duplicates
from corpus_pipeline.dedup.near import BANDS, ROWS, near_duplicate_pairs, worker_pool
from corpus_pipeline.dedup.normalize import content_key, normalize_paragraphs
from corpus_pipeline.dedup.settings import DEFAULT_THRESHOLD
from corpus_pipeline.lm.schema import GLOBAL_CORPUS_SCHEMA

_LATEST = datetime.max.replace(tzinfo=UTC)
KEY_CHUNK = 2048  # texts per content-key job: ~0.3 s of one core, a few MB pickled
_DECISION_COLUMNS = ["website", "url", "canonical_url", "category", "published", "chars"]
# The estimated Jaccard at which the banding makes a pair a candidate one time in ten (1 - (1 - J ** ROWS) ** BANDS
# = 0.1, J = 0.136): pairs less alike are found too rarely for their verification to count.
MIN_ESTIMATED_JACCARD = (1 - 0.9 ** (1 / BANDS)) ** (1 / ROWS)


def record_id(website: str, canonical_url: str) -> str:
    """A stable id: the same page of the same website keeps its id from run to run."""
    return hashlib.blake2b(f"{website}\n{canonical_url}".encode(), digest_size=12).hexdigest()


def kept_records(frames: Iterable[pl.LazyFrame | pl.DataFrame]) -> pl.DataFrame:
    """The kept records of corpus_quality frames (each with its ``website`` column), in the global columns; lazy
    frames are filtered before they are read."""
    schema = _schema()
    wanted = {name: schema[name] for name in schema if name not in ("id", "merged_from")}

    def columns(frame: pl.LazyFrame) -> list[pl.Expr]:
        # Columns a frame lacks (an older corpus_quality version) are nulls rather than an error.
        present = set(frame.collect_schema().names())
        return [
            (pl.col(name) if name in present else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in wanted.items()
        ]

    parts = [frame.lazy().filter(pl.col("keep")).select(columns(frame.lazy())).collect() for frame in frames]
    return pl.concat([pl.DataFrame(schema=wanted), *parts], how="vertical")


def global_election_key(record: dict) -> tuple:
    """Which copy of a text is kept: a website's own page over an external one, the first published (the
    original of a syndicated article), then the longest, then website and URL (stable across runs)."""
    return (
        record.get("category") == "external",
        record.get("published") or _LATEST,
        -(record.get("chars") or 0),
        record.get("website") or "",
        record.get("url") or "",
    )


def deduplicate_across_websites(
    records: pl.DataFrame,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    workers: int = 1,
    min_estimated_jaccard: float = MIN_ESTIMATED_JACCARD,
) -> tuple[pl.DataFrame, dict[str, int]]:
    """One record per text across websites, with ``merged_from`` listing what each absorbed, and counts. Candidate
    pairs agreeing on less than ``min_estimated_jaccard`` of their signatures are not verified (0: all are)."""
    contents = records["content"]
    decisions = records.select(_DECISION_COLUMNS).to_dicts()
    for row, record in enumerate(decisions):
        record["row"], record["merged_from"] = row, []

    # One pool of workers for the content keys and the near duplicates (a pool's start: ~1 CPU s a worker).
    with worker_pool(workers, records.height) as pool:
        by_content: dict[str, list[dict]] = {}
        for record, key in zip(decisions, content_keys(contents, pool), strict=True):
            by_content.setdefault(key, []).append(record)
        unique = [_merge(members, "same_content") for members in by_content.values()]
        texts = ColumnTexts(contents, [record["row"] for record in unique])  # read on demand: no copy of every text
        pairs = near_duplicate_pairs(
            texts, threshold, workers, prepare=normalize_paragraphs, min_estimated_jaccard=min_estimated_jaccard,
            pool=pool,
        )
    kept = merge_near_duplicates(unique, pairs, _merge)
    counts = {
        "websites": records["website"].n_unique(),
        "records_in": records.height,
        "same_content": records.height - len(unique),
        "near_duplicate": len(unique) - len(kept),
        "cross_website_merges": sum(
            1 for record in kept for source in record["merged_from"] if source["website"] != record["website"]
        ),
        "records_out": len(kept),
    }
    return _as_frame(records, kept), counts


def content_keys(contents: pl.Series, pool: WorkerPool | None = None) -> list[str]:
    """The exact-duplicate key of each text, in order; on ``pool``'s workers when given."""
    if pool is None:
        return [content_key(text or "") for text in contents]
    # Workers take a chunk as they have room (two each at most): the texts of all the chunks are never pickled at once.
    chunks = (contents.slice(start, KEY_CHUNK).to_list() for start in range(0, contents.len(), KEY_CHUNK))
    return [key for block in pool.map(_content_key_block, chunks) for key in block]


def _content_key_block(texts: list[str | None]) -> list[str]:
    return [content_key(text or "") for text in texts]


def _merge(members: list[dict], reason: str, scores: list[float] | None = None) -> dict:
    ranked = sorted(zip(members, scores or [1.0] * len(members), strict=True), key=lambda m: global_election_key(m[0]))
    winner = ranked[0][0]
    for loser, score in ranked[1:]:
        winner["merged_from"].append(
            {"website": loser["website"], "url": loser["canonical_url"], "reason": reason, "score": round(score, 4)}
        )
        winner["merged_from"].extend(loser["merged_from"])
    return winner


def _as_frame(records: pl.DataFrame, kept: list[dict]) -> pl.DataFrame:
    """The kept records' rows sorted by website and canonical URL (nulls first), each text gathered once."""
    schema = _schema()
    kept = sorted(kept, key=lambda r: (_null_first(r["website"]), _null_first(r["canonical_url"])))
    frame = records[[record["row"] for record in kept]].with_columns(
        pl.Series("merged_from", [record["merged_from"] for record in kept], dtype=schema["merged_from"]),
        pl.Series("id", [record_id(r["website"], r["canonical_url"]) for r in kept], dtype=pl.String),
    )
    return frame.select(list(schema)).cast(schema)


def _null_first(value: str | None) -> tuple[bool, str]:
    return value is not None, value or ""


def _schema() -> pl.Schema:
    return pl.Schema(GLOBAL_CORPUS_SCHEMA)
