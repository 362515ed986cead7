"""Page metadata: title, date, excerpt and language."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from html import escape

from lxml import etree, html

from corpus_pipeline.core.dates import is_web_date, parse_date, to_utc
from corpus_pipeline.core.memory import malloc_trimmed
from corpus_pipeline.extract.page_chrome import chrome_detached, detached, in_page_chrome
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings

# A page's own date is written next to its title ("January 31, 2024 · Written by ..."): searched for from 200
# characters before its first <h1> to 1,000 after (wcxb-dev: windows 0/500 to 1,000/3,000 score within 0.006).
TITLE_TEXT_BEFORE = 200
TITLE_TEXT_AFTER = 1000
# A numbered heading's text ("6.7.3.4. Files not owned by any Package"): htmldate sends it to dateparser, which
# never reads a date in it but costs a worker ~1 CPU s and 28 MiB of locales the first time, ~17 ms a call after.
_NUMBERED_HEADING = re.compile(r"\d{1,3}(?:\.\d{1,3}){2,}\.\s+\D+")
_HTMLDATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"
# Elements whose text is not the page's visible text (a script's dates are ld+json's, read as metadata).
_NO_VISIBLE_TEXT = frozenset(("script", "style", "noscript", "template"))

TITLE_SEPARATORS = re.compile(r"\s+(?:\||-|–|—|_|::|·|»|/)\s+")

# Meta tags carrying a date, most specific (last modification) first.
_DATE_META = (
    "article:modified_time", "og:updated_time", "dateModified", "last-modified",
    "article:published_time", "datePublished", "date", "dc.date", "dcterms.date", "publishDate", "pubdate",
)
# The same in ld+json.
_DATE_LD = ("dateModified", "datePublished", "dateCreated")
_PUBLISHED_LD = ("datePublished", "dateCreated")
# Meta tags carrying the first publication date, most specific first.
_PUBLISHED_META = (
    "article:published_time", "datePublished", "date", "dc.date", "dcterms.date", "dc.date.issued",
    "publishDate", "pubdate", "sailthru.date", "parsely-pub-date",
)
# The meta tags htmldate reads for the last modification alone (its publication search passes them by).
_MODIFIED_ITEMPROPS = frozenset(("datemodified", "dateupdate"))
_DESCRIPTIONS = ("og:description", "description", "twitter:description")  # the excerpt's, most telling first


def clean_title(
    title: str | None, site_name: str | None = None, heading: str | None = None,
    settings: ExtractionSettings = DEFAULT_SETTINGS,
) -> str:
    """Drop site-name parts (``Post | Site``, ``Site - Post``): the part matching the page's first h1 (``heading``)
    wins, else the longest part unless it is too short (then the whole title)."""
    title = re.sub(r"\s+", " ", title or "").strip()
    parts = [p.strip() for p in TITLE_SEPARATORS.split(title) if p.strip()]
    if len(parts) < 2:
        return title
    if site_name:
        kept = [p for p in parts if p.lower() != site_name.strip().lower()]
        if kept and len(kept) < len(parts):
            parts = kept
            if len(parts) == 1:
                return parts[0]
    if heading:
        wanted = " ".join(heading.split()).lower()
        for part in parts:
            if part.lower() == wanted or (len(part) > 8 and (part.lower() in wanted or wanted in part.lower())):
                return part
    best = max(parts, key=len)
    return best if len(best.split()) >= settings.min_title_words else title


def _declared_dates(document: html.HtmlElement, ld: tuple[dict, ...]) -> list[datetime | None]:
    """The last modification and the publication date the page declares: for each, the first found under its keys in
    ``ld`` (its ld+json objects), then in meta tags, then in the first dated ``<time>`` outside the page's chrome."""
    dated: dict[str, datetime] = {}
    for item in ld:
        for key in _DATE_LD:
            if isinstance(item.get(key), str) and key not in dated and (value := parse_date(item[key])):
                dated[key] = value
    metas: dict[str, str] = {}
    for meta in document.iter("meta"):
        name = meta.get("property") or meta.get("name") or meta.get("itemprop")
        if name and meta.get("content"):
            metas.setdefault(name.strip().lower(), meta.get("content"))
    found = [
        next((dated[key] for key in ld_keys if key in dated), None)
        or next(filter(None, (parse_date(metas.get(key.lower(), "")) for key in meta_keys)), None)
        for ld_keys, meta_keys in ((_DATE_LD, _DATE_META), (_PUBLISHED_LD, _PUBLISHED_META))
    ]
    if None in found:
        times = (parse_date(node.get("datetime") or "") for node in document.iter("time") if not in_page_chrome(node))
        first_time = next(filter(None, times), None)
        found = [value or first_time for value in found]
    return found


def page_dates(document: html.HtmlElement, url: str, ld: tuple[dict, ...]) -> tuple[datetime | None, datetime | None]:
    """The page's last modification date and its publication date: what the page declares (``ld``, its ld+json
    objects, meta tags, the first dated ``<time>`` outside its chrome), else :func:`heuristic_date`'s on ``document``
    with its chrome detached for the while (``document`` is as it was on return)."""
    modified, published = _declared_dates(document, ld)
    if modified is not None and published is not None:
        return modified, published
    # find_date answers the date a URL writes (/2023/11/24/post/) for either date before it reads the page: a dated
    # URL needs no heuristic search, only this cheap one on an empty page.
    if (dated := _htmldate("<html><body></body></html>", url, original=False, extensive=False)) is not None:
        return modified or dated, published or dated
    with chrome_detached(document) as without_chrome:
        marked = published or markup_date(without_chrome, url, original=True)
        # htmldate's two markup searches read the same candidates, but for the meta tags of _MODIFIED_ITEMPROPS, and
        # differ in which they prefer: where the publication date's finds none, the last modification's finds none
        # either (a property test holds this, as do the 3,000 pages of the benchmarks). A dateless page pays for one.
        if modified is None and (marked is not None or _names_modification(without_chrome)):
            modified = markup_date(without_chrome, url)
        return modified, marked or written_date(without_chrome)


def _names_modification(document: html.HtmlElement) -> bool:
    """Whether a meta tag of ``document`` declares a last modification only htmldate's search for it reads."""
    return any((meta.get("itemprop") or "").lower() in _MODIFIED_ITEMPROPS for meta in document.iter("meta"))


def heuristic_date(document: html.HtmlElement, url: str, original: bool = False) -> datetime | None:
    """htmldate's guess at the last modification date, or with ``original`` the publication date (None: none found),
    of ``document``, a page without its chrome ("© 2024" dates the website), which is not changed. Both search the
    markup (:func:`markup_date`); the publication date then the text near the title (:func:`written_date`); a date
    quoted in an article is a worse last modification than the sitemap's lastmod."""
    found = markup_date(document, url, original)
    if found is not None or not original:
        return found
    return written_date(document)


def markup_date(document: html.HtmlElement, url: str, original: bool = False) -> datetime | None:
    """htmldate's markup search for the last modification date, or with ``original`` the publication date, of
    ``document`` without its code blocks (``<pre>``, detached for the while): a date in a code sample (a test's
    fixture, a source file's ``$Date$``) is the sample's, and a highlighter's spans are most of a docs page's
    elements, each of which the search reads. A date written in a preformatted block next to the title is still read
    there (:func:`written_date`)."""
    blocks = [pre for pre in document.iter("pre") if next(pre.iterancestors("pre"), None) is None]
    with detached(document, blocks) as without_code:
        return _htmldate(without_code, url, original=original, extensive=False)


def written_date(document: html.HtmlElement) -> datetime | None:
    """The publication date htmldate's extensive search reads in the text near the title of ``document`` (a page
    without its chrome) only (:func:`text_near_title`: the whole text gives any paragraph's bare year)."""
    near_title = text_near_title(document)
    if not may_hold_written_date(near_title):
        return None
    return _htmldate(_text_page(near_title), None, original=True, extensive=True)


def _text_page(pieces: list[str]) -> str:
    """An HTML page of ``pieces``, each in a paragraph of its own, as htmldate's text search reads a page: one piece
    at a time (its patterns never match across ``</p><p>``)."""
    return "<html><body>" + "".join(f"<p>{escape(piece)}</p>" for piece in pieces) + "</body></html>"


# find_date's text searches need 4 digits in one piece of text: a year, or a day, a month and a two-digit year
# ("1/5/24"); htmldate parses only pieces of 4 to 18 digits. A property test checks this against find_date.
_MIN_DATE_DIGITS = 4


def may_hold_written_date(pieces: Iterable[str]) -> bool:
    """False when htmldate's extensive search cannot find a date in ``pieces``: none of them holds 4 digits (most
    often section numbers); far cheaper than the search."""
    return any(sum(map(str.isdigit, piece)) >= _MIN_DATE_DIGITS for piece in pieces)


def _htmldate(page: html.HtmlElement | str, url: str | None, *, original: bool, extensive: bool) -> datetime | None:
    """htmldate's ``find_date`` of ``page`` as a datetime (None when it finds none or fails on the page)."""
    from htmldate import find_date

    try:
        found = find_date(
            page, extensive_search=extensive, original_date=original, outputformat=_HTMLDATE_FORMAT, url=url
        )
    except (ValueError, TypeError):
        return None
    return parse_date(found) if found else None


def text_near_title(document: html.HtmlElement) -> list[str]:
    """The pieces of the page's visible text (whitespace-normalized, in order) around its first ``<h1>``: from
    TITLE_TEXT_BEFORE characters before it to TITLE_TEXT_AFTER after it; the page's first TITLE_TEXT_AFTER
    characters when it has no ``<h1>``. A piece that crosses either edge is kept whole; numbered headings
    ("6.7.3.4. Files not owned by any Package") are left out: they hold no date."""
    body = document.find("body")
    root = body if body is not None else document
    pieces: list[tuple[int, int, str]] = []  # start, end (characters of text before it, and with it), text
    title: tuple[int, int] | None = None
    stack: list[tuple[etree._Element, int | None]] = [(root, None)]
    length = 0
    # Without any <h1> (titles in h2 and below), the window is the page's start, and the walk ends with it.
    untitled_end = TITLE_TEXT_AFTER if next(root.iter("h1"), None) is None else None
    while stack:
        node, opened_at = stack.pop()
        if opened_at is not None:  # leaving ``node``: its text and its children's are counted; its tail follows
            if title is None and node.tag == "h1" and length > opened_at:
                title = (opened_at, length)
            piece = " ".join((node.tail or "").split()) if node is not root else ""
        elif not isinstance(node.tag, str) or node.tag in _NO_VISIBLE_TEXT:
            piece = " ".join((node.tail or "").split())
        else:
            stack.append((node, length))
            stack.extend((child, None) for child in reversed(node))
            piece = " ".join((node.text or "").split())
        if piece:
            pieces.append((length, length + len(piece), piece))
            length += len(piece)
            end = title[1] + TITLE_TEXT_AFTER if title is not None else untitled_end
            if end is not None and length >= end:
                break  # the rest of the page is past the window
    start, end = (title[0] - TITLE_TEXT_BEFORE, title[1] + TITLE_TEXT_AFTER) if title else (0, TITLE_TEXT_AFTER)
    return [
        piece for first, last, piece in pieces
        if last > start and first < end and not _NUMBERED_HEADING.fullmatch(piece)
    ]


def fallback_date(text_date: datetime | None, *candidates: datetime | None) -> datetime | None:
    """The first known date that can date a web document (an HTTP ``Last-Modified`` of 1970-01-01, a server's
    clock at zero, cannot), converted to UTC."""
    for value in (text_date, *candidates):
        if value is not None and is_web_date(moment := to_utc(value)):
            return moment
    return None


def excerpt_of(document: html.HtmlElement) -> str | None:
    """OpenGraph description, else meta description, else Twitter description."""
    found: dict[str, str] = {}
    for meta in document.iter("meta"):
        name = (meta.get("property") or meta.get("name") or "").strip().lower()
        if name in _DESCRIPTIONS and (content := (meta.get("content") or "").strip()):
            found.setdefault(name, content)
    return next((re.sub(r"\s+", " ", found[key]) for key in _DESCRIPTIONS if key in found), None)


_LANG_SEPARATOR = re.compile(r"[-_]")
_TWO_LETTERS = re.compile(r"[a-z]{2}")


# Remembered: a page's alternates repeat the site's few codes on every page.
@lru_cache(maxsize=1024)
def normalize_lang(code: str | None) -> str | None:
    """``en-US``, ``pt_br``, ``FR`` → two-letter lower-case codes; None when unusable."""
    if not code:
        return None
    primary = _LANG_SEPARATOR.split(code.strip().lower(), maxsplit=1)[0]
    return primary if _TWO_LETTERS.fullmatch(primary) else None


@lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def unload_language_model() -> None:
    """Let go of this process's language model (~100 MiB; the next detection loads it again, in ~0.4 s). For a process
    that detected a website's languages and moves on to other work."""
    _identifier.cache_clear()
    malloc_trimmed()  # the model's arrays are freed: hand their pages back


def load_date_parser() -> None:
    """Import htmldate now: a worker does it once, before its first page, so the seconds it takes on a loaded machine
    are not charged to that page's time budget (language detection stays with its parent)."""
    import htmldate  # noqa: F401 - imported for its side effect: loaded once, before any page


def detect_lang(text: str, settings: ExtractionSettings = DEFAULT_SETTINGS) -> tuple[str | None, float]:
    """Detected language of a text and its probability (None, 0.0 for too little text)."""
    sample = text[: settings.detection_sample_chars]
    if len(sample.strip()) < settings.min_detection_chars:
        return None, 0.0
    lang, probability = _identifier().classify(sample)
    return normalize_lang(lang), float(probability)


def choose_lang(
    declared: str | None, hint: str | None, text: str, default: str, settings: ExtractionSettings = DEFAULT_SETTINGS
) -> str:
    """Declared (html lang), then hreflang hint, then detection, then the website default. Detection overrides a
    declaration only when confident on enough text (untranslated English copies under /fr/ declare fr)."""
    declared = normalize_lang(declared) or normalize_lang(hint)
    if declared and len(text) < settings.min_text_for_detection:
        return declared  # too short a text to override the declaration: no detection needed
    detected, probability = detect_lang(text, settings)
    if declared:  # the text is long enough here (see above): a confident detection overrides the declaration
        if detected and detected != declared and probability >= settings.confident_detection:
            return detected
        return declared
    if detected and probability >= settings.min_undeclared_detection:
        return detected
    return normalize_lang(default) or "en"
