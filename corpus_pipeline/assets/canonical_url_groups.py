"""canonical_url_groups: all records of a website grouped by canonical URL."""

from pathlib import Path

import dagster as dg
import polars as pl

from corpus_pipeline.assets.catalog import DEDUP
from corpus_pipeline.assets.code_versions import canonical_url_groups_version
from corpus_pipeline.assets.incremental import asset_code_version, last_memo, publish_memo_table
from corpus_pipeline.assets.publishing import asset_check_specs, judged_file, publish_if_good
from corpus_pipeline.core.memory import return_freed_memory
from corpus_pipeline.core.schema import CANONICAL_URL_GROUPS_SCHEMA
from corpus_pipeline.core.versions import VersionWriter
from corpus_pipeline.dedup.groups import build_canonical_url_groups, grouped_columns
from corpus_pipeline.dedup.reuse import GROUPS_MEMO, GROUPS_MEMO_SCHEMA, kept_version_counts, memo_table, records_key
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.quality.checks import NOT_EMPTY, ROW_COUNT_VS_CURRENT
from corpus_pipeline.quality.records import UNIQUE_CANONICAL_URLS, judge_records, unique_canonical_urls
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSET = "canonical_url_groups"
PREVIEW = ["canonical_url", "candidates", "url", "title", "date"]


@dg.asset(
    partitions_def=website_partitions,
    deps=["parsed_pages", "pdf_documents"],
    code_version=canonical_url_groups_version(),
    check_specs=asset_check_specs(ASSET, (NOT_EMPTY, ROW_COUNT_VS_CURRENT, UNIQUE_CANONICAL_URLS)),
    **DEDUP.asset_options(CANONICAL_URL_GROUPS_SCHEMA),
)
def canonical_url_groups(
    context: dg.AssetExecutionContext,
    crawler_config: CrawlerConfig,
    websites: WebsiteRegistry,
    warehouse: ParquetWarehouse,
):
    """One row per canonical URL: its candidate URLs and the elected record (urls_to_ignore, listings and error pages
    dropped here, unless the website's registry entry keeps its listings). A night whose records are those the current
    version was grouped from keeps that version (``groups_reused``) and writes none."""
    store = warehouse.open()
    website = context.partition_key
    records = pl.concat(
        [store.scan("parsed_pages", website), store.scan("pdf_documents", website)], how="diagonal_relaxed"
    )
    keep_listings = websites.website(website).keep_listings
    settings = (
        f"{asset_code_version(context)}|{crawler_config.urls_to_ignore!r}|{crawler_config.keep_query_keys!r}|"
        f"{keep_listings!r}"
    )
    with store.history(ASSET, website).lock() as history, store.history(GROUPS_MEMO, website).lock() as memo:
        frame = grouped_columns(records)
        inputs = frame.height
        key = records_key(frame, settings)
        current, standing = history.current_file(), history.current()
        kept = kept_version_counts(last_memo(context, memo), standing.id if standing else None, key, "groups_version")
        judged: VersionWriter | Path
        if kept is not None and current is not None:
            del frame
            judged, metadata = current, {**kept, "groups_reused": True}
        else:
            groups, counts = build_canonical_url_groups(
                frame.lazy(),
                urls_to_ignore=crawler_config.urls_to_ignore,
                keep_query_keys=crawler_config.keep_query_keys,
                keep_listings=keep_listings,
            )
            del frame
            with history.new_version(CANONICAL_URL_GROUPS_SCHEMA, run_id=context.run.run_id) as judged:
                judged.write_frame(groups)
            memo_rows = memo_table(key, judged.version_id, counts, GROUPS_MEMO_SCHEMA)
            publish_memo_table(memo, memo_rows, context.run.run_id)
            del groups
            return_freed_memory()  # every record of the website went through this process
            metadata = {**counts, "groups_reused": False}
        path = judged_file(judged)
        outcomes = judge_records(path, current, inputs, warehouse.gate_policy(), with_errors=False)
        outcomes.append(unique_canonical_urls(path))
        yield from publish_if_good(context, history, judged, outcomes, CANONICAL_URL_GROUPS_SCHEMA, PREVIEW, metadata)
