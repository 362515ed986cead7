"""raw_pages: every fetch of a website's crawl."""

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import closing
from datetime import timedelta
from typing import Any

import dagster as dg
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.assets.catalog import CRAWL, CRAWLS_TAGS
from corpus_pipeline.assets.code_versions import raw_pages_version
from corpus_pipeline.assets.publishing import asset_check_specs, judge_distinctness, publish_if_good
from corpus_pipeline.assets.source_fingerprint import source_fingerprint
from corpus_pipeline.core.arrow_values import bool_scalar
from corpus_pipeline.core.checkpoint import Checkpoint
from corpus_pipeline.core.memory import return_freed_memory
from corpus_pipeline.core.progress import Progress
from corpus_pipeline.core.reuse import KeyedRows
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline.crawl.link_memo import LINKS_MEMO, LINKS_MEMO_SCHEMA, LinkMemo
from corpus_pipeline.crawl.previous import PreviousCrawl
from corpus_pipeline.crawl.report import UNCHANGED, pages_of_previous, summarize_crawl
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.quality.crawl import RAW_PAGES_CHECKS, judge_crawl
from corpus_pipeline.quality.distinct import page_distinctness
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSET = "raw_pages"
PREVIEW = ["url", "outcome", "kind", "status", "bytes", "error"]
# The crawl's journal (core/checkpoint.py) holds a row answered from the current version (a 304, an unchanged sitemap
# lastmod) without its body, flagged BODY_OF_CURRENT: its compaction into the new version takes the body from the
# current one (restore_bodies), and a crawl resumes from it only while the version it notes (JOURNAL_BODIES_OF) is.
BODY_OF_CURRENT = "body_of_current"
JOURNAL_SCHEMA = RAW_PAGES_SCHEMA.append(pa.field(BODY_OF_CURRENT, pa.bool_()))
JOURNAL_BODIES_OF = "bodies_of"
_FALSE = bool_scalar(False)


@dg.asset(
    partitions_def=website_partitions,
    code_version=raw_pages_version(),
    check_specs=asset_check_specs(ASSET, RAW_PAGES_CHECKS),
    **CRAWL.asset_options(RAW_PAGES_SCHEMA, CRAWLS_TAGS),
)
def raw_pages(
    context: dg.AssetExecutionContext,
    crawler_config: CrawlerConfig,
    websites: WebsiteRegistry,
    warehouse: ParquetWarehouse,
):
    """Every fetch of the website's crawl (sitemap or recursive), with status, headers, timing, error and body.
    A killed run resumes from its checkpoint. An unreachable website or a collapsed page count fails the run, and the
    current crawl (with its conditional-GET state) stays."""
    website = websites.website(context.partition_key)
    store = warehouse.open()
    # The links of a page read by the last crawl are kept (crawl/link_memo.py) while the code reading them is the same.
    link_reading = source_fingerprint(("corpus_pipeline.crawl.links",))
    with store.history(ASSET, website.name).lock() as history, store.history(LINKS_MEMO, website.name).lock() as memo:
        current, current_version = history.current_file(), history.current()
        previous = PreviousCrawl.open(current) if current else None
        context.log.info(
            f"Crawling {website.url} in {website.mode} mode ({'incremental' if previous else 'first crawl'})"
        )

        checkpoint = store.checkpoint(ASSET, website.name, JOURNAL_SCHEMA)
        bodies_of = current_version.id if current is not None and current_version is not None else ""
        max_age = timedelta(hours=crawler_config.resume_within_hours)
        resumed = _resume_or_start(context, checkpoint, max_age, bodies_of, previous.body if previous else None)
        # How many URLs the crawl will decide on is known only once it ends: last night's count is the estimate.
        progress = Progress("fetch", len(previous) if previous else None, context.log.info, unit="URLs")
        with (
            checkpoint.appender(flush_rows=crawler_config.checkpoint_every_rows) as journal,
            memo.new_version(LINKS_MEMO_SCHEMA, run_id=context.run.run_id) as links,
            closing(LinkMemo(memo.current_file(), link_reading, links)) as link_memo,
        ):
            for row in crawl_website(website, crawler_config.crawl_settings(), previous, resumed, link_memo):
                journal.write(journal_row(row, previous))
                progress.advance()
        memo.publish(links.version_id)
        if previous is not None:
            previous.close()

        bodies = KeyedRows(current, "url", columns=["body"]) if current is not None else None
        with history.new_version(RAW_PAGES_SCHEMA, run_id=context.run.run_id) as version:
            for table in checkpoint.tables():
                version.write_table(restore_bodies(table, bodies))
        if bodies is not None:
            bodies.close()
        checkpoint.clear()
        return_freed_memory()  # the crawl's bodies went through this process: its later stages need none of it

        # The crawl read its previous bodies from the current version: when they are all it has, its pages are the same.
        same_pages = current is not None and pages_of_previous(pl.scan_parquet(version.path), pl.scan_parquet(current))
        policy = warehouse.gate_policy()
        distinct = judge_distinctness(history, version, current, same_pages, page_distinctness, policy)
        outcomes = judge_crawl(version.path, current, policy, distinct)
        summary = summarize_crawl(pl.scan_parquet(version.path), pl.scan_parquet(current) if current else None)
        yield from publish_if_good(context, history, version, outcomes, RAW_PAGES_SCHEMA, PREVIEW, summary)


def journal_row(row: Mapping[str, Any], previous: PreviousCrawl | None) -> Mapping[str, Any]:
    """The row as the journal holds it: without its body, flagged BODY_OF_CURRENT, when the crawl took the body from
    the current version (``previous``)."""
    body = row.get("body")
    if previous is None or body is None or row.get("outcome") not in UNCHANGED or body != previous.body(row["url"]):
        return row
    return {**row, "body": None, BODY_OF_CURRENT: True}


def restore_bodies(table: pa.Table, current: KeyedRows | None) -> pa.Table:
    """``table`` (journal rows) with the body of each row flagged BODY_OF_CURRENT taken from ``current``: the current
    raw_pages version's bodies by URL."""
    if BODY_OF_CURRENT not in table.column_names:
        return table
    flagged = pc.fill_null(table.column(BODY_OF_CURRENT), _FALSE)
    table = table.drop_columns([BODY_OF_CURRENT])
    if not pc.any(flagged).as_py():
        return table
    urls = table.column("url").filter(flagged).to_pylist()
    positions = [current.position(url) if current is not None else None for url in urls]
    if current is None or None in positions:
        missing = urls[positions.index(None)]
        raise LookupError(f"the journal holds the body of {missing} as the current version's, which has none")
    field = table.schema.field("body")
    bodies = current.take(positions).column("body").cast(field.type)  # type: ignore[arg-type]
    column = pc.replace_with_mask(table.column("body").combine_chunks(), flagged.combine_chunks(),
                                  bodies.combine_chunks())
    return table.set_column(table.schema.get_field_index("body"), field, column)


def _resume_or_start(
    context: dg.AssetExecutionContext, checkpoint: Checkpoint, max_age: timedelta, bodies_of: str,
    body_of: Callable[[str], bytes | None] | None,
) -> Iterable[dict]:
    """Rows of an interrupted crawl to resume from (their bodies whole again), or nothing (and a fresh checkpoint,
    noting ``bodies_of``: the id of the current version, whose bodies its flagged rows leave out)."""
    noted = checkpoint.note(JOURNAL_BODIES_OF)
    if checkpoint.is_resumable(max_age) and noted in (None, bodies_of):  # None: a journal of bodies only
        context.log.info(f"Resuming an interrupted crawl from {checkpoint.row_count()} rows already fetched")
        return _whole(checkpoint.rows(extra={"website": context.partition_key}), body_of)
    checkpoint.start({JOURNAL_BODIES_OF: bodies_of})
    return ()


def _whole(rows: Iterable[dict[str, Any]], body_of: Callable[[str], bytes | None] | None) -> Iterator[dict[str, Any]]:
    """Journal rows with the body of each flagged one taken from the current version (``body_of(url)``)."""
    for row in rows:
        if row.pop(BODY_OF_CURRENT, None):
            if body_of is None:
                raise LookupError(f"the journal holds the body of {row['url']} as the current version's: there is none")
            row["body"] = body_of(row["url"])
        yield row
