"""raw_pages: every fetch of a website's crawl."""

import dagster as dg
import polars as pl

from corpus_pipeline.assets.reporting import partition_metadata
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline.crawl.previous import PreviousCrawl
from corpus_pipeline.crawl.report import summarize_crawl
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSET = "raw_pages"
PREVIEW = ["url", "outcome", "kind", "status", "bytes", "error"]
# Everything but the bodies: enough to compare two crawls without holding the website in memory.
INDEX_COLUMNS = [name for name in RAW_PAGES_SCHEMA.names if name not in ("body", "website")]


@dg.asset(
    partitions_def=website_partitions,
    group_name="crawl",
    kinds={"python", "parquet"},
    check_specs=[
        dg.AssetCheckSpec("one_row_per_url", asset=ASSET, blocking=True, description="No URL is fetched twice."),
        dg.AssetCheckSpec(
            "website_reachable", asset=ASSET, blocking=True, description="At least one document was fetched."
        ),
    ],
)
def raw_pages(
    context: dg.AssetExecutionContext,
    crawler_config: CrawlerConfig,
    websites: WebsiteRegistry,
    warehouse: ParquetWarehouse,
):
    """Every fetch of the website's crawl (sitemap or recursive), with status, headers, timing, error and body."""
    website = websites.website(context.partition_key)
    store = warehouse.open()
    path = store.path(ASSET, website.name)

    previous = PreviousCrawl.open(path) if path.exists() else None
    previous_index = pl.read_parquet(path, columns=INDEX_COLUMNS) if path.exists() else None
    context.log.info(f"Crawling {website.url} in {website.mode} mode ({'incremental' if previous else 'first crawl'})")

    with store.writer(ASSET, website.name, RAW_PAGES_SCHEMA) as output:
        for row in crawl_website(website, crawler_config.crawl_settings(), previous):
            output.write(row)
    if previous is not None:
        previous.close()

    rows = pl.scan_parquet(path)
    summary = summarize_crawl(rows, previous_index.lazy() if previous_index is not None else None)
    duplicates = rows.group_by("url").len().filter(pl.col("len") > 1).collect()
    documents = rows.filter(pl.col("kind").is_in(["html", "pdf", "sitemap"]) & pl.col("body").is_not_null())
    fetched_documents = documents.select(pl.len()).collect().item()
    errors = rows.filter(pl.col("error").is_not_null()).select("url", "error").head(5).collect()
    return dg.MaterializeResult(
        metadata=partition_metadata(path, RAW_PAGES_SCHEMA, PREVIEW, summary),
        check_results=[
            dg.AssetCheckResult(
                check_name="one_row_per_url",
                passed=duplicates.height == 0,
                metadata={"duplicated_urls": duplicates.height},
            ),
            dg.AssetCheckResult(
                check_name="website_reachable",
                passed=fetched_documents > 0,
                metadata={
                    "documents": fetched_documents,
                    "first_errors": dg.MetadataValue.md("\n".join(f"- {u}: {e}" for u, e in errors.iter_rows()) or "none"),
                },
            ),
        ],
    )
