"""Export: the global corpus as sharded Parquet and JSONL.gz in the layout Hugging Face datasets loads directly.

    <export dir>/README.md                                  dataset card (YAML configs name the files)
    <export dir>/data/train-00000-of-00003.parquet          default config
    <export dir>/jsonl/train-00000-of-00003.jsonl.gz        "jsonl" config, the same records

``datasets.load_dataset("<export dir>")`` reads it. Each export is written as a new version folder of the
warehouse, judged before it becomes current; ``mirror_export`` swaps a copy into a plain folder whole.
"""

from __future__ import annotations

import gzip
import json
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

import polars as pl
import pyarrow.parquet as pq

from corpus_pipeline.lm.schema import EXPORT_SCHEMA

DEFAULT_SHARD_RECORDS = 50_000  # ~100-200 MB of text a shard: large enough to stream well, small enough to resume
PARQUET_DIR, JSONL_DIR = "data", "jsonl"
CARD_FILE = "README.md"
EXPORT_ASSET = "training_export"  # in a warehouse: <root>/training_export/ is the current version's folder
SPLIT = "train"
# What the export's ``text`` is: the plain text (``content``) or its Markdown rendering (``markdown``).
TextFormat = Literal["plain", "markdown"]
TEXT_FORMATS: tuple[TextFormat, ...] = get_args(TextFormat)


@dataclass
class ExportSummary:
    """What an export wrote."""

    records: int = 0
    words: int = 0
    parquet_files: list[str] = field(default_factory=list)
    jsonl_files: list[str] = field(default_factory=list)


def training_records(
    global_corpus: pl.DataFrame, scrub_pii: bool = True, text_format: TextFormat = "plain"
) -> tuple[pl.DataFrame, int, int]:
    """The export columns of the global corpus (``text`` with PII replaced when asked) and the replacements made.
    ``text_format`` ``markdown`` exports the ``markdown`` column (else ``content``, which reads as Markdown)."""
    from corpus_pipeline.lm.pii import PiiScrubber  # datatrove: loaded by the export, not by every Dagster process

    if text_format not in TEXT_FORMATS:
        raise ValueError(f"text_format must be one of {TEXT_FORMATS}, not {text_format!r}")
    source = global_corpus["content"]
    if text_format == "markdown" and "markdown" in global_corpus.columns:
        source = global_corpus["markdown"].fill_null(source)
    texts, emails, ips = [], 0, 0
    scrubber = PiiScrubber()
    for content in source:
        content = content or ""
        if scrub_pii:
            result = scrubber.scrub(content)
            content, emails, ips = result.text, emails + result.emails, ips + result.ips
        texts.append(content)
    frame = global_corpus.with_columns(
        pl.Series("text", texts, dtype=pl.String),
        pl.col("merged_from").list.len().fill_null(0).cast(pl.Int32).alias("duplicates"),
    )
    schema = pl.Schema(EXPORT_SCHEMA)
    return frame.select(list(schema)).cast(schema), emails, ips


def write_export_records(
    records: pl.DataFrame, folder: Path, card: str | None = None, shard_records: int = DEFAULT_SHARD_RECORDS
) -> ExportSummary:
    """Write records in the export columns (``training_records``) as shards, and the card, into a new ``folder``."""
    folder = Path(folder)
    summary = ExportSummary(records.height, int(records["words"].fill_null(0).sum()))
    shards = max(1, -(-records.height // shard_records))
    for directory in (PARQUET_DIR, JSONL_DIR):
        (folder / directory).mkdir(parents=True, exist_ok=True)
    for index in range(shards):
        shard = records.slice(index * shard_records, shard_records)
        name = f"{SPLIT}-{index:05d}-of-{shards:05d}"
        parquet, jsonl = f"{PARQUET_DIR}/{name}.parquet", f"{JSONL_DIR}/{name}.jsonl.gz"
        pq.write_table(shard.to_arrow().cast(EXPORT_SCHEMA), folder / parquet, compression="zstd")
        with gzip.open(folder / jsonl, "wt", encoding="utf-8") as handle:
            for row in shard.iter_rows(named=True):
                row["date"] = row["date"].isoformat() if row["date"] is not None else None
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        summary.parquet_files.append(parquet)
        summary.jsonl_files.append(jsonl)
    if card is not None:
        (folder / CARD_FILE).write_text(card, encoding="utf-8")
    return summary


def mirror_export(published: Path, folder: Path) -> None:
    """Copy a published export to a folder outside the warehouse, swapped in whole (never shards of two runs)."""
    folder = Path(folder)
    staging = folder.with_name(f".{folder.name}.{uuid.uuid4().hex}.tmp")
    retired = folder.with_name(f".{folder.name}.{uuid.uuid4().hex}.old")
    try:
        shutil.copytree(published, staging)  # with the folders above it
        if folder.exists():
            folder.rename(retired)
        staging.rename(folder)
        shutil.rmtree(retired, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)

