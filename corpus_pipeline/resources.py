"""Dagster resources: the crawl configuration, the registry and the Parquet warehouse.

Every field can be overridden per run from the launchpad or run config, e.g.::

    resources:
      crawler_config:
        config:
          urls_to_ignore: ["/tag/", "/archive/"]
          min_delay_s: 1.0
"""

from __future__ import annotations

import os
import dagster as dg
from pydantic import Field

from corpus_pipeline.core.registry import Registry, Website, load_registry
from corpus_pipeline.core.warehouse import Warehouse, default_data_dir
from corpus_pipeline.crawl.settings import DEFAULT_NO_FOLLOW, CrawlSettings
from corpus_pipeline.dedup.settings import DEFAULT_URLS_TO_IGNORE
from corpus_pipeline.pdf.settings import PdfSettings

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
    user_agent: str = Field(
        default=CrawlSettings().user_agent, description="User-Agent header, with a contact URL."
    )
    connect_timeout_s: float = Field(default=CrawlSettings().connect_timeout_s)
    read_timeout_s: float = Field(default=CrawlSettings().read_timeout_s)
    total_timeout_s: float = Field(default=CrawlSettings().total_timeout_s, description="Whole-request deadline.")
    max_body_bytes: int = Field(default=CrawlSettings().max_body_bytes, description="Size cap of an HTML page.")
    max_pdf_bytes: int = Field(default=CrawlSettings().max_pdf_bytes, description="Size cap of a PDF.")
    max_pages: int = Field(default=CrawlSettings().max_pages, description="Pages per website per crawl.")
    adaptive_pace: bool = Field(
        default=CrawlSettings().adaptive_pace,
        description="Pace each host by its response times (false: per_host_concurrency requests, min_delay_s apart).",
    )
    per_host_concurrency: int = Field(
        default=CrawlSettings().per_host_concurrency, description="Most requests in flight to one host."
    )
    min_delay_s: float = Field(
        default=CrawlSettings().min_delay_s, description="Minimum delay between request starts to one host."
    )
    max_delay_s: float = Field(
        default=CrawlSettings().max_delay_s, description="Longest delay the adaptive pace backs off to."
    )
    max_retries: int = Field(default=CrawlSettings().max_retries)
    keep_query_keys: list[str] = Field(
        default_factory=lambda: ["lang", "v"],
        description="Query keys that make a different canonical URL; all others are dropped.",
    )
    near_duplicate_threshold: float = Field(
        default=0.9, ge=0.0, le=1.0, description="Similarity ratio from which two pages are near duplicates; 1.0 disables."
    )
    ocr_languages: str = Field(default=PdfSettings().languages, description="Tesseract languages, '+'-separated.")
    ocr_dpi: int = Field(default=PdfSettings().dpi, description="Rendering resolution of scanned pages.")
    workers: int = Field(default=os.cpu_count() or 1, description="Processes for parsing, OCR and dedup.")

    def crawl_settings(self) -> CrawlSettings:
        """The crawler's view of this configuration."""
        return CrawlSettings(
            no_follow=tuple(self.no_follow),
            user_agent=self.user_agent,
            connect_timeout_s=self.connect_timeout_s,
            read_timeout_s=self.read_timeout_s,
            total_timeout_s=self.total_timeout_s,
            max_body_bytes=self.max_body_bytes,
            max_pdf_bytes=self.max_pdf_bytes,
            max_pages=self.max_pages,
            adaptive_pace=self.adaptive_pace,
            per_host_concurrency=self.per_host_concurrency,
            min_delay_s=self.min_delay_s,
            max_delay_s=self.max_delay_s,
            max_retries=self.max_retries,
        )

    def pdf_settings(self, website: Website) -> PdfSettings:
        """The PDF reader's view of this configuration, with the website's OCR mode."""
        return PdfSettings(
            ocr=website.ocr,
            languages=self.ocr_languages,
            dpi=self.ocr_dpi,
            max_bytes=self.max_pdf_bytes,
            workers=self.workers,
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
    """Where the Parquet partitions live: ``<base_dir>/<asset>/website=<name>/data.parquet``."""

    base_dir: str = Field(default="", description="Folder of the warehouse; empty means <data dir>/warehouse.")

    def open(self) -> Warehouse:
        return Warehouse(self.base_dir or default_data_dir() / "warehouse")
