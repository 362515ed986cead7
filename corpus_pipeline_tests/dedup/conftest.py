from datetime import UTC, datetime

import polars as pl

from corpus_pipeline.core.schema import RECORD_SCHEMA

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def record(url: str, content: str, **fields) -> dict:
    """A parsed_pages-like record with sensible defaults."""
    base = {
        "website": "site", "url": url, "canonical_url": url, "title": url.rsplit("/", 1)[-1], "date": None,
        "excerpt": None, "content": content, "h1": [], "h2": [], "lang": "en", "category": None, "kind": "html",
        "fetched_at": NOW, "alternates": [], "rel_canonical": None, "error": None,
    }
    base.update(fields)
    return base


def records_frame(rows: list[dict]) -> pl.LazyFrame:
    return pl.DataFrame(rows, schema=pl.from_arrow(RECORD_SCHEMA.empty_table()).schema).lazy()
