"""pdf_documents: the text of every PDF, by outline section, OCR'd when scanned."""

import dagster as dg
import polars as pl

from corpus_pipeline.assets.reporting import partition_metadata
from corpus_pipeline.core.raw_pages import iter_documents
from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.urls import canonical_url
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.pdf.document import PdfError, read_pdf
from corpus_pipeline.pdf.ocr import check_ocr_languages
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSET = "pdf_documents"
PREVIEW = ["url", "title", "kind", "lang", "content", "error"]


@dg.asset(
    partitions_def=website_partitions,
    deps=["raw_pages"],
    group_name="extract",
    kinds={"python", "parquet"},
)
def pdf_documents(
    context: dg.AssetExecutionContext,
    crawler_config: CrawlerConfig,
    websites: WebsiteRegistry,
    warehouse: ParquetWarehouse,
):
    """One record per PDF outline section (url#page=N), text layer or Tesseract OCR for scanned pages."""
    website = websites.website(context.partition_key)
    settings = crawler_config.pdf_settings(website)
    if settings.ocr:
        check_ocr_languages(settings.languages)  # fail before any work, naming the missing language
    store = warehouse.open()

    with store.writer(ASSET, website.name, RECORD_SCHEMA) as output:
        for row in iter_documents(store.path("raw_pages", website.name), kind="pdf"):
            url = row["final_url"] or row["url"]
            try:
                records = read_pdf(
                    row["body"],
                    url=url,
                    website=website.name,
                    fetched_at=row["fetched_at"],
                    category=row["category"],
                    default_lang=website.default_lang,
                    settings=settings,
                    date_hint=row["sitemap_lastmod"] or row["last_modified"],
                )
            except PdfError as error:
                context.log.warning(f"{url}: {error}")
                records = [_unreadable(website.name, url, row, str(error))]
            for record in records:
                output.write(record)

    path = store.path(ASSET, website.name)
    kinds = pl.scan_parquet(path).group_by("kind").len().collect()
    counts = {f"records_{kind}": n for kind, n in kinds.iter_rows() if kind}
    counts["documents_with_error"] = pl.scan_parquet(path).filter(pl.col("error").is_not_null()).select(pl.len()).collect().item()
    return dg.MaterializeResult(metadata=partition_metadata(path, RECORD_SCHEMA, PREVIEW, counts))


def _unreadable(website: str, url: str, row: dict, reason: str) -> dict:
    """A record that keeps an unreadable PDF visible, with the reason, instead of dropping it."""
    return {
        "website": website,
        "url": url,
        "canonical_url": canonical_url(url),
        "content": "",
        "h1": [],
        "h2": [],
        "kind": "pdf",
        "category": row["category"],
        "fetched_at": row["fetched_at"],
        "alternates": [],
        "error": reason,
    }
