"""Page metadata: title, date, excerpt and language."""

from __future__ import annotations

import re
from datetime import datetime
from functools import cached_property, lru_cache

from lxml import html

from corpus_pipeline.core.dates import parse_date, to_utc
from corpus_pipeline.extract.page_chrome import in_page_chrome, without_page_chrome
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.structured_data import ld_json_objects

TITLE_SEPARATORS = re.compile(r"\s+(?:\||-|–|—|_|::|·|»|/)\s+")

# Meta tags carrying a date, most specific (last modification) first.
_DATE_META = (
    "article:modified_time", "og:updated_time", "dateModified", "last-modified",
    "article:published_time", "datePublished", "date", "dc.date", "dcterms.date", "publishDate", "pubdate",
)
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
    return _declared_date(document, ("dateModified", "datePublished", "dateCreated"), _DATE_META)


def published_date(document: html.HtmlElement) -> datetime | None:
    """First publication date declared by the page: ld+json, meta tags, the first <time>."""
    return _declared_date(document, ("datePublished", "dateCreated"), _PUBLISHED_META)


def _declared_date(document: html.HtmlElement, ld_keys: tuple[str, ...], meta_keys: tuple[str, ...]) -> datetime | None:
    ld_dates = _ld_json_dates(document)
    for key in ld_keys:
        if ld_dates.get(key):
            return ld_dates[key]
    metas: dict[str, str] = {}
    for meta in document.iter("meta"):
        name = meta.get("property") or meta.get("name") or meta.get("itemprop")
        if name and meta.get("content"):
            metas.setdefault(name.strip().lower(), meta.get("content"))
    for key in meta_keys:
        value = parse_date(metas.get(key.lower(), ""))
        if value:
            return value
    for node in document.iter("time"):
        value = None if in_page_chrome(node) else parse_date(node.get("datetime") or "")
        if value:
            return value
    return None


def heuristic_date(document: html.HtmlElement, url: str, original: bool = False) -> datetime | None:
    """htmldate's heuristics when the page declares no date itself, on the page without its chrome.

    The website's header, footer, navigation and sidebars date the website, not the page ("since 2019",
    "© 2024"): they are left out (see :func:`without_page_chrome`).

    For the publication date (``original``) the search extends to dates written in the text ("Posted on
    3 May"), where pages put them; for the last modification it stays in the markup, because a date
    quoted in an article is a worse guess than the sitemap's lastmod that comes next.
    """
    return HeuristicDates(document, url).find(original)


class HeuristicDates:
    """:func:`heuristic_date` for both dates of one page, sharing one copy of the page without its chrome.

    Copying the tree and finding its chrome cost as much as a tenth of a page's parse (python3.11-doc and the
    Debian handbook); htmldate copies any tree it is given before pruning it, so one search leaves the shared
    copy as it was for the other.
    """

    def __init__(self, document: html.HtmlElement, url: str) -> None:
        self._document, self._url = document, url

    @cached_property
    def _without_chrome(self) -> html.HtmlElement:
        return without_page_chrome(self._document)

    def find(self, original: bool = False) -> datetime | None:
        """The last modification date, or with ``original`` the publication date; None when none is found."""
        from htmldate import find_date

        try:
            found = find_date(
                self._without_chrome,
                extensive_search=original,
                original_date=original,
                outputformat="%Y-%m-%dT%H:%M:%S%z",
                url=self._url,
            )
        except (ValueError, TypeError):
            return None
        return parse_date(found) if found else None


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
    """The first known date, converted to UTC."""
    for value in (text_date, *candidates):
        if value is not None:
            return to_utc(value)
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


def normalize_lang(code: str | None) -> str | None:
    """``en-US``, ``pt_br``, ``FR`` → two-letter lower-case codes; None when unusable."""
    if not code:
        return None
    primary = re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]
    return primary if re.fullmatch(r"[a-z]{2}", primary) else None


@lru_cache(maxsize=1)
def _identifier():
    from corpus_pipeline.extract.language_model import mapped_language_identifier

    return mapped_language_identifier()


def load_models() -> None:
    """Import htmldate and load the language model now: a worker does it once, before its first page, so the
    seconds it takes on a loaded machine are not charged to that page's time budget."""
    import htmldate  # noqa: F401 - imported for its side effect: loaded once, before any page

    _identifier()


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
