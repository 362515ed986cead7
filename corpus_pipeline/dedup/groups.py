"""canonical_url_groups: every record of a website grouped under its canonical URL."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from corpus_pipeline.core.schema import CANONICAL_URL_GROUPS_SCHEMA, RECORD_COLUMNS
from corpus_pipeline.core.urls import DEFAULT_KEPT_QUERY_KEYS, InvalidUrlError, canonical_url
from corpus_pipeline.dedup.election import ELECTION_COLUMNS, election_key

# Kinds of pages that are not documents (extract/page_kind.py): out of the groups unless the website keeps them.
NOT_DOCUMENTS = ("listing", "error_page")


def grouped_columns(records: pl.LazyFrame) -> pl.DataFrame:
    """What the grouping reads of the records: their columns of the record schema, collected."""
    return records.select([c for c in RECORD_COLUMNS if c in records.collect_schema().names()]).collect()


def build_canonical_url_groups(
    records: pl.LazyFrame, *, urls_to_ignore: Sequence[str], keep_query_keys: Sequence[str] = DEFAULT_KEPT_QUERY_KEYS,
    keep_listings: bool = False,
) -> tuple[pl.DataFrame, dict[str, int]]:
    """One row per canonical URL: the elected record, its candidate URLs, and counts of what was dropped and why.
    Listings and error pages are dropped unless ``keep_listings``, as ``urls_to_ignore`` are. The result does not
    depend on the records' order."""
    frame = grouped_columns(records)
    columns = frame.columns
    usable = pl.col("error").is_null() & (pl.col("content").fill_null("").str.strip_chars() != "")
    ignored = pl.col("url").str.contains_any(list(urls_to_ignore)) if urls_to_ignore else pl.lit(False)
    filtered = "page_kind" in columns and not keep_listings
    not_document = pl.col("page_kind").is_in(NOT_DOCUMENTS).fill_null(False) if filtered else pl.lit(False)
    # Row numbers and the election's few columns, not the records: a site's texts are held once, in `frame`.
    candidates = frame.select(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias("_row"),
        *(c for c in ELECTION_COLUMNS if c in columns),
        length=pl.col("content").fill_null("").str.len_chars(),
        _usable=usable,
        _listing=usable & ~ignored & not_document,
        _kept=usable & ~ignored & ~not_document,
    )
    usable_count = int(candidates["_usable"].sum())
    listings = int(candidates["_listing"].sum())
    kept = candidates.filter(pl.col("_kept")).drop("_usable", "_kept", "_listing")
    counts = {
        "records_in": frame.height,
        "records_unusable": frame.height - usable_count,
        "records_ignored": usable_count - kept.height - listings,
        "records_not_documents": listings,
    }
    del candidates

    groups: dict[str, list[dict]] = {}
    for record in kept.iter_rows(named=True):
        groups.setdefault(_key(record, keep_query_keys), []).append(record)
    elected_rows, keys, candidate_urls, sizes = [], [], [], []
    for key, members in groups.items():
        members.sort(key=election_key)
        elected_rows.append(members[0]["_row"])
        keys.append(key)
        candidate_urls.append(sorted({m["url"] for m in members}))
        sizes.append(len(members))
    counts["canonical_url_groups"] = len(elected_rows)
    counts["records_merged_same_url"] = kept.height - len(elected_rows)

    schema = pl.Schema(CANONICAL_URL_GROUPS_SCHEMA)  # not from an empty table: that imports pandas (core.arrow_values)
    added = pl.DataFrame(
        {"canonical_url": keys, "candidate_urls": candidate_urls, "candidates": sizes},
        schema={name: schema[name] for name in ("canonical_url", "candidate_urls", "candidates")},
    )
    elected = frame[elected_rows].drop("canonical_url", strict=False).hstack(added)
    result = elected.select(
        pl.col(name).cast(dtype) if name in elected.columns else pl.lit(None, dtype).alias(name)
        for name, dtype in schema.items()
    )
    return result.sort("canonical_url"), counts


def _key(record: dict, keep_query_keys: Sequence[str]) -> str:
    try:
        return canonical_url(record.get("rel_canonical") or record["url"], keep_query_keys)
    except InvalidUrlError:
        return record["url"]
