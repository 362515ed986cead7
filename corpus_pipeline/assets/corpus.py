"""corpus: the final deduplicated corpus of a website."""

import dagster as dg
import polars as pl

from corpus_pipeline.assets.reporting import partition_metadata
from corpus_pipeline.core.schema import CORPUS_SCHEMA
from corpus_pipeline.dedup.corpus import deduplicate
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse

ASSET = "corpus"
PREVIEW = ["url", "title", "lang", "kind", "content"]


@dg.asset(
    partitions_def=website_partitions,
    deps=["canonical_url_groups"],
    group_name="dedup",
    kinds={"python", "parquet"},
    check_specs=[
        dg.AssetCheckSpec("unique_canonical_urls", asset=ASSET, blocking=True),
        dg.AssetCheckSpec("no_ignored_urls", asset=ASSET, blocking=True),
        dg.AssetCheckSpec("no_empty_content", asset=ASSET, blocking=True),
    ],
)
def corpus(
    context: dg.AssetExecutionContext,
    crawler_config: CrawlerConfig,
    warehouse: ParquetWarehouse,
):
    """One record per unique text: exact and near duplicates merged, each merge listed in `absorbed`."""
    store = warehouse.open()
    groups = store.scan("canonical_url_groups", context.partition_key).collect()
    records, counts = deduplicate(
        groups, threshold=crawler_config.near_duplicate_threshold, workers=crawler_config.workers
    )
    store.write_frame(ASSET, context.partition_key, records, CORPUS_SCHEMA)

    path = store.path(ASSET, context.partition_key)
    written = pl.scan_parquet(path)
    repeated = written.group_by("canonical_url").len().filter(pl.col("len") > 1).select(pl.len()).collect().item()
    ignored = written.filter(
        pl.any_horizontal(pl.col("url").str.contains(needle, literal=True) for needle in crawler_config.urls_to_ignore)
        if crawler_config.urls_to_ignore
        else pl.lit(False)
    ).select(pl.len()).collect().item()
    empty = written.filter(pl.col("content").fill_null("").str.strip_chars() == "").select(pl.len()).collect().item()
    return dg.MaterializeResult(
        metadata=partition_metadata(path, CORPUS_SCHEMA, PREVIEW, counts),
        check_results=[
            dg.AssetCheckResult(check_name="unique_canonical_urls", passed=repeated == 0, metadata={"repeated": repeated}),
            dg.AssetCheckResult(check_name="no_ignored_urls", passed=ignored == 0, metadata={"ignored_urls": ignored}),
            dg.AssetCheckResult(check_name="no_empty_content", passed=empty == 0, metadata={"empty_records": empty}),
        ],
    )
