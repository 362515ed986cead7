"""What each column of the Parquet contracts means, for readers of the data and for the Dagster UI.

Kept beside ``schema.py`` rather than inside it so that the schemas stay readable as types; a test checks that
every column of every schema is described here.
"""

from __future__ import annotations

from types import MappingProxyType

RAW_PAGES_COLUMN_DOCS = MappingProxyType(
    {
        "website": "Partition key: the registry name of the website.",
        "url": "The normalized URL the crawler decided about (its queue key).",
        "final_url": "Where the last redirect hop led; null when never requested.",
        "outcome": "Why the row is here: one value of corpus_pipeline.core.outcomes.FetchOutcome.",
        "kind": "What the fetch turned out to be: html, pdf, sitemap, robots or other; null when never requested.",
        "status": "HTTP status of the final response.",
        "content_type": "Content-Type header of the final response.",
        "etag": "ETag header, sent back as If-None-Match on the next crawl.",
        "last_modified": "HTTP Last-Modified (UTC), sent back as If-Modified-Since on the next crawl.",
        "sitemap_lastmod": "lastmod of the sitemap entry that listed the URL (UTC).",
        "bytes": "Body size as received (after Content-Encoding).",
        "elapsed_s": (
            "Seconds the URL's requests took from connection to last byte, retries (their back-off included) and "
            "redirect hops included; the wait for the host's pace is not (pace_wait_s)."
        ),
        "attempts": "Requests made for the URL (retries included; 0 when never requested).",
        "error": "Why the fetch failed or was refused; null when fine.",
        "depth": "Link depth from the start page or sitemap entry (0).",
        "referrer": "The page or sitemap that led to the URL.",
        "source": "How the URL was found: start, sitemap, sitemap_index, link, alternate or robots.",
        "category": "The website's registry category, or 'external' for pages off the website.",
        "hreflang": "Language of the hreflang alternate that led to the URL.",
        "indexable": (
            "Whether the page goes on to parsed_pages: the registry's contains_str lets it in and the page says no "
            "robots noindex."
        ),
        "fetched_at": "When the row was decided (UTC).",
        "body": "The response body, kept for usable documents, sitemaps and robots.txt.",
        "robots": (
            "The page's robots directives that bind this crawler (meta robots or its own agent's, X-Robots-Tag): "
            "noindex, nofollow or 'noindex, nofollow'; null when none restricts."
        ),
        "pace_wait_s": (
            "Seconds the URL's requests waited for the host's pace (requests in flight, delay between starts) before "
            "they could start, retries and redirect hops included; null in partitions written before the column."
        ),
        "body_fetched_at": (
            "When the crawl first fetched the body as it is (UTC): this row's fetched_at for a new body, an earlier "
            "crawl's for the same one (a 304, an unchanged sitemap lastmod, the same bytes again); null without a "
            "body, and in partitions written before the column."
        ),
    }
)

RECORD_COLUMN_DOCS = MappingProxyType(
    {
        "website": "Partition key: the registry name of the website.",
        "url": "Where the text was found, after redirects; PDF sections end in #page=N.",
        "canonical_url": (
            "Grouping key: scheme and host lower-cased, query reduced to keep_query_keys, fragment only #page=N."
        ),
        "title": "Cleaned title (site-name suffixes removed).",
        "date": "Last modification (UTC): page metadata, else sitemap lastmod, else HTTP Last-Modified.",
        "published": (
            "First publication (UTC) when the document says so; never from the site's header or footer, a comment or a "
            "code sample."
        ),
        "excerpt": "Meta or OpenGraph description, PDF subject.",
        "content": "The main text, whitespace-normalized, paragraphs separated by blank lines.",
        "h1": "h1 headings in document order.",
        "h2": "h2 headings in document order.",
        "lang": "Two-letter language: the page's, its hreflang, or detected; the website default last.",
        "category": "The website's registry category, or 'external' for pages off the website.",
        "kind": "html, pdf (text layer) or pdf_ocr (Tesseract).",
        "fetched_at": (
            "When the crawl first fetched the document as it is (UTC): raw_pages' body_fetched_at. A night that finds "
            "it unchanged does not move it."
        ),
        "alternates": "hreflang translations of the page: {lang, url}.",
        "rel_canonical": "The page's same-host <link rel=canonical>, null when absent.",
        "error": "Why the record has no usable text; null when fine.",
        "in_sitemap": "A sitemap of the website lists the page (or lists it as an hreflang alternate).",
        "inlinks": "Distinct pages of the website that link to the page (null for PDFs).",
        "extraction": (
            "Which path produced an HTML page's content (null for PDFs): markup (the registry's selector), "
            "site_container (the element the website's pages agree holds their text), trafilatura_fast, _full or "
            "_precision, second_opinion_merged or _lines_added (Resiliparse's lines put back), card_grid_added, "
            "resiliparse_only, visible_text (no extractor found content: the text minus boilerplate) or no_document."
        ),
        "page_kind": (
            "What the page is: document, listing (archives, tag and date pages, paginated lists, search results: "
            "other pages' titles, excerpts or texts) or error_page (a soft 404); null for PDFs. Listings and error "
            "pages stay out of the corpus unless the registry's keep_listings."
        ),
        "page_kind_evidence": (
            "Why: the page's declarations (body classes, structured data...), then the website's evidence."
        ),
        "title_links": "Same-host pages the page's headings link to (a listing's title links).",
        "title_inlinks": "Listings of the website that link to the page from a heading.",
        "markdown": (
            "The content as Markdown, from the same reading: ATX headings, lists, GFM tables, fenced code with its "
            "language, quotes, emphasis (links and images by the registry's markdown_links / markdown_images; PDFs: "
            "a heading per outline section). HTML pages' content is this text without its markup. Null in "
            "partitions written before the column."
        ),
        "candidate_urls": "Every record URL of the canonical-URL group.",
        "candidates": "How many records the canonical-URL group holds.",
        "absorbed": "Records merged into this one: {url, reason (same_url, same_content, near_duplicate), score}.",
        # corpus_quality, global_corpus and the export (corpus_pipeline/lm/schema.py)
        "lang_detected": "Language py3langid reads in the text (the record's lang when the text is too short).",
        "lang_score": "py3langid's normalized probability of lang_detected.",
        "words": "Words as Gopher counts them: datatrove's tokens that are not only punctuation.",
        "chars": "Characters of the content.",
        "measures": "Gopher repetition and quality, and FineWeb measures (datatrove's helpers), one field each.",
        "filter_language": (
            "Language filter: the rule failed (not_in_policy_languages, low_language_score), null when passed."
        ),
        "filter_gopher_repetition": "datatrove GopherRepetitionFilter: the rule failed, null when passed.",
        "filter_gopher_quality": "datatrove GopherQualityFilter: the rule failed, null when passed.",
        "filter_c4": "datatrove C4QualityFilter: the rule failed, null when passed.",
        "filter_fineweb": "datatrove FineWebQualityFilter: the rule failed, null when passed.",
        "drop_reason": "First failed rule in FineWeb's order, 'filter:rule'; null when kept.",
        "keep": "The record passes every filter of the quality policy.",
        "quality_error": "Why the record could not be scored (it is not kept); null when fine.",
        "pii_emails": "E-mail addresses in the content (replaced by a placeholder in the export).",
        "pii_ips": "Public IP addresses in the content (replaced by a placeholder in the export).",
        "id": "Stable record id: a digest of website and canonical URL.",
        "merged_from": "Records of any website merged into this one: {website, url, reason, score}.",
        "text": (
            "Export: the content (its Markdown with text_format: markdown), e-mail and IP addresses replaced by "
            "placeholders when scrub_pii is on."
        ),
        "duplicates": "Export: how many records of any website were merged into this one.",
    }
)
