"""Checks of a new version of a record asset (parsed_pages, pdf_documents, canonical_url_groups, corpus)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from corpus_pipeline.core.versions import count_rows
from corpus_pipeline.quality.checks import (
    CheckOutcome,
    CheckSpec,
    GatePolicy,
    error_share,
    not_empty,
    repeated_values,
    row_count,
    row_count_vs_current,
)

UNIQUE_CANONICAL_URLS = CheckSpec("unique_canonical_urls", "Each canonical URL appears once.")
NO_IGNORED_URLS = CheckSpec("no_ignored_urls", "No record's URL contains an urls_to_ignore substring.")
NO_EMPTY_CONTENT = CheckSpec("no_empty_content", "Every record has text.")


def judge_records(
    candidate: Path, current: Path | None, inputs: int | None, policy: GatePolicy, with_errors: bool = True
) -> list[CheckOutcome]:
    """not_empty, row_count_vs_current and (for assets with an ``error`` column) error_share."""
    rows = count_rows(candidate)
    outcomes = [
        not_empty(rows, inputs),
        row_count_vs_current(rows, count_rows(current) if current is not None else None, policy, what="records"),
    ]
    if with_errors:
        errors = row_count(pl.scan_parquet(candidate).filter(pl.col("error").is_not_null()))
        outcomes.append(error_share(errors, rows, policy))
    return outcomes


def unique_canonical_urls(candidate: Path) -> CheckOutcome:
    """Fails when a canonical URL has two records."""
    repeated = repeated_values(pl.scan_parquet(candidate), "canonical_url")
    cause = None if repeated == 0 else f"{repeated} canonical URLs have more than one record"
    return CheckOutcome(UNIQUE_CANONICAL_URLS, repeated == 0, {"repeated": repeated}, cause)


def no_ignored_urls(candidate: Path, urls_to_ignore: Sequence[str]) -> CheckOutcome:
    """Fails when a record's URL contains one of ``urls_to_ignore``."""
    matches = pl.col("url").str.contains_any(list(urls_to_ignore)) if urls_to_ignore else pl.lit(False)
    ignored = row_count(pl.scan_parquet(candidate).filter(matches))
    cause = None if ignored == 0 else f"{ignored} records have a URL listed in urls_to_ignore"
    return CheckOutcome(NO_IGNORED_URLS, ignored == 0, {"ignored_urls": ignored}, cause)


def no_empty_content(candidate: Path) -> CheckOutcome:
    """Fails when a record has no text."""
    empty = row_count(pl.scan_parquet(candidate).filter(pl.col("content").fill_null("").str.strip_chars() == ""))
    cause = None if empty == 0 else f"{empty} records have no text"
    return CheckOutcome(NO_EMPTY_CONTENT, empty == 0, {"empty_records": empty}, cause)
