"""pdf_documents: the text of every PDF, by outline section, OCR'd when scanned."""

import dataclasses

import dagster as dg
import polars as pl

from corpus_pipeline.assets.catalog import EXTRACT
from corpus_pipeline.assets.code_versions import pdf_documents_version
from corpus_pipeline.assets.incremental import asset_code_version, last_memo, publish_memo_table
from corpus_pipeline.assets.publishing import asset_check_specs, publish_if_good
from corpus_pipeline.core.arrow_values import table_from_rows
from corpus_pipeline.core.progress import Progress
from corpus_pipeline.core.raw_pages import count_documents, iter_documents, iter_sitemaps
from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.urls import canonical_url
from corpus_pipeline.extract.site_links import SitemapListing, page_key, sitemap_listing
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.pdf.reuse import PDF_MEMO, PDF_MEMO_SCHEMA, LastPdfs, pdf_key
from corpus_pipeline.quality.checks import ERROR_SHARE, NOT_EMPTY, ROW_COUNT_VS_CURRENT
from corpus_pipeline.quality.records import judge_records
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSET = "pdf_documents"
PREVIEW = ["url", "title", "kind", "lang", "content", "error"]


@dg.asset(
    partitions_def=website_partitions,
    deps=["raw_pages"],
    code_version=pdf_documents_version(),
    check_specs=asset_check_specs(ASSET, (NOT_EMPTY, ROW_COUNT_VS_CURRENT, ERROR_SHARE)),
    **EXTRACT.asset_options(RECORD_SCHEMA),
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
    store = warehouse.open()
    raw_path = store.local_file("raw_pages", website.name)
    pdfs = count_documents(raw_path, "pdf")
    if settings.ocr and pdfs:
        from corpus_pipeline.pdf.ocr import check_ocr_languages  # see _pdf_records: imported when used

        check_ocr_languages(settings.languages)  # fail before any work, naming the missing language
    # For the election of canonical_url_groups; a website without PDFs does not read its sitemaps again.
    listed = sitemap_listing(iter_sitemaps(raw_path)) if pdfs else SitemapListing()
    # What each PDF's records depend on besides the PDF: the code, the reader's settings (not how many processes
    # share the work), the website's language.
    reading = dataclasses.replace(settings, workers=1)
    inputs = f"{asset_code_version(context)}|{reading!r}|{website.name}|{website.default_lang}"
    with store.history(ASSET, website.name).lock() as history, store.history(PDF_MEMO, website.name).lock() as memo:
        # A PDF whose body and reading settings are unchanged keeps its records: no second OCR (pdf/reuse.py).
        current, standing = history.current_file(), history.current()
        if not pdfs and current is not None and standing is not None and standing.rows == 0:
            # No PDF tonight, none in the current version: that version is the night's.
            outcomes = judge_records(current, current, pdfs, warehouse.gate_policy())
            counts: dict[str, int | float] = {"pdfs_reused": 0, "pdfs_read": 0}
            yield from publish_if_good(context, history, current, outcomes, RECORD_SCHEMA, PREVIEW, counts)
            return
        last_night = LastPdfs.open(last_memo(context, memo), current, standing.id if standing else None)
        progress = Progress("PDFs", pdfs, context.log.info, unit="PDFs")
        with history.new_version(RECORD_SCHEMA, run_id=context.run.run_id) as version:
            for row in iter_documents(raw_path, kind="pdf") if pdfs else ():
                url, key = row["final_url"] or row["url"], pdf_key(row, inputs)
                kept = last_night.kept(url, key)
                records = kept() if kept else _pdf_records(context, row, website.name, website.default_lang, settings)
                for record in records:
                    version.write(record | {"in_sitemap": page_key(record["url"]) in listed})
                last_night.remember(url, key, records, kept is not None)
                progress.advance()
        last_night.close()
        described = [row | {"records_version": version.version_id} for row in last_night.rows]
        publish_memo_table(memo, table_from_rows(described, PDF_MEMO_SCHEMA), context.run.run_id)

        outcomes = judge_records(version.path, current, pdfs, warehouse.gate_policy())
        kinds = pl.scan_parquet(version.path).group_by("kind").len().collect().iter_rows()
        counts = {f"records_{kind}": n for kind, n in kinds if kind is not None} | last_night.counts(progress.elapsed_s)
        yield from publish_if_good(context, history, version, outcomes, RECORD_SCHEMA, PREVIEW, counts)


def _pdf_records(context: dg.AssetExecutionContext, row: dict, website: str, default_lang: str, settings) -> list[dict]:
    """The records of one stored PDF; an unreadable PDF keeps one record with the reason."""
    # Imported when used: the PDF and OCR libraries (pypdf, pytesseract with pandas, scipy: 86 MiB) would otherwise
    # sit in the run's process while its parsing workers run, on websites without PDFs too.
    from corpus_pipeline.pdf.document import PdfError, read_pdf

    url = row["final_url"] or row["url"]
    try:
        return read_pdf(
            row["body"],
            url=url,
            website=website,
            fetched_at=row["body_fetched_at"],
            category=row["category"],
            default_lang=default_lang,
            settings=settings,
            date_hint=row["sitemap_lastmod"] or row["last_modified"],
            log=context.log.info,
        )
    except PdfError as error:
        context.log.warning(f"{url}: {error}")
        unreadable = {
            "website": website,
            "url": url,
            "canonical_url": canonical_url(url),
            "content": "",
            "h1": [],
            "h2": [],
            "kind": "pdf",
            "category": row["category"],
            "fetched_at": row["body_fetched_at"],
            "alternates": [],
            "error": str(error),
        }
        return [unreadable]
