"""Checks that judge a new version of global_corpus or of the export before it becomes current."""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl

from corpus_pipeline.lm.export import CARD_FILE, JSONL_DIR, PARQUET_DIR
from corpus_pipeline.quality.checks import CheckOutcome, CheckSpec

UNIQUE_IDS = CheckSpec("unique_ids", "Each record id (website and canonical URL) appears once across websites.")
COMPLETE_EXPORT = CheckSpec(
    "complete_export",
    "The Parquet shards and the JSONL.gz shards each hold every global_corpus record once, and the card is there.",
)


def unique_ids(candidate: Path) -> CheckOutcome:
    """Fails when two records of the global corpus share an id."""
    frame = pl.scan_parquet(candidate).select(pl.len().alias("rows"), pl.col("id").n_unique().alias("ids")).collect()
    rows, ids = frame.row(0)
    cause = None if rows == ids else f"{rows - ids} duplicate record ids"
    return CheckOutcome(UNIQUE_IDS, rows == ids, {"rows": rows, "unique_ids": ids}, cause)


def complete_export(folder: Path, expected_ids: pl.Series) -> CheckOutcome:
    """Compares the exported ids (Parquet) and line count (JSONL.gz) with the global corpus they came from."""
    parquet = sorted((folder / PARQUET_DIR).glob("*.parquet"))
    ids = pl.scan_parquet(parquet).select("id").collect()["id"] if parquet else pl.Series("id", [], pl.String)
    jsonl_lines = sum(_lines(path) for path in sorted((folder / JSONL_DIR).glob("*.jsonl.gz")))
    problems = []
    if ids.len() != expected_ids.len() or not ids.sort().equals(expected_ids.sort(), check_names=False):
        problems.append(f"the Parquet shards hold {ids.len()} records ({ids.n_unique()} ids), not the "
                        f"{expected_ids.len()} of global_corpus")
    if jsonl_lines != expected_ids.len():
        problems.append(f"the JSONL.gz shards hold {jsonl_lines} records, not {expected_ids.len()}")
    if not (folder / CARD_FILE).is_file():
        problems.append("the dataset card is missing")
    metadata = {"parquet_records": ids.len(), "jsonl_records": jsonl_lines, "global_corpus_records": expected_ids.len()}
    return CheckOutcome(COMPLETE_EXPORT, not problems, metadata, "; ".join(problems) or None)


def _lines(path: Path) -> int:
    with gzip.open(path, "rb") as handle:
        return sum(1 for _ in handle)
