import pytest

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline.crawl.previous import PreviousCrawl
from corpus_pipeline.crawl.settings import CrawlSettings


@pytest.fixture
def fast_settings() -> CrawlSettings:
    """Polite defaults shrunk so that tests of timeouts and retries run in seconds."""
    return CrawlSettings(
        min_delay_s=0.0, backoff_base_s=0.05, connect_timeout_s=1.0, read_timeout_s=1.0, total_timeout_s=3.0,
        max_retries=2, max_retry_after_s=2.0,
    )


def make_website(url: str, **options):
    """A registry entry built through the real validator."""
    return parse_registry({"websites": [{"name": "site", "url": url, **options}]}).websites[0]


def stored_crawl(warehouse: Warehouse, website, settings: CrawlSettings) -> PreviousCrawl:
    """Crawl ``website`` once into ``warehouse``'s raw_pages partition "site": the previous night of a re-crawl."""
    with warehouse.writer("raw_pages", "site", RAW_PAGES_SCHEMA) as out:
        for row in crawl_website(website, settings):
            out.write(row)
    return PreviousCrawl.open(warehouse.path("raw_pages", "site"))
