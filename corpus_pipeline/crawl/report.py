"""Figures of a finished crawl, for the asset's metadata."""

from __future__ import annotations

from datetime import datetime
from typing import cast

import polars as pl

from corpus_pipeline.core.outcomes import USABLE_OUTCOME_VALUES, FetchOutcome

DOCUMENT_KINDS = ["html", "pdf"]
USABLE = list(USABLE_OUTCOME_VALUES)
UNCHANGED = [FetchOutcome.NOT_MODIFIED.value, FetchOutcome.UNCHANGED_LASTMOD.value]


def summarize_crawl(rows: pl.LazyFrame, previous: pl.LazyFrame | None) -> dict[str, int | float]:
    """Requests by outcome, bytes, pages/s, pages kept out by their robots directives, and new / changed / unchanged /
    gone pages against the previous crawl."""
    current = rows.select(
        "url", "outcome", "kind", "etag", "bytes", "attempts", "elapsed_s", "fetched_at", "robots"
    ).collect()
    summary: dict[str, int | float] = {
        f"outcome_{outcome}": count for outcome, count in current.group_by("outcome").len().iter_rows()
    }
    usable_document = pl.col("kind").is_in(DOCUMENT_KINDS) & pl.col("outcome").is_in(USABLE)
    documents = current.filter(usable_document)
    summary["documents"] = documents.height
    # Fetched and kept in raw_pages, but out of parsed_pages and the corpus (noindex), or their links not followed.
    robots = documents["robots"].fill_null("")
    summary["pages_noindex"] = int(robots.str.contains("noindex", literal=True).sum())
    summary["pages_nofollow"] = int(robots.str.contains("nofollow", literal=True).sum())
    summary["requests"] = int(current["attempts"].fill_null(0).sum())
    summary["bytes_received"] = int(current["bytes"].fill_null(0).sum())
    if current.height:
        first, last = cast(datetime, current["fetched_at"].min()), cast(datetime, current["fetched_at"].max())
        span = (last - first).total_seconds()
        summary["crawl_seconds"] = round(span, 2)
        summary["pages_per_second"] = round(documents.height / span, 2) if span > 0 else float(documents.height)
    if previous is None:
        summary["pages_new"] = documents.height
        return summary
    known = set(previous.filter(usable_document).select("url").collect()["url"])
    now = set(documents["url"])
    unchanged = documents.filter(pl.col("outcome").is_in(UNCHANGED))
    summary["pages_new"] = len(now - known)
    summary["pages_unchanged"] = unchanged.height
    summary["pages_changed"] = documents.filter(
        pl.col("url").is_in(list(known)) & (pl.col("outcome") == FetchOutcome.FETCHED.value)
    ).height
    summary["pages_gone"] = len(known - now)
    return summary


def pages_of_previous(rows: pl.LazyFrame, previous: pl.LazyFrame) -> bool:
    """Whether a crawl's usable HTML pages are the ``previous`` crawl's, body for body: each was answered ``304`` (or
    skipped by an unchanged sitemap lastmod) and took that crawl's body of its URL, one page a URL on both sides, as
    many on both sides. Checks that compare the two crawls' pages then need to read only one of them."""

    def pages(frame: pl.LazyFrame) -> pl.DataFrame:
        usable_html = (pl.col("kind") == "html") & pl.col("outcome").is_in(USABLE)
        return frame.filter(usable_html).select("url", "outcome").collect()

    now, before = pages(rows), pages(previous)
    return (
        now.height == before.height
        and now["url"].n_unique() == now.height
        and before["url"].n_unique() == before.height
        and bool(now["outcome"].is_in(UNCHANGED).all())
    )
