"""Page metadata: title, date, excerpt and language."""

from __future__ import annotations

import re
from collections.abc import Callable
from copy import deepcopy
from datetime import datetime
from functools import cached_property, lru_cache
from typing import Any

from lxml import etree, html

from corpus_pipeline.core.dates import is_web_date, parse_date, to_utc
from corpus_pipeline.extract.page_chrome import chrome_detached, in_page_chrome, without_page_chrome
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.structured_data import ld_json_objects
from corpus_pipeline.extract.written_dates import declared_languages, may_hold_written_date, written_date

# A page's own date is written next to its title ("January 31, 2024 · Written by ..."; a category and date line
# above it): written dates are searched for from 200 characters of text before the page's first <h1> to 1,000 after
# it. On wcxb-dev's tuning part, every date that only a text search found lay within 600 characters after the h1
# but one (a "Last updated" at the foot of a short page); windows from 0/500 to 1,000/3,000 characters score within
# 0.006 of this one on both parts.
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


def clean_title(
    title: str | None, site_name: str | None = None, heading: str | None = None,
    settings: ExtractionSettings = DEFAULT_SETTINGS,
) -> str:
    """Drop site-name parts (``Post | Site``, ``Site - Post``) unless what remains is too short.

    The part that matches the page's first h1 wins; else the longest part.
    """
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


def page_date(document: html.HtmlElement) -> datetime | None:
    """Last modification (else publication) date declared by the page: ld+json, meta tags, <time>."""
    return _DeclaredDates(document).pick(_DATE_LD, _DATE_META)


def published_date(document: html.HtmlElement) -> datetime | None:
    """First publication date declared by the page: ld+json, meta tags, the first <time>."""
    return _DeclaredDates(document).pick(_PUBLISHED_LD, _PUBLISHED_META)


class _DeclaredDates:
    """What a page declares about its dates (ld+json, meta tags, ``<time>``), read once for both of its dates."""

    def __init__(self, document: html.HtmlElement) -> None:
        self._document = document

    @cached_property
    def _ld_dates(self) -> dict[str, datetime]:
        return _ld_json_dates(self._document)

    @cached_property
    def _metas(self) -> dict[str, str]:
        metas: dict[str, str] = {}
        for meta in self._document.iter("meta"):
            name = meta.get("property") or meta.get("name") or meta.get("itemprop")
            if name and meta.get("content"):
                metas.setdefault(name.strip().lower(), meta.get("content"))
        return metas

    @cached_property
    def _first_time(self) -> datetime | None:
        for node in self._document.iter("time"):
            value = None if in_page_chrome(node) else parse_date(node.get("datetime") or "")
            if value:
                return value
        return None

    def pick(self, ld_keys: tuple[str, ...], meta_keys: tuple[str, ...]) -> datetime | None:
        """The first date found under ``ld_keys`` in ld+json, then under ``meta_keys`` in meta tags, then in the first
        dated ``<time>`` outside the page's chrome."""
        for key in ld_keys:
            if self._ld_dates.get(key):
                return self._ld_dates[key]
        for key in meta_keys:
            value = parse_date(self._metas.get(key.lower(), ""))
            if value:
                return value
        return self._first_time


def page_dates(document: html.HtmlElement, url: str) -> tuple[datetime | None, datetime | None]:
    """The page's last modification date and its publication date: what the page declares (:func:`page_date`,
    :func:`published_date`), else htmldate's heuristics (:func:`heuristic_date`).

    The heuristics read ``document`` itself with its chrome taken out for the while (:func:`chrome_detached`) instead of
    a copy of it without its chrome; ``document`` is as it was on return.
    """
    declared = _DeclaredDates(document)
    modified, published = declared.pick(_DATE_LD, _DATE_META), declared.pick(_PUBLISHED_LD, _PUBLISHED_META)
    if modified is not None and published is not None:
        return modified, published
    with chrome_detached(document) as without_chrome:
        search = HeuristicDates(without_chrome, url, chrome_removed=True)
        return modified or search.find(), published or search.find(original=True)


def heuristic_date(document: html.HtmlElement, url: str, original: bool = False) -> datetime | None:
    """htmldate's heuristics when the page declares no date itself, on the page without its chrome.

    The website's header, footer, navigation and sidebars date the website, not the page ("since 2019",
    "© 2024"): they are left out (see :func:`without_page_chrome`).

    For the publication date (``original``) the search extends to dates written in the text next to the page's
    title ("Posted on 3 May", see :func:`text_near_title`), where pages put them; for the last modification it
    stays in the markup, because a date quoted in an article is a worse guess than the sitemap's lastmod that
    comes next.
    """
    return HeuristicDates(document, url).find(original)


class HeuristicDates:
    """:func:`heuristic_date` for both dates of one page, sharing one reading of the page without its chrome.

    With ``chrome_removed`` the tree given is that reading already (:func:`page_dates`); else the page without its
    chrome is a copy. Nothing here changes the tree given.
    """

    def __init__(self, document: html.HtmlElement, url: str, chrome_removed: bool = False) -> None:
        self._document, self._url, self._chrome_removed = document, url, chrome_removed

    @cached_property
    def _without_chrome(self) -> html.HtmlElement:
        return self._document if self._chrome_removed else without_page_chrome(self._document)

    @cached_property
    def _markup(self) -> MarkupDateSearch:
        return MarkupDateSearch(self._without_chrome, self._url)

    def find(self, original: bool = False) -> datetime | None:
        """The last modification date, or with ``original`` the publication date; None when none is found.

        Both search the markup (meta tags, ld+json, elements classed as dates, ``<time>``, ISO dates); the
        publication date then looks for a date written in the text next to the title, and only there: htmldate's
        extensive search over the whole page took a bare year from any paragraph (the Debian handbook's foreword's
        "1998", read as 1998-01-01) and cost ~5 ms of a page's ~34 ms of CPU there (this: ~2 ms).
        """
        found = self._markup.find(original)
        if found is not None or not original:
            return found
        near_title = text_near_title(self._without_chrome)
        if not may_hold_written_date(near_title):
            return None
        # Each text piece in a paragraph of its own, as htmldate's text search reads a page: one piece at a time;
        # dateparser, where htmldate would call it, reads English and the page's declared languages, not all of its
        # ~200 (see written_dates).
        try:
            written = written_date(near_title, declared_languages(self._document), True, _HTMLDATE_FORMAT)
        except (ValueError, TypeError):
            return None
        return parse_date(written) if written else None


class MarkupDateSearch:
    """htmldate's ``find_date`` without its extensive search (``extensive_search=False``), for both dates of one tree,
    sharing what both searches do alike.

    Each date takes find_date's steps in find_date's order, with the same functions, so each finds what find_date
    finds. Done once for both: the pruned copy of the page, its serialization, and the searches of it that read only
    the output format and the date bounds (timestamps and written dates in the HTML source, the text's timestamps).
    On a Debian handbook page, where both dates are searched for and neither is found, that was half of the two
    searches' ~2.5 ms. The tree given is left as it is.
    """

    def __init__(self, tree: html.HtmlElement, url: str | None) -> None:
        self._tree, self._url = tree, url
        self._done: set[bool] = set()  # the dates (``original``) whose searches need the pruned copy no more
        self._shared: dict[str, str | None] = {}

    def find(self, original: bool = False) -> datetime | None:
        """The last modification date, or with ``original`` the publication date; None when none is found."""
        try:
            found = self._find(original)
        except (ValueError, TypeError):
            return None
        except ImportError:  # an htmldate release that moved the functions: its own search, unshared
            return _htmldate(self._tree, self._url, original=original, extensive=False)
        finally:
            self._done.add(original)
        return parse_date(found) if found else None

    def _find(self, original: bool) -> str | None:
        from htmldate.core import (
            TIMESTAMP_LOOSE_PATTERN,
            TIMESTAMP_PATTERN,
            date_candidates,
            examine_abbr_elements,
            examine_elements,
            examine_header,
            examine_time_elements,
        )
        from htmldate.extractors import (
            extract_url_date,
            img_search,
            json_search,
            pattern_search,
        )
        from htmldate.utils import Extractor
        from htmldate.validators import get_max_date, get_min_date

        options = Extractor(False, get_max_date(None), get_min_date(None), original, _HTMLDATE_FORMAT)
        url = self._url
        if url is None:
            canonical = self._tree.find('.//link[@rel="canonical"]')
            url = canonical.get("href") if canonical is not None else None
        found = extract_url_date(url, options)
        if found is not None:
            return found
        found = examine_header(self._tree, options) or (json_search(self._tree, options) if self._has_script else None)
        if found is not None:
            return found
        found = examine_abbr_elements(self._tree, options)
        if found is not None:
            return found
        search_tree = self._search_tree
        # The elements' texts are read with the output format and the date bounds alone (not ``original``).
        found = self._once(
            "elements",
            lambda: examine_elements(date_candidates(search_tree, False), options)
            or examine_elements(search_tree.xpath(".//title|.//h1"), options),
        ) or examine_time_elements(search_tree, options)
        if found is not None:
            return found
        found = (
            self._once(
                "timestamp",
                lambda: pattern_search(self._source, TIMESTAMP_PATTERN, options) if self._may_hold_timestamp else None,
            )
            or img_search(search_tree, options)
            or self._once("written", lambda: idiosyncrasies(self._source, options))
        )
        if found is not None:
            return found
        self._done.add(original)
        # The text's dates are in the source too (a date has no character that serializing escapes): a source without
        # one spares reading the text (~0.3 ms; 820 of 889 Debian handbook pages).
        return self._once(
            "text timestamp",
            lambda: None if not self._may_hold_timestamp or TIMESTAMP_LOOSE_PATTERN.search(self._source) is None
            else pattern_search(self._text, TIMESTAMP_LOOSE_PATTERN, options),
        )

    def _once(self, name: str, search: Callable[[], str | None]) -> str | None:
        if name not in self._shared:
            self._shared[name] = search()
        return self._shared[name]

    @cached_property
    def _search_tree(self) -> html.HtmlElement:
        """The tree without what find_date prunes before its searches: a copy, or the tree itself when find_date's
        pruning would remove nothing from it (every Debian handbook page: the copy was ~1 % of a page's parse)."""
        from htmldate.extractors import DISCARD_EXPRESSIONS, discard_unwanted
        from htmldate.settings import CLEANING_LIST
        from htmldate.utils import clean_html

        # The Wayback Machine's banner (DISCARD_EXPRESSIONS: a div whose id is "wm-ipp" or "wm-ipp-base") has its id in
        # the tree's source, which the searches need anyway: looked for there, not by XPath (0.01 against 0.07 ms).
        if next(self._tree.iter(CLEANING_LIST), None) is None and (
            _BANNER_ID not in self._tree_source or not DISCARD_EXPRESSIONS(self._tree)
        ):
            return self._tree
        pruned = deepcopy(self._tree)
        try:
            return discard_unwanted(clean_html(pruned, CLEANING_LIST))
        except ValueError:  # find_date's own fallback (lxml refuses some control characters)
            return pruned

    @cached_property
    def _tree_source(self) -> str:
        from htmldate.core import serialize

        return serialize(self._tree)

    @cached_property
    def _source(self) -> str:
        from htmldate.core import serialize

        return self._tree_source if self._search_tree is self._tree else serialize(self._search_tree)

    @cached_property
    def _has_script(self) -> bool:
        """Whether the tree holds a script: htmldate's JSON search reads scripts only, and its XPath costs twice as much
        as this look (no Debian handbook page has a script)."""
        return next(self._tree.iter("script"), None) is not None

    @cached_property
    def _may_hold_timestamp(self) -> bool:
        """False when the source holds no ISO date (htmldate's TIMESTAMP_LOOSE_PATTERN, and so none of its
        TIMESTAMP_PATTERN either): it holds no "-MM-DD" (:data:`_MONTH_DAY`), found ~8x faster than the date, whose
        pattern starts with a digit; 806 of 889 Debian handbook pages."""
        return _MONTH_DAY.search(self._source) is not None

    @cached_property
    def _text(self) -> str:
        """The pruned tree's text without scripts and styles, as find_date reads it last."""
        from htmldate.utils import clean_html

        # Scripts and styles leave the pruned tree itself only when it is this search's own copy and no other date's
        # searches still need it, or when it has none (none of the Debian handbook's pages has any).
        tree = self._search_tree
        shared = tree is self._tree or self._done < {False, True}
        if shared and next(tree.iter("script", "style"), None) is not None:
            tree = deepcopy(tree)
        return " ".join(clean_html(tree, ["script", "style"]).itertext())


# What the id of the Wayback Machine's banner, which find_date prunes, holds ("wm-ipp", "wm-ipp-base").
_BANNER_ID = '"wm-ipp'
# The month and day of every ISO date htmldate reads ("-MM-DD" of its YEAR_RE-MONTH_RE-DAY_RE), as it writes them.
_MONTH_DAY = re.compile(r"-[0-1]?[0-9]-[0-3]?[0-9]")

# htmldate 1.11.0's idiosyncrasies_search: the numeric cores it looks around (at most this many), and how far.
_MAX_CORES = 1000
_CORE_WINDOW = 60
# The middle of every numeric core (htmldate's DATE_CORE_PATTERN, "14.4.14": up to 4 digits, a separator, 1 or 2
# digits, a separator, 2 to 4 digits), from its first separator on. Starting with a separator, it is found ~2.5x
# faster than the core, which starts with a digit; a core reaches at most 4 characters before its first separator and
# 8 after it.
_CORE_MIDDLE = re.compile(r"[./][0-9]{1,2}[./][0-9]{2}")
_CORE_BEFORE, _CORE_AFTER = 4, 8
# What every match of htmldate's TEXT_PATTERNS holds, within the match: "date", or a core whose first digit follows a
# space, a colon or the last letter of one of its cues (updated, posted, on, Datum, Stand, güncelleme, yayımlama,
# tarihi ...), or a Turkish "updated" / "published" after the date. Case-insensitive like TEXT_PATTERNS, so that a
# letter matches the same characters in both (i: also ı and İ). No cue in a window: no match there (~4x faster).
_TEXT_CUES = re.compile(r"date|[ :denmai][0-9]{1,4}[./][0-9]{1,2}[./][0-9]{2,4}|güncellendi|yayı[mn]landı", re.I)


def idiosyncrasies(source: str, options: Any) -> str | None:
    """htmldate's ``idiosyncrasies_search(source, options)``, the same answer, sooner when there is none (most pages).

    htmldate searches its date expressions in a window around each numeric core ("14.4.14"), one window after another;
    on a Debian handbook page ~20 windows that overlap (~0.5 ms, half of it finding the cores). A match in a window is
    a match in any range around it: where no range of :func:`core_ranges` holds one, no window does, and nothing is
    found; otherwise htmldate's own search gives the answer.
    """
    from htmldate.extractors import TEXT_PATTERNS, idiosyncrasies_search

    ranges = core_ranges(source)
    if ranges is not None and not any(
        _TEXT_CUES.search(source, *span) and TEXT_PATTERNS.search(source, *span) for span in ranges
    ):
        return None
    return idiosyncrasies_search(source, options)


def core_ranges(source: str) -> list[tuple[int, int]] | None:
    """Ranges of ``source``, in order, that together hold every window htmldate's idiosyncrasies_search looks at (60
    characters either side of each numeric core); None when there may be more than its 1,000 cores (it then searches
    the whole source).

    Each core holds a match of ``_CORE_MIDDLE`` at its first separator, which is either one of those found one after
    another or inside one (it started before the one found ended); no two cores share one found (a found match is at
    most 6 characters long, and cores do not overlap: the next core's first separator is at least 6 characters past
    this one's): so there are no more cores than matches found.
    """
    spans: list[tuple[int, int]] = []
    for count, middle in enumerate(_CORE_MIDDLE.finditer(source), 1):
        if count > _MAX_CORES:
            return None
        start = max(0, middle.start() - _CORE_BEFORE - _CORE_WINDOW)
        end = middle.end() + _CORE_AFTER + _CORE_WINDOW
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _htmldate(page: html.HtmlElement | str, url: str | None, *, original: bool, extensive: bool) -> datetime | None:
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
    # Without any <h1>, the window is the page's start, and the walk ends with it (most Debian handbook pages: their
    # titles are h2 and below).
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
            if title is not None and length >= title[1] + TITLE_TEXT_AFTER:
                break  # the rest of the page is past the window
            if untitled_end is not None and length >= untitled_end:
                break
    start, end = (title[0] - TITLE_TEXT_BEFORE, title[1] + TITLE_TEXT_AFTER) if title else (0, TITLE_TEXT_AFTER)
    return [
        piece for first, last, piece in pieces
        if last > start and first < end and not _NUMBERED_HEADING.fullmatch(piece)
    ]


def _ld_json_dates(document: html.HtmlElement) -> dict[str, datetime]:
    found: dict[str, datetime] = {}
    for item in ld_json_objects(document):
        for key in ("dateModified", "datePublished", "dateCreated"):
            if isinstance(item.get(key), str) and key not in found:
                value = parse_date(item[key])
                if value:
                    found[key] = value
    return found


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
        content = (meta.get("content") or "").strip()
        if name in ("og:description", "description", "twitter:description") and content:
            found.setdefault(name, content)
    for key in ("og:description", "description", "twitter:description"):
        if key in found:
            return re.sub(r"\s+", " ", found[key])
    return None


_LANG_SEPARATOR = re.compile(r"[-_]")
_TWO_LETTERS = re.compile(r"[a-z]{2}")


# Remembered: a page's alternates repeat the site's few codes on every page (~23 a Debian handbook page, whose
# parsing and matching again were ~0.05 ms of it).
@lru_cache(maxsize=1024)
def normalize_lang(code: str | None) -> str | None:
    """``en-US``, ``pt_br``, ``FR`` → two-letter lower-case codes; None when unusable."""
    if not code:
        return None
    primary = _LANG_SEPARATOR.split(code.strip().lower(), maxsplit=1)[0]
    return primary if _TWO_LETTERS.fullmatch(primary) else None


@lru_cache(maxsize=1)
def _identifier():
    from corpus_pipeline.extract.language_model import mapped_language_identifier

    return mapped_language_identifier()


def load_models() -> None:
    """Import htmldate and load the language model now: a worker does it once, before its first page, so the
    seconds it takes on a loaded machine are not charged to that page's time budget."""
    load_date_parser()
    _identifier()


def unload_language_model() -> None:
    """Let go of this process's language model: its mapped tables leave the process's RSS (the next detection maps
    them again, in milliseconds). For a process that detected a website's languages and moves on to other work."""
    _identifier.cache_clear()


def load_date_parser() -> None:
    """Import htmldate now (see :func:`load_models`), for a worker that leaves language detection to its parent."""
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
    """Declared (html lang), then hreflang hint, then detection, then the website default.

    Detection overrides a declaration only when it is confident on enough text: untranslated English copies
    published under /fr/ declare fr but are English.
    """
    declared = normalize_lang(declared) or normalize_lang(hint)
    detected, probability = detect_lang(text, settings)
    if declared:
        if (
            detected and detected != declared and probability >= settings.confident_detection
            and len(text) >= settings.min_text_for_detection
        ):
            return detected
        return declared
    if detected and probability >= settings.min_undeclared_detection:
        return detected
    return normalize_lang(default) or "en"
