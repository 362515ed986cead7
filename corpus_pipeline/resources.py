"""Dagster resources: the crawl configuration, the registry and the Parquet warehouse. Every field can be
overridden per run from the launchpad or run config (docs/getting-started.md shows one)."""

from __future__ import annotations

import dataclasses
import os
from typing import Annotated, Any

import dagster as dg
from pydantic import Field

from corpus_pipeline.core.checkpoint import FLUSH_ROWS
from corpus_pipeline.core.lease import DEFAULT_LEASE_SECONDS
from corpus_pipeline.core.registry import Registry, Website, load_registry
from corpus_pipeline.core.urls import DEFAULT_KEPT_QUERY_KEYS
from corpus_pipeline.core.versions import DEFAULT_KEEP_VERSIONS
from corpus_pipeline.core.warehouse import Warehouse, default_warehouse_location, open_warehouse
from corpus_pipeline.crawl.settings import DEFAULT_NO_FOLLOW, CrawlSettings
from corpus_pipeline.dedup.settings import DEFAULT_THRESHOLD, DEFAULT_URLS_TO_IGNORE
from corpus_pipeline.extract.page_input import ExtractionBudget
from corpus_pipeline.pdf.settings import PdfSettings
from corpus_pipeline.quality.checks import GatePolicy

# The defaults of the settings these resources configure, each field's default read from them.
_CRAWL, _PDF, _GATES, _BUDGET = CrawlSettings(), PdfSettings(), GatePolicy(), ExtractionBudget()
# A share or a similarity: a value outside [0, 1] is refused when the run's configuration is read.
Ratio = Annotated[float, Field(ge=0.0, le=1.0)]


def fields_named_alike(settings: type, config: dg.ConfigurableResource) -> dict[str, Any]:
    """The values of ``config``'s fields that the dataclass ``settings`` has under the same name."""
    shared = {field.name for field in dataclasses.fields(settings)} & set(type(config).model_fields)
    return {name: getattr(config, name) for name in shared}


class CrawlerConfig(dg.ConfigurableResource):
    """Global knobs of the crawl, the PDF reader and the deduplication, shared by all websites."""

    no_follow: list[str] = Field(
        default_factory=lambda: list(DEFAULT_NO_FOLLOW),
        description="URL substrings that are never requested (no traffic at all).",
    )
    urls_to_ignore: list[str] = Field(
        default_factory=lambda: list(DEFAULT_URLS_TO_IGNORE),
        description="URL substrings whose records are dropped from the corpus (they are still crawled).",
    )
    user_agent: str = Field(default=_CRAWL.user_agent, description="User-Agent header, with a contact URL.")
    connect_timeout_s: float = Field(default=_CRAWL.connect_timeout_s)
    read_timeout_s: float = Field(default=_CRAWL.read_timeout_s)
    total_timeout_s: float = Field(default=_CRAWL.total_timeout_s, description="Whole-request deadline.")
    max_body_bytes: int = Field(default=_CRAWL.max_body_bytes, description="Size cap of an HTML page.")
    max_pdf_bytes: int = Field(default=_CRAWL.max_pdf_bytes, description="Size cap of a PDF.")
    max_pages: int = Field(default=_CRAWL.max_pages, description="Pages per website per crawl.")
    adaptive_pace: bool = Field(
        default=_CRAWL.adaptive_pace,
        description="Pace each host by its response times (false: per_host_concurrency requests, min_delay_s apart).",
    )
    per_host_concurrency: int = Field(default=_CRAWL.per_host_concurrency, description="Most open requests per host.")
    min_delay_s: float = Field(default=_CRAWL.min_delay_s, description="Minimum gap between request starts per host.")
    max_delay_s: float = Field(default=_CRAWL.max_delay_s, description="Longest delay the adaptive pace backs off to.")
    max_in_flight: int | None = Field(
        default=_CRAWL.max_in_flight,
        ge=1,
        description="Fetches in flight across hosts, each holding a body in memory; empty: twice per_host_concurrency.",
    )
    max_retries: int = Field(default=_CRAWL.max_retries)
    allow_private_external: bool = Field(
        default=_CRAWL.allow_private_external,
        description="Also request hosts outside the website (links, redirect hops) that are on private, loopback or "
        "link-local addresses. Off: only the website's own hosts (url, same_site_hosts) may be private.",
    )
    max_sitemaps: int = Field(default=_CRAWL.max_sitemaps, description="Sitemaps (indexes included) read per crawl.")
    max_template_chain: int = Field(
        default=_CRAWL.max_template_chain,
        description="Pages of one path template (digits abstracted, e.g. /cal/#/#/), each found on the previous one, "
        "before the line is treated as a crawler trap.",
    )
    keep_query_keys: list[str] = Field(
        default_factory=lambda: list(DEFAULT_KEPT_QUERY_KEYS),
        description="Query keys that make a different canonical URL; all others are dropped.",
    )
    near_duplicate_threshold: Ratio = Field(
        default=DEFAULT_THRESHOLD,
        description="Similarity ratio from which two pages are near duplicates; 1.0 disables.",
    )
    ocr_languages: str = Field(default=_PDF.languages, description="Tesseract languages, '+'-separated.")
    ocr_dpi: int = Field(default=_PDF.dpi, description="Rendering resolution of scanned pages.")
    workers: int = Field(default=os.cpu_count() or 1, description="Processes for parsing, OCR and dedup.")
    checkpoint_every_rows: int = Field(
        default=FLUSH_ROWS,
        ge=1,
        description="Crawl rows written to disk at a time; a killed crawl re-fetches at most these.",
    )
    resume_within_hours: float = Field(
        default=24.0,
        gt=0,
        description="A crawl interrupted less than this long ago is resumed; an older one is started afresh.",
    )
    page_time_budget_s: float = Field(
        default=_BUDGET.page_time_s or 0.0,
        ge=0,
        description="Seconds an HTML page may parse before it is stopped and recorded with an error; 0: no limit.",
    )
    max_markup_depth: int = Field(
        default=_BUDGET.max_markup_depth,
        ge=1,
        description="Pages whose tags nest deeper than this are read flattened to this depth (lxml keeps 255).",
    )
    ocr_time_budget_s: float = Field(
        default=_PDF.ocr_budget_s or 0.0,
        ge=0,
        description="Seconds of OCR per PDF; past them the document keeps the pages read, with an error. 0: no limit.",
    )

    def crawl_settings(self) -> CrawlSettings:
        """The crawler's view of this configuration: every field that CrawlSettings has under the same name."""
        return CrawlSettings(**{**fields_named_alike(CrawlSettings, self), "no_follow": tuple(self.no_follow)})

    def extraction_budget(self) -> ExtractionBudget:
        """What one HTML page may cost (time and markup depth)."""
        return ExtractionBudget(page_time_s=self.page_time_budget_s or None, max_markup_depth=self.max_markup_depth)

    def pdf_settings(self, website: Website) -> PdfSettings:
        """The PDF reader's view of this configuration, with the website's OCR mode."""
        return PdfSettings(
            ocr=website.ocr,
            languages=self.ocr_languages,
            dpi=self.ocr_dpi,
            max_bytes=self.max_pdf_bytes,
            workers=self.workers,
            ocr_budget_s=self.ocr_time_budget_s or None,
        )


class WebsiteRegistry(dg.ConfigurableResource):
    """The registry file listing the websites and their crawl options."""

    path: str = Field(default="", description="Registry YAML; empty means $CORPUS_PIPELINE_REGISTRY or websites.yaml.")

    def load(self) -> Registry:
        return load_registry(self.path or None)

    def website(self, name: str) -> Website:
        """The registry entry of one website (one partition key)."""
        return self.load().get(name)


class ParquetWarehouse(dg.ConfigurableResource):
    """Where the Parquet partitions live (``<base_dir>/<asset>/website=<name>/data.parquet``), and when a new
    version of a partition may replace the current one."""

    base_dir: str = Field(
        default="",
        description="Folder of the warehouse, or s3://bucket/prefix to share it between machines; "
        "empty means $CORPUS_PIPELINE_WAREHOUSE, else <data dir>/warehouse.",
    )
    s3_endpoint_url: str = Field(
        default="",
        description="Endpoint of an S3-compatible server for an s3:// base_dir; empty means $AWS_ENDPOINT_URL_S3, "
        "$AWS_ENDPOINT_URL, else AWS. Credentials come from the AWS environment variables.",
    )
    s3_lease_seconds: float = Field(
        default=DEFAULT_LEASE_SECONDS,
        gt=0,
        description="On s3://, how long a partition's lock outlives a killed run (renewed every third of it).",
    )
    keep_versions: int = Field(
        default=DEFAULT_KEEP_VERSIONS, ge=1, description="Published versions kept per partition (for roll-backs)."
    )
    max_row_drop_share: Ratio = Field(
        default=_GATES.max_row_drop_share,
        description="A new version with fewer rows than (1 - this) x the current one is refused; 1.0 accepts any drop.",
    )
    max_error_share: Ratio = Field(
        default=_GATES.max_error_share,
        description="Share of records with an error above which the error_share check warns.",
    )
    max_distinct_drop_share: Ratio = Field(
        default=_GATES.max_distinct_drop_share,
        description="A new raw_pages or parsed_pages version whose share of pages with a title, body or text of their "
        "own is below (1 - this) x the current one's is refused (a soft outage); 1.0 accepts any fall.",
    )

    def open(self) -> Warehouse:
        location = self.base_dir or default_warehouse_location()
        return open_warehouse(
            location,
            keep_versions=self.keep_versions,
            endpoint_url=self.s3_endpoint_url,
            lease_seconds=self.s3_lease_seconds,
        )

    def gate_policy(self) -> GatePolicy:
        """What a new version must show to become current."""
        return GatePolicy(**fields_named_alike(GatePolicy, self))
