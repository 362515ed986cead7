"""One HTML page to one record: metadata first, then the main text."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from functools import partial
from itertools import islice
from urllib.parse import urlsplit

from lxml import etree, html

from corpus_pipeline.core.budget import Budget, Unfinished, map_within_budget
from corpus_pipeline.core.registry import Website
from corpus_pipeline.core.urls import InvalidUrlError, absolutize, canonical_url
from corpus_pipeline.extract.boilerplate import BoilerplateModel, PageTemplate
from corpus_pipeline.extract.byline import page_authors, without_metadata_lines
from corpus_pipeline.extract.comments import remove_comment_sections
from corpus_pipeline.extract.consent import remove_consent_banners
from corpus_pipeline.extract.content_container import container_elements, reader_agrees
from corpus_pipeline.extract.decode import decode_html
from corpus_pipeline.extract.headings import page_titles, without_headline
from corpus_pipeline.extract.html_tree import parse_html, text_content
from corpus_pipeline.extract.main_content import Extraction, NotADocument, extract_main_content
from corpus_pipeline.extract.markdown import (
    Line,
    MarkdownOptions,
    cells_as_lines,
    mapped_lines,
    mark_tex,
    markdown_of,
    plain_of,
    render_elements,
    with_images,
    with_whole_code,
)
from corpus_pipeline.extract.markup import element_text, markup_elements
from corpus_pipeline.extract.markup_depth import flatten_markup, tree_deeper_than
from corpus_pipeline.extract.metadata import (
    choose_lang,
    clean_title,
    excerpt_of,
    fallback_date,
    load_date_parser,
    normalize_lang,
    page_dates,
)
from corpus_pipeline.extract.page_input import DEFAULT_BUDGET, ExtractionBudget, HtmlPage
from corpus_pipeline.extract.page_kind import link_list, link_names, page_declarations
from corpus_pipeline.extract.permalinks import remove_permalinks
from corpus_pipeline.extract.second_opinion import resiliparse_main_text
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.structured_data import StructuredData, structured_data
from corpus_pipeline.extract.text import WORD, KeyedLines, join_blocks, line_key, normalize_whitespace, word_count

# Elements that never hold the language content of a page (the reference's list).
NON_CONTENT_TAGS = (
    "script", "style", "noscript", "template", "math", "svg", "img", "picture", "audio", "video", "iframe", "embed",
    "object", "canvas", "aside", "nav", "input", "header", "button", "form", "fieldset", "footer", "summary",
    "dialog", "textarea", "select", "option",
)
CODE_TAGS = ("pre", "code")
# Automatic extraction only drops what is never text: trafilatura judges headers (article leads), navs and asides,
# and reads ld+json bodies from scripts (forum posts: wcxb-dev forum pages 0.648 with scripts stripped, 0.685 kept).
NON_TEXT_TAGS = ("style", "noscript", "template", "svg", "math", "iframe", "embed", "object", "canvas")
# Inside a website's content container, what is never a document's text (its template's repeated blocks go by the
# boilerplate model): scripts, forms and their controls, navigation.
CONTAINER_CHROME_TAGS = ("script", "nav", "form", "button", "input", "select", "textarea", "dialog")
NAVIGATION_LANDMARKS = "//*[@role='navigation' or @role='search']"
# What the Markdown of an extractor's reading does not look into (see _main_text).
READERS_CHROME = frozenset({"nav", "footer", "aside", "form", "select", "button"})
# What a record parsed with ``detect_language=False`` carries for :func:`with_language_chosen`, which removes it:
# the page's declared language (html lang, else og:locale) and its hreflang hint.
_LANGUAGE_INPUTS = "_language_inputs"
# C0 controls other than tab, newline, form feed and carriage return, and the replacement character.
_CONTROL_CHARS = re.compile("[\x00-\x08\x0b\x0e-\x1f\ufffd]")


def parse_html_page(
    page: HtmlPage,
    website: Website,
    boilerplate: BoilerplateModel | None = None,
    *,
    max_markup_depth: int = ExtractionBudget.max_markup_depth,
    settings: ExtractionSettings = DEFAULT_SETTINGS,
    detect_language: bool = True,
) -> dict:
    """One record (RECORD_SCHEMA keys) for a page; a page that cannot be read gets ``error`` set, never an exception.

    Tags nested deeper than ``max_markup_depth`` are flattened to it, their text kept (:func:`flatten_markup`).
    ``extraction``: the :class:`Extraction` path of ``content`` (``no_document`` when none).
    ``detect_language=False`` leaves ``lang`` to :func:`with_language_chosen`.
    """
    record = _empty_record(page, website)
    try:
        _fill(record, page, website, boilerplate, max_markup_depth, settings, detect_language)
    except Exception as exc:  # noqa: BLE001 - one hostile page must not stop a website
        record["content"] = record["markdown"] = ""
        record["error"] = f"unparseable HTML: {type(exc).__name__}: {exc}"[:500]
    if not record["content"]:
        record["extraction"] = Extraction.NO_DOCUMENT.value
        if record["error"] is None:
            record["error"] = "no text content found"
    return record


def parse_html_pages(
    pages: Iterable[HtmlPage],
    website: Website,
    boilerplate: BoilerplateModel | None,
    workers: int = 2,
    *,
    budget: ExtractionBudget = DEFAULT_BUDGET,
    settings: ExtractionSettings = DEFAULT_SETTINGS,
) -> Iterator[dict]:
    """:func:`parse_html_page` over many pages, on ``workers`` processes, in order, in bounded memory. A page still
    running after ``budget.page_time_s`` is stopped (its process replaced) and gets an empty record saying why in
    ``error``; without a time budget and with one worker, pages are parsed in this process."""
    parse = partial(
        parse_html_page,
        website=website,
        boilerplate=boilerplate,
        max_markup_depth=budget.max_markup_depth,
        settings=settings,
    )
    if workers <= 1 and budget.page_time_s is None:
        yield from map(parse, pages)
        return
    # The workers leave the language to this process: py3langid's model (~100 MiB of arrays) is held here once
    # rather than by every worker.
    records = map_within_budget(
        partial(parse, detect_language=False),
        pages,
        fallback=partial(_unfinished_record, website=website),
        budget=Budget(item_s=budget.page_time_s),
        workers=workers,
        initializer=load_date_parser,
    )
    for record in records:
        yield with_language_chosen(record, website, settings)


def with_language_chosen(record: dict, website: Website, settings: ExtractionSettings = DEFAULT_SETTINGS) -> dict:
    """``record`` with ``lang`` chosen, when :func:`parse_html_page` left it to the caller (``detect_language=False``):
    :func:`choose_lang` on the inputs the page's own parse would give it, so the same language."""
    if (inputs := record.pop(_LANGUAGE_INPUTS, None)) is not None:
        declared, hint = inputs
        record["lang"] = choose_lang(declared, hint, record["content"], website.default_lang, settings)
    return record


def _unfinished_record(page: HtmlPage, why: Unfinished, website: Website) -> dict:
    error = f"extraction {why.reason}" if why.budget_exceeded else f"extraction failed: {why.reason}"[:500]
    return {**_empty_record(page, website), "error": error}


def _empty_record(page: HtmlPage, website: Website) -> dict:
    try:
        key = canonical_url(page.url)
    except InvalidUrlError:
        key = page.url
    return {
        "website": website.name,
        "url": page.url,
        "canonical_url": key,
        "title": None,
        "date": fallback_date(None, page.sitemap_lastmod, page.http_last_modified),
        "published": None,
        "excerpt": None,
        "content": "",
        "markdown": "",
        "h1": [],
        "h2": [],
        "lang": normalize_lang(page.hreflang) or normalize_lang(website.default_lang) or "en",
        "category": page.category,
        "kind": "html",
        "fetched_at": page.fetched_at or datetime.now(UTC),
        "alternates": [],
        "rel_canonical": None,
        "error": None,
        "extraction": Extraction.NO_DOCUMENT.value,
        "page_kind": None,
        "page_kind_evidence": None,
        "title_links": [],
        "title_inlinks": None,
    }


def _fill(
    record: dict,
    page: HtmlPage,
    website: Website,
    boilerplate: BoilerplateModel | None,
    max_markup_depth: int,
    settings: ExtractionSettings,
    detect_language: bool,
) -> None:
    if not page.body or not page.body.strip():
        record["error"] = "empty body"
        return
    text = decode_html(page.body[: settings.max_chars * 2], page.content_type, settings)
    if _looks_binary(text):
        record["error"] = "binary content served as HTML"
        return
    text = text[: settings.max_chars]
    document = parse_html(text)
    if tree_deeper_than(document, max_markup_depth):  # rare: flattened, then parsed again
        try:
            text = flatten_markup(text, max_markup_depth)
        except (etree.Error, ValueError) as error:  # the parser refused the page: one line says why
            reason = f"markup nested deeper than {max_markup_depth} levels not flattened"
            record["error"] = f"{reason}: {type(error).__name__}: {error}"[:500]
            return
        document = parse_html(text)
    mark_tex(document)  # before the scripts and the MathML go: the Markdown keeps the page's math as TeX

    # Metadata and headings are read before anything is removed (nav titles, header dates).
    record["h1"] = _headings(document, "h1")
    record["h2"] = _headings(document, "h2")
    heading = record["h1"][0] if record["h1"] else None
    raw_title = document.findtext(".//title") or _meta(document, "og:title") or heading
    record["title"] = clean_title(raw_title, _meta(document, "og:site_name"), heading, settings) or None
    record["excerpt"] = excerpt_of(document)
    structured = structured_data(document)
    declared, record["published"] = page_dates(document, page.url, structured.objects)
    record["date"] = fallback_date(declared, page.sitemap_lastmod, page.http_last_modified)
    record["alternates"] = _alternates(document, page.url)
    record["rel_canonical"] = _same_host_canonical(document, page.url)
    if record["rel_canonical"]:
        record["canonical_url"] = canonical_url(record["rel_canonical"])
    record.update(page_declarations(document, page.url, record["rel_canonical"], structured.types))
    site_link_names = link_names(document, page.url)

    template = boilerplate.for_page(document, page.url, page.hreflang) if boilerplate is not None else None
    containers = boilerplate.containers if boilerplate is not None else ()
    options = MarkdownOptions(links=website.markdown_links, images=website.markdown_images, base_url=page.url)
    try:
        dates = (record["published"], record["date"])
        content, extraction, rendering = _main_text(
            document, text, page.url, website, template, settings, dates, containers, options, structured
        )
    except NotADocument as no_document:
        record["error"] = str(no_document)[:500]
        content, extraction, rendering = "", Extraction.NO_DOCUMENT, []
    words = sum(1 for _ in islice(WORD.finditer(content), max(website.min_content_words, 0)))  # enough for the check
    if not website.markup and extraction is not Extraction.SITE_CONTAINER and 0 < words < website.min_content_words:
        # Found automatically, a few words are a script-rendered shell's or an error page's; the markup's and the
        # container's text is kept however short (a two-line post is a post). The error keeps the words.
        reason = f"too little text for a document: {words} words (min_content_words {website.min_content_words})"
        record["error"] = f"{reason}: {content!r}"[:500]
        content = ""
    # The Markdown is the text's lines, each as the element it came from renders; the text is the Markdown's lines
    # without their markup (a reader's "- " and "| a | b |" become the item and the cells they wrote out).
    lines = with_images(with_whole_code(mapped_lines(content, rendering), rendering), rendering) if content else []
    content = plain_of(lines)
    record["content"], record["markdown"] = content, markdown_of(lines)
    if linked := link_list(content, site_link_names):
        record["page_kind_evidence"] += f" link-list:{linked}"
    record["extraction"] = extraction.value
    declared_lang = (document.get("lang") or _meta(document, "og:locale"), page.hreflang)
    if detect_language:
        record["lang"] = choose_lang(*declared_lang, content, website.default_lang, settings)
    else:
        record[_LANGUAGE_INPUTS] = declared_lang


def _main_text(
    document: html.HtmlElement, text: str, url: str, website: Website, boilerplate: PageTemplate | None,
    settings: ExtractionSettings, dates: tuple[datetime | None, ...], containers: tuple[str, ...],
    options: MarkdownOptions, structured: StructuredData,
) -> tuple[str, Extraction, list[Line]]:
    """The page's main text, the path that produced it, and the rendered lines of the elements it was read from
    (``dates``: the page's, for its byline lines; ``containers``: the names of the elements that hold the website's
    documents, learned from all its pages; ``options``: what the rendering keeps)."""
    removable: tuple[str, ...] = NON_CONTENT_TAGS if website.markup else NON_TEXT_TAGS
    if not website.keep_code_blocks:
        removable += CODE_TAGS
    if website.markup:
        _clear(document, removable, boilerplate, settings)
        selected = markup_elements(document, website.markup)
        marked = join_blocks([element_text(node) for node in selected])
        return marked, Extraction.MARKUP, render_elements(selected, options)
    if containers and settings.site_containers:
        held = _container_text(document, text, removable, boilerplate, containers, settings, dates, options, structured)
        if held is not None:
            return held[0], Extraction.SITE_CONTAINER, held[1]
        document = parse_html(text)  # the container's reading cleared the tree: the page's own readers start afresh
    # The extractors read the whole page, template included, and the template's lines leave their text afterwards:
    # a tree stripped of its template is read differently (lines next to the template's are lost).
    consent_banners = _clear(document, removable, None, settings)
    template = boilerplate.lines(document) if boilerplate is not None else []
    skipped = ([] if website.keep_code_blocks else list(CODE_TAGS)) + consent_banners
    fresh_document = partial(_cleaned, text, removable, None, settings)
    main = extract_main_content(
        document, fresh_document, text, url, skipped, settings, dates, structured=structured
    )
    # A table row the reader wrote out ("| a | b |") is its cells, one a line, before the template's lines go: the
    # template's cells go as its other lines do, and the Markdown finds each cell's place.
    extracted = KeyedLines.of(cells_as_lines(main.text)).without_lines_in(template)
    if extracted.text.strip():
        cleaned = extracted.without_degenerate_lines(settings).text
        # The readers' lines are mapped back onto the page as the extractors read it (comment sections removed), less
        # its navigation and footers (rendering those is costly): a line of theirs a reader kept stays a paragraph.
        page = document.find("body")
        rendering = render_elements([page if page is not None else document], options, READERS_CHROME)
        return normalize_whitespace(cleaned.replace("\n", "\n\n")), main.extraction, rendering
    # Nothing looked like an article (a listing, a form page): keep the visible text minus boilerplate.
    # trafilatura consumed the tree, so parse again: rare, and cheaper than copying every tree up front.
    body = _cleaned(text, NON_CONTENT_TAGS, boilerplate, settings).find("body")
    if body is None:
        return "", Extraction.VISIBLE_TEXT, []
    rendering = render_elements([body], options)
    return plain_of(rendering), Extraction.VISIBLE_TEXT, rendering


def _container_text(
    document: html.HtmlElement, text: str, removable: tuple[str, ...], boilerplate: PageTemplate | None,
    containers: tuple[str, ...], settings: ExtractionSettings, dates: tuple[datetime | None, ...],
    options: MarkdownOptions, structured: StructuredData,
) -> tuple[str, list[Line]] | None:
    """The text of the page's element that holds the website's documents and its rendered lines; None when the page
    holds none or its own reader finds a document elsewhere. Only the edges lose template, headline and byline lines:
    a line the author repeats on many pages (a "Fixed" heading) sits between the document's own, and stays."""
    comments = remove_comment_sections(document) if settings.comments_removed else []
    elements = container_elements(document, containers)
    if not elements:
        return None
    titles = page_titles(document) if settings.headline_left_out else ()
    template = {line_key(line) for line in boilerplate.lines(document)} if boilerplate is not None else set()
    authors = page_authors(document, structured.objects)
    _clear(document, removable + CONTAINER_CHROME_TAGS, None, settings)
    for landmark in document.xpath(NAVIGATION_LANDMARKS):
        landmark.drop_tree()  # a table of contents or a search box inside the container: navigation, as <nav> is
    # One walk gives both: the rendered lines' plain text is the elements' element_text, line for line.
    rendering = render_elements([e for e in elements if e.getparent() is not None], options)
    held = plain_of(rendering)
    own_words = sum(word_count(line) for line in held.split("\n") if line_key(line) not in template)
    if not WORD.search(held) or not reader_agrees(held, resiliparse_main_text(text, comments), own_words):
        return None
    lines = without_headline(held.replace("\n\n", "\n"), titles, settings)
    if settings.container_edges_trimmed:
        headings = {line_key(line.plain) for line in rendering if line.kind == "heading"}
        lines = _without_edge_lines(lines, template, headings)
        lines = _without_edge_lines(without_metadata_lines(lines, authors, dates, settings), template, headings)
    return normalize_whitespace(lines.replace("\n", "\n\n")), rendering


def _without_edge_lines(text: str, template: set[str], headings: set[str]) -> str:
    """``text`` without the template's lines before its first and after its last own line, less the ``headings``
    (keys) right above its first (a release's "Added"). When those lines hold most of its words, the "template" is the
    document itself, shown whole on another page (a month's archive of one post): ``text`` stays as it is."""
    lines = [line for line in text.split("\n") if line.strip()]
    own = [index for index, line in enumerate(lines) if line_key(line) not in template]
    start = own[0] if own else 0
    while own and start > 0 and line_key(lines[start - 1]) in headings:
        start -= 1
    kept = "\n".join(lines[start : own[-1] + 1]) if own else ""
    return kept if 2 * word_count(kept) >= word_count(text) else text


def _clear(
    document: html.HtmlElement, removable: tuple[str, ...], boilerplate: PageTemplate | None,
    settings: ExtractionSettings,
) -> list[str]:
    """Remove what no reader should see, in place: ``removable`` tags, permalinks, consent banners, the
    website's template (when given: the visible-text and ``markup`` readings keep every line they are given); returns
    the banners' CSS selectors."""
    etree.strip_elements(document, *removable, with_tail=False)
    remove_permalinks(document)
    consent_banners = remove_consent_banners(document) if settings.consent_banners_removed else []
    if boilerplate is not None:
        boilerplate.strip(document)
    return consent_banners


def _cleaned(
    text: str, removable: tuple[str, ...], boilerplate: PageTemplate | None, settings: ExtractionSettings
) -> html.HtmlElement:
    document = parse_html(text)
    _clear(document, removable, boilerplate, settings)
    return document


def _headings(document: html.HtmlElement, tag: str) -> list[str]:
    texts = (" ".join(text_content(node).split()).strip(" #↑🔗¶") for node in document.iter(tag))
    return [text for text in texts if text]


def _meta(document: html.HtmlElement, name: str) -> str | None:
    for meta in document.iter("meta"):
        if (meta.get("property") or meta.get("name") or "").strip().lower() == name and meta.get("content"):
            return meta.get("content").strip()
    return None


def _alternates(document: html.HtmlElement, url: str) -> list[dict[str, str]]:
    found: dict[tuple[str, str], None] = {}  # ordered, each once
    for link in document.iter("link"):
        if "alternate" in (link.get("rel") or "").lower().split() and (lang := normalize_lang(link.get("hreflang"))):
            if target := absolutize(link.get("href") or "", url):
                found[lang, target] = None
    return [{"lang": lang, "url": target} for lang, target in found]


def _same_host_canonical(document: html.HtmlElement, url: str) -> str | None:
    for link in document.iter("link"):
        if "canonical" in (link.get("rel") or "").lower().split():
            target = absolutize(link.get("href") or "", url)
            return target if target and urlsplit(target).netloc.lower() == urlsplit(url).netloc.lower() else None
    return None


def _looks_binary(text: str) -> bool:
    sample = text[:4000]
    return bool(sample) and len(_CONTROL_CHARS.findall(sample)) / len(sample) > 0.1
