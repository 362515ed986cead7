"""canonical_url_groups: every record of a website grouped under its canonical URL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import polars as pl

from corpus_pipeline.core.schema import CANONICAL_URL_GROUPS_SCHEMA, RECORD_COLUMNS
from corpus_pipeline.core.urls import DEFAULT_KEPT_QUERY_KEYS, InvalidUrlError, canonical_url
from corpus_pipeline.dedup.election import election_key


def build_canonical_url_groups(
    records: pl.LazyFrame, *, urls_to_ignore: Sequence[str], keep_query_keys: Sequence[str] = DEFAULT_KEPT_QUERY_KEYS
) -> tuple[pl.DataFrame, dict[str, int]]:
    """One row per canonical URL: the elected record, its candidate URLs, and counts of what was dropped and why."""
    frame = records.select([c for c in RECORD_COLUMNS if c in records.collect_schema().names()]).collect()
    counts = {"records_in": frame.height}
    usable = frame.filter(pl.col("error").is_null() & (pl.col("content").fill_null("").str.strip_chars() != ""))
    counts["records_unusable"] = frame.height - usable.height
    if urls_to_ignore:
        ignored = pl.any_horizontal(pl.col("url").str.contains(needle, literal=True) for needle in urls_to_ignore)
        kept = usable.filter(~ignored)
    else:
        kept = usable
    counts["records_ignored"] = usable.height - kept.height

    groups: dict[str, list[dict]] = {}
    for record in kept.iter_rows(named=True):
        key = _key(record, keep_query_keys)
        record["canonical_url"] = key
        groups.setdefault(key, []).append(record)
    rows = []
    for members in groups.values():
        members.sort(key=election_key)
        elected = dict(members[0])
        elected["candidate_urls"] = sorted({m["url"] for m in members})
        elected["candidates"] = len(members)
        rows.append(elected)
    counts["canonical_url_groups"] = len(rows)
    counts["records_merged_same_url"] = kept.height - len(rows)
    schema = cast(pl.DataFrame, pl.from_arrow(CANONICAL_URL_GROUPS_SCHEMA.empty_table())).schema
    result = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    return result.sort("canonical_url"), counts


def _key(record: dict, keep_query_keys: Sequence[str]) -> str:
    try:
        return canonical_url(record.get("rel_canonical") or record["url"], keep_query_keys)
    except InvalidUrlError:
        return record["url"]
