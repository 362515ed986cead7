"""Dates written in the text next to a page's title ("Posted on 3 May 2024"), read as htmldate's extensive search
reads them, with dateparser restricted to the page's declared language and English.

htmldate hands a text piece that its own parsers cannot read, but that looks like a date, to dateparser. Its
dateparser reads every language it knows (``DateDataParser(languages=None)``): for a string no language dates (the
Debian handbook's Chinese "2019 年 8 月"), the first such call loads all of its ~200 languages' locales, ~44 MiB and
~2 CPU s in each parsing worker that meets one (9 MiB and 0.2 s with one or two languages). Over the Debian handbook,
wcxb-dev and the article benchmark (4,345 pages), 13 pages reached dateparser, 5 got a date from it, all in English,
and none of those decided ``published``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from html import escape
from typing import Any

from lxml import html

# Always read: English dates are written on pages in every language ("Dec. 19, 2025"), and undeclared pages are
# mostly English.
_ALWAYS = "en"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_CONTENT_LANGUAGE = './head/meta[translate(@http-equiv, "CONTENTLAGU", "contentlagu")="content-language"]/@content'
# htmldate's own dateparser settings (``htmldate.extractors.get_external_parser``), the languages aside.
_DATEPARSER_SETTINGS = {
    "NORMALIZE": True,
    "PARSERS": ["custom-formats", "absolute-time"],
    "PREFER_DATES_FROM": "past",
    "PREFER_LOCALE_DATE_ORDER": True,
    "RETURN_AS_TIMEZONE_AWARE": False,
    "STRICT_PARSING": True,
}


# Each of find_date's steps in :func:`written_date` needs 4 digits at least in one piece of text: a year (its patterns'
# years have 4), or a day, a month and a two-digit year ("1/5/24", a numeric core "1.5.24"), each within one piece (the
# pieces' paragraphs are apart in its source: no pattern matches across "</p><p>"), and htmldate sends a text piece
# to its date parsers only with 4 to 18 digits (``str.isdigit``, which holds for every digit its patterns read).
_MIN_DATE_DIGITS = 4


def may_hold_written_date(pieces: Iterable[str]) -> bool:
    """False when :func:`written_date` cannot find a date in ``pieces``: none of them holds 4 digits (the text next to
    the title of ~70 % of Debian handbook pages: section numbers), counted in microseconds instead of its ~1 ms."""
    return any(sum(map(str.isdigit, piece)) >= _MIN_DATE_DIGITS for piece in pieces)


def declared_languages(document: html.HtmlElement) -> tuple[str, ...]:
    """The language tags the page declares (``<html lang>``, ``xml:lang``, a Content-Language meta), sorted, without
    duplicates. Read without dateparser: most pages never need it."""
    declared = [document.get("lang"), document.get(_XML_LANG)]
    declared.extend(document.xpath(_CONTENT_LANGUAGE))
    tags = {tag.strip() for value in declared for tag in str(value or "").replace("_", "-").split(",")}
    return tuple(sorted(tag for tag in tags if tag))


@lru_cache(maxsize=8)
def _dateparser_languages(tags: tuple[str, ...]) -> tuple[str, ...]:
    """dateparser's codes for ``tags``, and English; a language dateparser does not know is left out."""
    from dateparser.data.languages_info import language_order  # type: ignore[import-untyped]

    known = frozenset(language_order)
    codes = {_ALWAYS}
    for tag in tags:
        parts = tag.split("-")
        scripted = f"{parts[0].lower()}-{parts[1].title()}" if len(parts) > 1 else ""
        if scripted in known:  # zh-Hant, sr-Latn: dateparser's own spelling
            codes.add(scripted)
        elif parts[0].lower() in known:  # pt-BR -> pt
            codes.add(parts[0].lower())
    return tuple(sorted(codes))


def written_date(pieces: Iterable[str], languages: tuple[str, ...], original: bool, outputformat: str) -> str | None:
    """What htmldate's ``find_date(page, extensive_search=True, original_date=original)`` answers for a page made of
    ``pieces``, one paragraph of plain text each, but with dateparser reading only English and the languages tagged
    ``languages`` (:func:`declared_languages`).

    The page holds no element with attributes, no metadata, no time or image element: of find_date's steps, only
    those that read its source and its texts can find a date, and they are taken here in find_date's order, with
    htmldate's own functions.
    """
    from htmldate.core import TIMESTAMP_PATTERN, serialize
    from htmldate.extractors import (
        FREE_TEXT_EXPRESSIONS,
        discard_unwanted,
        idiosyncrasies_search,
        pattern_search,
        try_date_expr,
    )
    from htmldate.settings import CLEANING_LIST, MAX_SEGMENT_LEN, MIN_SEGMENT_LEN
    from htmldate.utils import Extractor, clean_html, load_html
    from htmldate.validators import (
        REFERENCE_FORMAT,
        check_extracted_reference,
        compare_values,
        get_max_date,
        get_min_date,
    )

    tree = load_html("<html><body>" + "".join(f"<p>{escape(piece)}</p>" for piece in pieces) + "</body></html>")
    if tree is None:
        return None
    options = Extractor(True, get_max_date(None), get_min_date(None), original, outputformat)
    search_tree = discard_unwanted(clean_html(tree, CLEANING_LIST))
    source = serialize(search_tree)
    found = pattern_search(source, TIMESTAMP_PATTERN, options) or idiosyncrasies_search(source, options)
    if found is not None:
        return found
    reference: datetime | None = None
    for segment in FREE_TEXT_EXPRESSIONS(search_tree):
        segment = segment.strip()
        if not MIN_SEGMENT_LEN < len(segment) < MAX_SEGMENT_LEN:
            continue
        # htmldate's own parsers first (its try_date_expr without dateparser), then dateparser where it would go.
        attempt = try_date_expr(segment, REFERENCE_FORMAT, False, options.min, options.max)
        if attempt is None:
            attempt = _dateparser_date(segment, languages, options.min, options.max)
        if attempt is not None:
            reference = compare_values(reference, attempt, options)
    return check_extracted_reference(reference, options) or page_search(source, options)


def page_search(source: str, options: Any) -> str | None:
    """htmldate's ``search_page(source, options)``, the same answer, in microseconds when ``source`` holds neither a
    year htmldate reads (``YEAR_RE``: 1990-2039) nor a "DD/MM/YY" date (its ``SLASHES_PATTERN``).

    Each of search_page's steps but the "DD/MM/YY" one keeps a candidate only with such a year in it (its copyright
    notice, three and two components, written dates, a lone year); that search was ~0.5 ms of a text next to a title,
    and 421 of 467 such texts on every 3rd Debian handbook page hold neither.
    """
    from htmldate.core import SLASHES_PATTERN, search_page

    if _year_pattern().search(source) is None and SLASHES_PATTERN.search(source) is None:
        return None
    return search_page(source, options)


@lru_cache(maxsize=1)
def _year_pattern() -> re.Pattern[str]:
    """htmldate's year (``YEAR_RE``) on its own."""
    from htmldate.extractors import YEAR_RE

    return re.compile(YEAR_RE)


def _dateparser_date(segment: str, languages: tuple[str, ...], earliest: datetime, latest: datetime) -> str | None:
    """The date (in htmldate's REFERENCE_FORMAT) that ``languages``' dateparser reads in ``segment``, if the string
    passes the checks by which htmldate's ``try_date_expr`` sends a string to dateparser; else None."""
    from htmldate.extractors import (
        DAY_TOKEN,
        DISCARD_PATTERNS,
        TEXT_DATE_PATTERN,
        WORD,
        YEAR_OR_MONTH,
        _fold_month_name,
    )
    from htmldate.settings import MAX_SEGMENT_LEN
    from htmldate.utils import trim_text
    from htmldate.validators import REFERENCE_FORMAT, validate_and_convert

    string = trim_text(segment)[:MAX_SEGMENT_LEN]
    if not string or not 4 <= sum(map(str.isdigit, string)) <= 18 or DISCARD_PATTERNS.search(string):
        return None
    if not TEXT_DATE_PATTERN.search(string) or not DAY_TOKEN.search(string):
        return None
    # htmldate's date cue: the first year or English month decides; else a month name of a language read.
    cue = YEAR_OR_MONTH.search(string)
    if cue is not None:
        if cue[0].isdigit() and not earliest.year <= int(cue[0]) <= latest.year:
            return None
    elif not any(_fold_month_name(word) in _month_words(languages) for word in WORD.findall(string)):
        return None
    try:
        parsed = _date_parser(languages).get_date_data(string)["date_obj"]
    except (OverflowError, ValueError):  # the two errors htmldate expects from dateparser
        return None
    return validate_and_convert(parsed, REFERENCE_FORMAT, earliest=earliest, latest=latest)


@lru_cache(maxsize=8)
def _date_parser(languages: tuple[str, ...]) -> Any:
    """dateparser's parser for ``languages`` with htmldate's settings, made once per worker and language set: its
    locales are loaded as it first reads them, and kept."""
    from dateparser import DateDataParser  # type: ignore[import-untyped]

    return DateDataParser(languages=list(_dateparser_languages(languages)), settings=_DATEPARSER_SETTINGS)


@lru_cache(maxsize=8)
def _month_words(languages: tuple[str, ...]) -> frozenset[str]:
    """Month names of ``languages``' locales, folded as htmldate folds them (its ``month_words``, for these only)."""
    from dateparser.languages.loader import default_loader  # type: ignore[import-untyped]
    from htmldate.extractors import MONTH_KEYS, WORD, _fold_month_name

    return frozenset(
        _fold_month_name(word)
        for locale in default_loader.get_locales(languages=list(_dateparser_languages(languages)))
        for key in MONTH_KEYS
        for word in locale.info.get(key, [])
        if WORD.fullmatch(word)
    )
