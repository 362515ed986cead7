"""parsed_pages: the text and metadata of every HTML page."""

import tempfile
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path

import dagster as dg
import polars as pl

from corpus_pipeline.assets.catalog import EXTRACT
from corpus_pipeline.assets.code_versions import parsed_pages_version
from corpus_pipeline.assets.incremental import asset_code_version, last_memo
from corpus_pipeline.assets.publishing import asset_check_specs, judge_distinctness, judged_file, publish_if_good
from corpus_pipeline.core.memory import return_freed_memory
from corpus_pipeline.core.raw_pages import DocumentBodies, count_documents, iter_documents, iter_sitemaps
from corpus_pipeline.core.registry import Website
from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.versions import VersionWriter
from corpus_pipeline.extract.boilerplate import BoilerplateModel
from corpus_pipeline.extract.metadata import unload_language_model
from corpus_pipeline.extract.page_input import ExtractionBudget, HtmlPage
from corpus_pipeline.extract.reuse import (
    MEMO,
    MEMO_SCHEMA,
    RECORDS_FILE,
    SITE_PASS_COLUMNS,
    LastNight,
    kinds_key,
    parse_site,
    write_memo,
)
from corpus_pipeline.extract.site_page_kinds import COLUMNS as KIND_COLUMNS
from corpus_pipeline.extract.site_page_kinds import SitePageKinds, site_page_kinds, write_with_page_kinds
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.quality.checks import ERROR_SHARE, NOT_EMPTY, ROW_COUNT_VS_CURRENT
from corpus_pipeline.quality.distinct import DISTINCT_VS_CURRENT, record_distinctness
from corpus_pipeline.quality.records import judge_records
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSET = "parsed_pages"
PREVIEW = ["url", "title", "date", "lang", "page_kind", "content", "error"]
# The records' texts pass through this process while the parsing workers run, the run's peak: larger than
# pymalloc's 512 bytes, they leave malloc's heap holey unless its free pages are handed back now and then.
TRIM_EVERY_RECORDS = 64
# Pages that vote for the website's content container (extract/content_container.py): a few hundred agree as well
# as thousands, and each vote costs two more readings of its page.
CONTAINER_VOTERS = 150


@dg.asset(
    partitions_def=website_partitions,
    deps=["raw_pages"],
    code_version=parsed_pages_version(),
    check_specs=asset_check_specs(ASSET, (NOT_EMPTY, ROW_COUNT_VS_CURRENT, DISTINCT_VS_CURRENT, ERROR_SHARE)),
    **EXTRACT.asset_options(RECORD_SCHEMA),
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
    raw_path = store.local_file("raw_pages", website.name)
    budget = crawler_config.extraction_budget()
    pages = count_documents(raw_path, "html")
    # What every page's parse depends on besides the page and the website's template.
    inputs = f"{asset_code_version(context)}|{budget!r}|{website!r}"
    with store.history(ASSET, website.name).lock() as history, store.history(MEMO, website.name).lock() as memo:
        current, current_version = history.current_file(), history.current()
        current_id = current_version.id if current_version else None
        last_night = LastNight.open(last_memo(context, memo), current, current_id, website.name)
        with tempfile.TemporaryDirectory(prefix="parsed_pages-") as scratch:
            # The records go to a draft first (none when every record is the current version's): each page's kind is
            # decided from the whole website's records (extract/site_page_kinds.py), then written with them.
            night = parse_site(
                partial(_light_html_pages, raw_path),
                iter_sitemaps(raw_path),
                last_night,
                inputs,
                partial(_parse, website=website, budget=budget),
                Path(scratch),
                pages_total=pages,
                current_rows=current_version.rows if current is not None and current_version is not None else None,
                workers=crawler_config.workers,
                sample_every=max(1, pages // CONTAINER_VOTERS),
                log=context.log.info,
                trim_every=TRIM_EVERY_RECORDS,
            )
            draft = Path(scratch) / RECORDS_FILE
            # This process chose the pages' languages (see parse_html_pages): the stages that follow need no model.
            unload_language_model()
            return_freed_memory()
            judged: VersionWriter | Path
            if current is not None and current_version is not None and night.holds_records_of(current_version.rows):
                # Every record the current version's (no draft): so are its page kinds; it stands with its memo.
                judged, kinds_reused = current, True
                kept_kinds = pl.read_parquet(current, columns=list(SITE_PASS_COLUMNS))
                kinds = SitePageKinds(**kept_kinds.to_dict(as_series=False))
                last_night.close()
                return_freed_memory()
            else:
                # The pass reads every record: when it would read what it read for the current version, its kinds stand.
                kinds_input = kinds_key(draft, KIND_COLUMNS, inputs)
                known = last_night.page_kinds(kinds_input, pl.read_parquet(draft, columns=["url"])["url"])
                kinds_reused = known is not None
                kinds = known or site_page_kinds(pl.read_parquet(draft, columns=list(KIND_COLUMNS)))
                last_night.close()
                return_freed_memory()
                with history.new_version(RECORD_SCHEMA, run_id=context.run.run_id) as judged:
                    write_with_page_kinds(judged, draft, kinds)
                # The memo describes the new version whether or not it is published: a memo of a version that is not
                # current offers its pages' survey facts, never their records (LastNight.open).
                with memo.new_version(MEMO_SCHEMA, run_id=context.run.run_id, drop_columns=()) as described:
                    write_memo(Path(scratch), described, judged.version_id, kinds_input)
                memo.publish(described.version_id)
        # Which element of the website's template its documents were read from (extract/content_container.py):
        # "none" when its pages agree on none and each page is read alone.
        containers = ", ".join(night.survey.boilerplate.containers) or "none"
        counts = {**kinds.counts(), "content_containers": containers, **night.metadata()}
        counts["page_kinds_reused"] = kinds_reused

        policy = warehouse.gate_policy()
        outcomes = judge_records(judged_file(judged), current, pages, policy)
        # A soft outage whose pages differ (the page's own title kept, a request id in the body) passes raw_pages
        # and shows here, where most records share one main text. Every record and its kind kept: the same texts.
        same_records = kinds_reused and night.records.computed == 0
        outcomes.append(judge_distinctness(history, judged, current, same_records, record_distinctness, policy))
        yield from publish_if_good(context, history, judged, outcomes, RECORD_SCHEMA, PREVIEW, counts)


def _parse(
    pages: Iterable[HtmlPage], boilerplate: BoilerplateModel, workers: int, website: Website, budget: ExtractionBudget
) -> Iterator[dict]:
    """The records of the pages whose inputs changed, parsed with the night's template model on ``workers``."""
    # Imported here: a night whose pages are all unchanged needs none of the parsers (trafilatura, Resiliparse...).
    from corpus_pipeline.extract.page import parse_html_pages

    return parse_html_pages(pages, website, boilerplate, workers=workers, budget=budget)


def _light_html_pages(raw_path: Path) -> Iterator[tuple[HtmlPage, Callable[[], bytes]]]:
    """The HTML pages without their bodies, each with a loader of its body (parse_site reads each body for its digest,
    and again only for a page it surveys or parses)."""
    bodies = DocumentBodies(raw_path)
    for row in iter_documents(raw_path, kind="html", body=False):
        page = HtmlPage(
            url=row["final_url"] or row["url"],
            body=b"",
            content_type=row["content_type"],
            fetched_at=row["body_fetched_at"],
            sitemap_lastmod=row["sitemap_lastmod"],
            http_last_modified=row["last_modified"],
            category=row["category"],
            hreflang=row["hreflang"],
        )
        yield page, partial(bodies.body, row["row"])
