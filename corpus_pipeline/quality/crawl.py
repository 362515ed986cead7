"""Checks of a new raw_pages version: was the website reachable, and does the crawl compare with the current one
(as many documents, as distinct from each other)?"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from corpus_pipeline.core.outcomes import USABLE_OUTCOME_VALUES
from corpus_pipeline.quality.checks import (
    ERROR_SHARE,
    ROW_COUNT_VS_CURRENT,
    CheckOutcome,
    CheckSpec,
    GatePolicy,
    error_share,
    repeated_values,
    row_count,
    row_count_vs_current,
)
from corpus_pipeline.quality.distinct import DISTINCT_VS_CURRENT, pages_distinct_vs_current

WEBSITE_REACHABLE = CheckSpec("website_reachable", "At least one document (page or PDF) was fetched and usable.")
ONE_ROW_PER_URL = CheckSpec("one_row_per_url", "No URL appears twice: every URL is decided once per crawl.")
RAW_PAGES_CHECKS = (WEBSITE_REACHABLE, ROW_COUNT_VS_CURRENT, ONE_ROW_PER_URL, DISTINCT_VS_CURRENT, ERROR_SHARE)

DOCUMENT_KINDS = ("html", "pdf")
USABLE = list(USABLE_OUTCOME_VALUES)
NOT_DOCUMENT_SOURCES = ("robots", "sitemap_index")  # rows of robots.txt files and sitemaps, not pages
CAUSE_CHARS = 200


def judge_crawl(
    candidate: Path, current: Path | None, policy: GatePolicy, distinct: CheckOutcome | None = None
) -> list[CheckOutcome]:
    """The outcomes of RAW_PAGES_CHECKS for a crawl written at ``candidate``, against the ``current`` version
    (``distinct``: the outcome of DISTINCT_VS_CURRENT, when the caller measured it)."""
    rows = pl.scan_parquet(candidate).select("url", "kind", "outcome", "error", "source")
    documents = _usable_documents(rows)
    current_documents = _usable_documents(pl.scan_parquet(current)) if current is not None else None
    attempted = row_count(rows.filter(~pl.col("source").is_in(NOT_DOCUMENT_SOURCES)))
    errors = rows.filter(pl.col("error").is_not_null())

    reachable = documents > 0
    expected = current_documents if current_documents else attempted
    # What happened to the pages says more than the robots.txt row ("HTTP 503" vs "robots.txt answered HTTP 503:
    # complete disallow"), so their errors come first.
    page_errors = errors.filter(~pl.col("url").str.ends_with("/robots.txt"))
    reason = _most_common_error(page_errors) or _most_common_error(errors) or "no page was found"
    cause = None if reachable else f"0 of {expected} pages fetched: {reason}"
    duplicated = repeated_values(rows, "url")
    return [
        CheckOutcome(
            WEBSITE_REACHABLE, reachable, {"documents": documents, "first_errors": _first_errors(errors)}, cause
        ),
        row_count_vs_current(documents, current_documents, policy, what="documents fetched"),
        CheckOutcome(
            ONE_ROW_PER_URL,
            duplicated == 0,
            {"duplicated_urls": duplicated},
            None if duplicated == 0 else f"{duplicated} URLs appear more than once",
        ),
        # The first asset a soft outage shows in: refused here, it leaves the current crawl (and the conditional-GET
        # state the next night builds on) in place.
        distinct or pages_distinct_vs_current(candidate, current, policy),
        error_share(row_count(errors), row_count(rows), policy),
    ]


def _usable_documents(rows: pl.LazyFrame) -> int:
    return row_count(rows.filter(pl.col("kind").is_in(DOCUMENT_KINDS) & pl.col("outcome").is_in(USABLE)))


def _most_common_error(errors: pl.LazyFrame) -> str | None:
    counted = errors.group_by("error").len().sort(["len", "error"], descending=[True, False]).head(1).collect()
    if counted.height == 0:
        return None
    text = " ".join(str(counted["error"][0]).split())
    return text if len(text) <= CAUSE_CHARS else text[: CAUSE_CHARS - 3] + "..."


def _first_errors(errors: pl.LazyFrame) -> str:
    sample = errors.select("url", "error").head(5).collect()
    return "\n".join(f"- {url}: {error}" for url, error in sample.iter_rows()) or "none"
