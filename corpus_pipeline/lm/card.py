"""The dataset card (README.md) of an export, written from what the run measured."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

import polars as pl

from corpus_pipeline.lm.export import JSONL_DIR, PARQUET_DIR, SPLIT
from corpus_pipeline.lm.policy import QualityPolicy


@dataclass
class CardFacts:
    """Everything the card states, gathered from corpus_quality, global_corpus and the export."""

    name: str
    policy: QualityPolicy
    records_scored: int
    removed_by: Mapping[str, int]  # first failed "filter:rule" -> records
    dedup: Mapping[str, int]  # global_corpus counts
    per_website: pl.DataFrame  # website, records, words
    languages: pl.DataFrame  # lang, records, words
    pii: Mapping[str, int | bool] = field(default_factory=dict)
    generated_at: datetime = field(default_factory=lambda: datetime.now(UTC))


def facts_from(
    name: str, policy: QualityPolicy, quality: pl.DataFrame, exported: pl.DataFrame, dedup: Mapping[str, int],
    pii: Mapping[str, int | bool],
) -> CardFacts:
    """Card facts from corpus_quality's ``drop_reason`` and (when present) ``quality_error`` columns of all
    websites, an error counted as ``scoring_error``, and the exported records."""
    removed = Counter(reason for reason in quality["drop_reason"] if reason is not None)
    if "quality_error" in quality.columns:
        removed["scoring_error"] += int(quality["quality_error"].is_not_null().sum())
        removed = +removed  # no zero row
    per_website = _totals(exported, "website")
    languages = _totals(exported, "lang")
    return CardFacts(name, policy, quality.height, dict(sorted(removed.items())), dedup, per_website, languages, pii)


def render_card(facts: CardFacts) -> str:
    """Markdown with the YAML header Hugging Face reads (configs, languages, size)."""
    records = int(facts.per_website["records"].sum()) if facts.per_website.height else 0
    words = int(facts.per_website["words"].sum()) if facts.per_website.height else 0
    langs = [lang for lang in facts.languages["lang"].to_list() if lang]
    lines = [
        "---",
        "configs:",
        "- config_name: default",
        "  data_files:",
        f"  - split: {SPLIT}",
        f"    path: {PARQUET_DIR}/{SPLIT}-*.parquet",
        "- config_name: jsonl",
        "  data_files:",
        f"  - split: {SPLIT}",
        f"    path: {JSONL_DIR}/{SPLIT}-*.jsonl.gz",
        f"language: [{', '.join(langs)}]",
        f"pretty_name: {facts.name}",
        "---",
        "",
        f"# {facts.name}",
        "",
        (
            f"Built by corpus_pipeline on {facts.generated_at:%Y-%m-%d %H:%M} UTC from {facts.per_website.height} "
            f"websites: **{records:,} records, {words:,} words**, one record per text across websites."
        ),
        "",
        "```python",
        "from datasets import load_dataset",
        f'ds = load_dataset("parquet", data_files="{PARQUET_DIR}/*.parquet", split="{SPLIT}")',
        "```",
        "",
        "Columns: `id`, `text`, `website`, `url`, `title`, `lang`, `date`, `words`,"
        " `duplicates` (copies merged into it).",
        "",
        "## Websites",
        "",
        *_table(["website", "records", "words"], facts.per_website.rows()),
        "",
        "## Languages",
        "",
        *_table(["language", "records", "words"], facts.languages.rows()),
        "",
        "## Filters and their effects",
        "",
        (
            f"{facts.records_scored:,} records were scored with datatrove's filters in FineWeb's order "
            f"({', '.join(facts.policy.enabled_in_order())}); languages kept: "
            f"{', '.join(facts.policy.languages) or 'all'} (py3langid score >= {facts.policy.min_language_score}). "
            "Each removed record counts once, under the first rule it failed:"
        ),
        "",
        *_table(["filter:rule", "records removed"], list(facts.removed_by.items()) or [("none", 0)]),
        "",
        "## Deduplication across websites",
        "",
        *_table(["step", "records"], list(facts.dedup.items())),
        "",
        "## Personal data",
        "",
        (
            f"{facts.pii.get('emails', 0):,} e-mail addresses and {facts.pii.get('ips', 0):,} public IP addresses were "
            "replaced by the placeholders `<EMAIL_ADDRESS>` and `<IP_ADDRESS>`."
        ) if facts.pii.get("scrubbed") else "E-mail and IP addresses were left in the text (scrub_pii was off).",
        "",
    ]
    return "\n".join(lines)


def _totals(frame: pl.DataFrame, key: str) -> pl.DataFrame:
    return (
        frame.group_by(key)
        .agg(pl.len().alias("records"), pl.col("words").fill_null(0).sum().alias("words"))
        .sort(["records", key], descending=[True, False])
    )


def _table(header: list[str], rows: list[tuple]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(f"{v:,}" if isinstance(v, int) else str(v) for v in row) + " |" for row in rows]
    return out
