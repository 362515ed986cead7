"""parsed_pages: the text and metadata of every HTML page."""

from collections.abc import Iterator

import dagster as dg
import polars as pl

from corpus_pipeline.assets.reporting import partition_metadata
from corpus_pipeline.core.raw_pages import iter_documents
from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.extract.boilerplate import learn_boilerplate
from corpus_pipeline.extract.page import HtmlPage, parse_html_pages
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSET = "parsed_pages"
PREVIEW = ["url", "title", "date", "lang", "content", "error"]


@dg.asset(
    partitions_def=website_partitions,
    deps=["raw_pages"],
    group_name="extract",
    kinds={"python", "parquet"},
    check_specs=[
        dg.AssetCheckSpec(
            "pages_have_text", asset=ASSET, description="Most pages yield text (errors are recorded per page)."
        )
    ],
)
def parsed_pages(
    context: dg.AssetExecutionContext,
    crawler_config: CrawlerConfig,
    websites: WebsiteRegistry,
    warehouse: ParquetWarehouse,
):
    """One record per HTML page and translation: title, date, excerpt, main text, h1/h2, language."""
    website = websites.website(context.partition_key)
    store = warehouse.open()
    raw_path = store.path("raw_pages", website.name)

    # Two passes over the stored pages: learn the site's boilerplate, then extract with it.
    boilerplate = learn_boilerplate(
        ((page.url, page.body) for page in _html_pages(raw_path)), workers=crawler_config.workers
    )
    with store.writer(ASSET, website.name, RECORD_SCHEMA) as output:
        for record in parse_html_pages(_html_pages(raw_path), website, boilerplate, workers=crawler_config.workers):
            output.write(record)

    path = store.path(ASSET, website.name)
    frame = pl.scan_parquet(path)
    failed = frame.filter(pl.col("error").is_not_null()).select(pl.len()).collect().item()
    total = frame.select(pl.len()).collect().item()
    return dg.MaterializeResult(
        metadata=partition_metadata(path, RECORD_SCHEMA, PREVIEW, {"pages_with_error": failed}),
        check_results=[
            dg.AssetCheckResult(
                check_name="pages_have_text",
                passed=total == 0 or failed / total < 0.5,
                severity=dg.AssetCheckSeverity.WARN,
                metadata={"pages": total, "pages_with_error": failed},
            )
        ],
    )


def _html_pages(raw_path) -> Iterator[HtmlPage]:
    for row in iter_documents(raw_path, kind="html"):
        yield HtmlPage(
            url=row["final_url"] or row["url"],
            body=row["body"],
            content_type=row["content_type"],
            fetched_at=row["fetched_at"],
            sitemap_lastmod=row["sitemap_lastmod"],
            http_last_modified=row["last_modified"],
            category=row["category"],
            hreflang=row["hreflang"],
        )
