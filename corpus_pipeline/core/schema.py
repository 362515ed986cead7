"""Parquet contracts between the pipeline stages.

Stages meet only through these schemas: each stage writes exactly these columns
and the next one reads them. Extend a schema by adding columns; never rename. A column added
later is null in the partitions written before it. What each column means: ``columns.py``.
"""

from __future__ import annotations

import pyarrow as pa

UTC_TIMESTAMP = pa.timestamp("us", tz="UTC")

RAW_PAGES_SCHEMA = pa.schema(
    [
        pa.field("website", pa.string(), nullable=False),
        pa.field("url", pa.string(), nullable=False),  # normalized requested URL (queue key)
        pa.field("final_url", pa.string()),  # after redirects
        pa.field("outcome", pa.string(), nullable=False),  # a FetchOutcome value: every crawl decision is one
        pa.field("kind", pa.string()),  # html, pdf, sitemap, robots or other; null when never requested
        pa.field("status", pa.int32()),  # HTTP status of the final response
        pa.field("content_type", pa.string()),
        pa.field("etag", pa.string()),
        pa.field("last_modified", UTC_TIMESTAMP),  # HTTP Last-Modified
        pa.field("sitemap_lastmod", UTC_TIMESTAMP),
        pa.field("bytes", pa.int64()),  # body size as received
        pa.field("elapsed_s", pa.float64()),
        pa.field("attempts", pa.int32()),
        pa.field("error", pa.string()),  # null when fine
        pa.field("depth", pa.int32()),  # 0 = start page or sitemap entry
        pa.field("referrer", pa.string()),  # page or sitemap that led here
        pa.field("source", pa.string()),  # start | sitemap | link | alternate | robots | sitemap_index
        pa.field("category", pa.string()),  # registry category, or "external"
        pa.field("hreflang", pa.string()),  # language of the alternate that led here
        pa.field("indexable", pa.bool_()),  # contains_str and no robots noindex: goes to parsed_pages
        pa.field("fetched_at", UTC_TIMESTAMP, nullable=False),
        pa.field("body", pa.large_binary()),
        pa.field("robots", pa.string()),  # crawl/robots_meta.py
        pa.field("pace_wait_s", pa.float64()),  # crawl/throttle.py
        pa.field("body_fetched_at", UTC_TIMESTAMP),  # when the body was first fetched as it is
    ]
)

HEADINGS = pa.list_(pa.string())
ALTERNATE = pa.struct([pa.field("lang", pa.string()), pa.field("url", pa.string())])

# Shared by parsed_pages, pdf_documents, canonical_url_groups and corpus.
RECORD_FIELDS = [
    pa.field("website", pa.string(), nullable=False),
    pa.field("url", pa.string(), nullable=False),
    pa.field("canonical_url", pa.string(), nullable=False),
    pa.field("title", pa.string()),
    pa.field("date", UTC_TIMESTAMP),  # last modification
    pa.field("published", UTC_TIMESTAMP),  # first publication, when the document says so
    pa.field("excerpt", pa.string()),
    pa.field("content", pa.string()),
    pa.field("h1", HEADINGS),
    pa.field("h2", HEADINGS),
    pa.field("lang", pa.string()),
    pa.field("category", pa.string()),
    pa.field("kind", pa.string()),  # html | pdf | pdf_ocr
    pa.field("fetched_at", UTC_TIMESTAMP),
    pa.field("alternates", pa.list_(ALTERNATE)),  # hreflang translations of this page
    pa.field("rel_canonical", pa.string()),  # same-host <link rel=canonical>, null when absent
    pa.field("error", pa.string()),  # why a record has no usable content; null when fine
    pa.field("in_sitemap", pa.bool_()),  # a sitemap of the website lists the document (null: not known)
    pa.field("inlinks", pa.int32()),  # pages of the website linking to the document (null: not known)
    pa.field("extraction", pa.string()),  # extract/main_content.py Extraction
    pa.field("page_kind", pa.string()),  # document | listing | error_page (extract/page_kind.py, site_page_kinds.py)
    pa.field("page_kind_evidence", pa.string()),  # the page's declarations, then the site-wide pass's reasons
    pa.field("title_links", pa.list_(pa.string())),  # same-host pages the page's headings link to (a listing's titles)
    pa.field("title_inlinks", pa.int32()),  # listings of the website linking to the page from a heading
    pa.field("markdown", pa.string()),  # extract/markdown.py; content is its text without markup
]
RECORD_SCHEMA = pa.schema(RECORD_FIELDS)

ABSORBED = pa.struct(
    [
        pa.field("url", pa.string()),
        pa.field("reason", pa.string()),  # same_url | same_content | near_duplicate
        pa.field("score", pa.float64()),  # near duplicates: similarity of a verified pair joining it; else 1.0
    ]
)

CANONICAL_URL_GROUPS_SCHEMA = pa.schema(
    [*RECORD_FIELDS, pa.field("candidate_urls", pa.list_(pa.string())), pa.field("candidates", pa.int32())]
)

CORPUS_SCHEMA = pa.schema(RECORD_FIELDS + [pa.field("absorbed", pa.list_(ABSORBED))])

RECORD_COLUMNS = [f.name for f in RECORD_FIELDS]
