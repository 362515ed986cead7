"""canonical_url_groups: all records of a website grouped by canonical URL."""

import dagster as dg
import polars as pl

from corpus_pipeline.assets.reporting import partition_metadata
from corpus_pipeline.core.schema import CANONICAL_URL_GROUPS_SCHEMA
from corpus_pipeline.dedup.groups import build_canonical_url_groups
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse

ASSET = "canonical_url_groups"
PREVIEW = ["canonical_url", "candidates", "url", "title", "date"]


@dg.asset(
    partitions_def=website_partitions,
    deps=["parsed_pages", "pdf_documents"],
    group_name="dedup",
    kinds={"python", "parquet"},
)
def canonical_url_groups(
    context: dg.AssetExecutionContext,
    crawler_config: CrawlerConfig,
    warehouse: ParquetWarehouse,
):
    """One row per canonical URL: its candidate URLs and the elected record (urls_to_ignore dropped here)."""
    store = warehouse.open()
    records = pl.concat(
        [store.scan("parsed_pages", context.partition_key), store.scan("pdf_documents", context.partition_key)],
        how="diagonal_relaxed",
    )
    groups, counts = build_canonical_url_groups(
        records, urls_to_ignore=crawler_config.urls_to_ignore, keep_query_keys=crawler_config.keep_query_keys
    )
    store.write_frame(ASSET, context.partition_key, groups, CANONICAL_URL_GROUPS_SCHEMA)
    path = store.path(ASSET, context.partition_key)
    return dg.MaterializeResult(metadata=partition_metadata(path, CANONICAL_URL_GROUPS_SCHEMA, PREVIEW, counts))
