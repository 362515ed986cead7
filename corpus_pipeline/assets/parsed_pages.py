"""parsed_pages: the text and metadata of every HTML page."""

import tempfile
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import polars as pl

from corpus_pipeline.assets.catalog import EXTRACT, OFFLINE_TAGS, OWNERS
from corpus_pipeline.assets.code_versions import parsed_pages_version
from corpus_pipeline.assets.publishing import asset_check_specs, publish_if_good
from corpus_pipeline.assets.reporting import declared_metadata
from corpus_pipeline.core.memory import return_freed_memory
from corpus_pipeline.core.partition_writer import PartitionWriter
from corpus_pipeline.core.raw_pages import count_documents, iter_documents, iter_sitemap_bodies
from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.extract.metadata import unload_language_model
from corpus_pipeline.extract.page import HtmlPage, parse_html_pages
from corpus_pipeline.extract.site_page_kinds import COLUMNS as KIND_COLUMNS
from corpus_pipeline.extract.site_page_kinds import site_page_kinds, write_with_page_kinds
from corpus_pipeline.extract.site_survey import survey_site
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.quality.checks import ERROR_SHARE, NOT_EMPTY, ROW_COUNT_VS_CURRENT
from corpus_pipeline.quality.distinct import DISTINCT_VS_CURRENT, records_distinct_vs_current
from corpus_pipeline.quality.records import judge_records
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSET = "parsed_pages"
PREVIEW = ["url", "title", "date", "lang", "page_kind", "content", "error"]
# The records' texts pass through this process while the parsing workers run, the run's peak: larger than
# pymalloc's 512 bytes, they come from malloc's heap and leave it holey. Handing its free pages back every 64
# records (a few ms each) kept the process ~5-10 MiB smaller on the Debian handbook.
TRIM_EVERY_RECORDS = 64
# Pages that vote for the website's content container (extract/content_container.py): a few hundred agree as well
# as thousands, and each vote costs two more readings of its page.
CONTAINER_VOTERS = 150


@dg.asset(
    partitions_def=website_partitions,
    deps=["raw_pages"],
    group_name=EXTRACT.name,
    kinds={"python", "parquet"},
    metadata={**declared_metadata(RECORD_SCHEMA), **EXTRACT.metadata()},
    owners=OWNERS,
    tags=OFFLINE_TAGS,
    code_version=parsed_pages_version(),
    check_specs=asset_check_specs(ASSET, (NOT_EMPTY, ROW_COUNT_VS_CURRENT, DISTINCT_VS_CURRENT, ERROR_SHARE)),
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
    with store.history(ASSET, website.name).lock() as history:
        # Two passes over the stored pages: survey the site (its template per language, its sitemap
        # listing, its links), then extract every page with that knowledge.
        survey = survey_site(
            ((page.url, page.hreflang, page.body) for page in _html_pages(raw_path)),
            iter_sitemap_bodies(raw_path),
            workers=crawler_config.workers,
            container_sample_every=max(1, count_documents(raw_path, "html") // CONTAINER_VOTERS),
        )
        return_freed_memory()  # what the survey's reading of every body left, before the parse reads them again
        pages = parse_html_pages(
            _html_pages(raw_path),
            website,
            survey.boilerplate,
            workers=crawler_config.workers,
            budget=crawler_config.extraction_budget(),
        )
        with tempfile.TemporaryDirectory(prefix="parsed_pages-") as scratch:
            # The records go to a draft first: each page's kind is decided from the whole website's records
            # (extract/site_page_kinds.py), read back from the draft, then written with the records to the version.
            draft = Path(scratch) / "records.parquet"
            with PartitionWriter(draft, RECORD_SCHEMA) as writer:
                for written, record in enumerate(pages, start=1):
                    writer.write(record | survey.facts_for(record["url"]))
                    if written % TRIM_EVERY_RECORDS == 0:
                        return_freed_memory()
            # This process chose the pages' languages (see parse_html_pages): the model's mapped tables, ~30 MiB of
            # RSS after the Debian handbook's 21 languages (its weights), are not needed by the stages that follow.
            unload_language_model()
            return_freed_memory()
            kinds = site_page_kinds(pl.read_parquet(draft, columns=list(KIND_COLUMNS)))
            return_freed_memory()
            with history.new_version(RECORD_SCHEMA, run_id=context.run.run_id) as version:
                write_with_page_kinds(version, draft, kinds)
        # Which element of the website's template its documents were read from (extract/content_container.py):
        # "none" when its pages agree on none and each page is read alone.
        counts = kinds.counts() | {"content_containers": ", ".join(survey.boilerplate.containers) or "none"}

        current = history.current_file()
        policy = warehouse.gate_policy()
        outcomes = judge_records(version.path, current, count_documents(raw_path, "html"), policy)
        # A soft outage whose pages differ (the page's own title kept, a request id in the body) passes raw_pages
        # and shows here, where most records share one main text.
        outcomes.append(records_distinct_vs_current(version.path, current, policy))
        yield from publish_if_good(context, history, version, outcomes, RECORD_SCHEMA, PREVIEW, counts)


def _html_pages(raw_path: Path) -> Iterator[HtmlPage]:
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
