"""raw_pages: every fetch of a website's crawl."""

from collections.abc import Iterable
from datetime import timedelta

import dagster as dg
import polars as pl

from corpus_pipeline.assets.catalog import CRAWL, CRAWLS_TAGS, OWNERS
from corpus_pipeline.assets.code_versions import raw_pages_version
from corpus_pipeline.assets.publishing import asset_check_specs, publish_if_good
from corpus_pipeline.assets.reporting import declared_metadata
from corpus_pipeline.assets.source_fingerprint import source_fingerprint
from corpus_pipeline.core.checkpoint import Checkpoint
from corpus_pipeline.core.memory import return_freed_memory
from corpus_pipeline.core.progress import Progress
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline.crawl.link_memo import LINKS_MEMO, LINKS_MEMO_SCHEMA, LinkMemo
from corpus_pipeline.crawl.previous import PreviousCrawl
from corpus_pipeline.crawl.report import pages_of_previous, summarize_crawl
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.quality.crawl import RAW_PAGES_CHECKS, judge_crawl
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSET = "raw_pages"
PREVIEW = ["url", "outcome", "kind", "status", "bytes", "error"]


@dg.asset(
    partitions_def=website_partitions,
    group_name=CRAWL.name,
    kinds={"python", "parquet"},
    metadata={**declared_metadata(RAW_PAGES_SCHEMA), **CRAWL.metadata()},
    owners=OWNERS,
    tags=CRAWLS_TAGS,
    code_version=raw_pages_version(),
    check_specs=asset_check_specs(ASSET, RAW_PAGES_CHECKS),
)
def raw_pages(
    context: dg.AssetExecutionContext,
    crawler_config: CrawlerConfig,
    websites: WebsiteRegistry,
    warehouse: ParquetWarehouse,
):
    """Every fetch of the website's crawl (sitemap or recursive), with status, headers, timing, error and body.

    The crawl checkpoints its rows as it goes, so a killed run resumes where it stopped. The new crawl
    becomes current only if the website was reachable and its page count did not collapse; otherwise
    the run fails with the cause, and the current crawl (and the conditional-GET state it holds) stays.
    """
    website = websites.website(context.partition_key)
    store = warehouse.open()
    # The links of a page read by the last crawl are kept (crawl/link_memo.py) while the code reading them is the same.
    link_reading = source_fingerprint(("corpus_pipeline.crawl.links",))
    with store.history(ASSET, website.name).lock() as history, store.history(LINKS_MEMO, website.name).lock() as memo:
        current = history.current_file()
        previous = PreviousCrawl.open(current) if current else None
        context.log.info(
            f"Crawling {website.url} in {website.mode} mode ({'incremental' if previous else 'first crawl'})"
        )

        checkpoint = store.checkpoint(ASSET, website.name, RAW_PAGES_SCHEMA)
        resumed = _resume_or_start(context, checkpoint, timedelta(hours=crawler_config.resume_within_hours))
        # How many URLs the crawl will decide on is known only once it ends: last night's count is the estimate.
        progress = Progress("fetch", len(previous) if previous else None, context.log.info, unit="URLs")
        with (
            checkpoint.appender(flush_rows=crawler_config.checkpoint_every_rows) as journal,
            memo.new_version(LINKS_MEMO_SCHEMA, run_id=context.run.run_id) as links,
        ):
            link_memo = LinkMemo(memo.current_file(), link_reading, links)
            try:
                rows = crawl_website(website, crawler_config.crawl_settings(), previous, resumed, link_memo)
                for row in rows:
                    journal.write(row)
                    progress.advance()
            finally:
                link_memo.close()
        memo.publish(links.version_id)
        if previous is not None:
            previous.close()

        with history.new_version(RAW_PAGES_SCHEMA, run_id=context.run.run_id) as version:
            for table in checkpoint.tables():
                version.write_table(table)
        checkpoint.clear()
        return_freed_memory()  # the crawl's bodies went through this process: its later stages need none of it

        # The crawl read its previous bodies from the current version: when they are all it has, they are measured once.
        same_pages = current is not None and pages_of_previous(pl.scan_parquet(version.path), pl.scan_parquet(current))
        outcomes = judge_crawl(version.path, current, warehouse.gate_policy(), same_pages)
        summary = summarize_crawl(pl.scan_parquet(version.path), pl.scan_parquet(current) if current else None)
        yield from publish_if_good(context, history, version, outcomes, RAW_PAGES_SCHEMA, PREVIEW, summary)


def _resume_or_start(context: dg.AssetExecutionContext, checkpoint: Checkpoint, max_age: timedelta) -> Iterable[dict]:
    """Rows of an interrupted crawl to resume from, or nothing (and a fresh checkpoint)."""
    if checkpoint.is_resumable(max_age):
        context.log.info(f"Resuming an interrupted crawl from {checkpoint.row_count()} rows already fetched")
        return checkpoint.rows(extra={"website": context.partition_key})
    checkpoint.start()
    return ()
