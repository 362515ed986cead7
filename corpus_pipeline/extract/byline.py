"""A reading's byline, dateline and reading-time lines: the page's metadata written out, not its text.

A line among the reading's first and last few is one when every word of it is the page's metadata: an author its
markup names, one of its dates written out, a byline's own words ("by", "posted", "min read"); both benchmarks' truth
leaves them out. A closing author's note ("Jane Doe is a staff writer ..."), a share bar ("Share this article") and
the page's tags ("Tags: Health, Fitness") at those edges go too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta

from lxml import html

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.text import WORD

_AUTHOR_META = frozenset({"author", "article:author", "parsely-author", "sailthru.author", "byl", "dc.creator"})
_MONTHS = (
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may", "may"), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec"),
)
# The words a byline, a dateline or a reading time is written with, around the names and dates themselves.
_BYLINE_WORDS = frozenset({
    "by", "and", "on", "at", "posted", "published", "updated", "last", "written", "author", "authored", "date",
    "modified", "am", "pm", "min", "mins", "minute", "minutes", "read", "reading", "time", "est", "edt", "gmt",
    "utc", "th", "st", "nd", "rd",
})
# Words that make a line a byline on their own, with no name or date in it ("Written by", "Posted on").
_LABEL_WORDS = frozenset({"by", "posted", "published", "updated", "written"})
# A share bar's words ("Share this article", "Link copied!"): the page's buttons, written out next to its byline.
_SHARE_WORDS = frozenset({
    "share", "this", "post", "article", "story", "page", "on", "via", "facebook", "twitter", "x", "linkedin", "email",
    "e", "mail", "pinterest", "whatsapp", "reddit", "copy", "link", "copied", "print", "tweet", "pin", "it",
    "flipboard", "threads", "bluesky", "telegram", "messenger", "sms", "text", "url",
})
_SHARE_ACTIONS = frozenset({"share", "copied", "tweet", "print"})
# The page's categories and tags, under their label: "Tags: Health, Fitness", "Posted in News", a bare "Topics".
_TAXONOMY = re.compile(r"\W*(?:(?:tags|categories|category|topics)\s*(?::|$)|(?:posted in|filed under|tagged)\b)", re.I)


def page_authors(document: html.HtmlElement, ld: tuple[dict, ...]) -> tuple[str, ...]:
    """The names of the page's authors as its ld+json objects ``ld`` and ``<meta>`` tags declare them (``rel`` and
    ``itemprop`` author elements named none these missed on wcxb-dev's tuning articles, and cost a scan of the tree)."""
    names: list[str] = []
    for item in ld:
        names += _names(item.get("author")) + _names(item.get("creator"))
    for meta in document.iter("meta"):
        key = (meta.get("name") or meta.get("property") or "").strip().lower()
        if key in _AUTHOR_META and meta.get("content"):
            names.append(meta.get("content", ""))
    return tuple(dict.fromkeys(" ".join(name.split()) for name in names if name and "/" not in name))


def _names(value: object) -> list[str]:
    """Author names in an ld+json ``author`` value: a string, a Person (its ``name``) or a list of them."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [value["name"]] if isinstance(value.get("name"), str) else []
    if isinstance(value, list):
        return [name for item in value for name in _names(item)]
    return []


def metadata_words(authors: Iterable[str], dates: Iterable[datetime | None]) -> tuple[frozenset[str], frozenset[str]]:
    """The words a line of the page's metadata may hold, and among them the ones only that page's metadata has
    (its authors' names, its dates' numbers and month names): a byline names one of them."""
    own: set[str] = set()
    for name in authors:
        own.update(WORD.findall(name.lower()))
    for date in dates:
        if date is not None:
            own.update(word for day in _around(date) for word in _date_words(day))
    own -= _BYLINE_WORDS
    return frozenset(own | _BYLINE_WORDS), frozenset(own)


def _around(date: datetime) -> Iterator[datetime]:
    """The date and the days either side of it: the page may write its date in another time zone than ours."""
    for shift in (-1, 0, 1):
        try:
            yield date + timedelta(days=shift)
        except OverflowError:  # a page dated the first or last day datetime holds (0001-01-01, 9999-12-31)
            continue


def _date_words(date: datetime) -> set[str]:
    """The words ``date`` may be written with: "3 March 2024", "Mar 03", "March 3rd", "03.03.24", "2024-03-03"."""
    numbers = (str(date.day), f"{date.day:02d}", str(date.month), f"{date.month:02d}")
    ordinal = str(date.day) + ("th" if 10 <= date.day <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(date.day % 10, "th"))
    return {*numbers, ordinal, str(date.year), f"{date.year % 100:02d}", *_MONTHS[date.month - 1]}


def is_metadata_line(line: str, allowed: frozenset[str], own: frozenset[str], settings: ExtractionSettings) -> bool:
    """Whether every word of ``line`` is the page's metadata, and it names some of it (or is a byline's label)."""
    words = WORD.findall(line.lower())
    if not words or len(words) > settings.max_metadata_line_words:
        return False
    # A number not among the dates' words: hours or minutes ("09:27" reads as two words), or a reading time's.
    if any(not (word in allowed or (word.isdigit() and (len(word) <= 2 or "read" in words))) for word in words):
        return False
    return any(word in own or word in _LABEL_WORDS for word in words) or "read" in words


def is_share_line(line: str, settings: ExtractionSettings = DEFAULT_SETTINGS) -> bool:
    """Whether ``line`` is a share bar's text: only its words, and one of its actions ("Share", "Link copied")."""
    words = set(WORD.findall(line.lower()))
    return len(words) <= settings.max_metadata_line_words and words <= _SHARE_WORDS and bool(words & _SHARE_ACTIONS)


def is_taxonomy_line(line: str, settings: ExtractionSettings = DEFAULT_SETTINGS) -> bool:
    """Whether ``line`` lists the page's categories or tags under their label."""
    return _TAXONOMY.match(line) is not None and len(WORD.findall(line)) <= settings.max_metadata_line_words


def full_names(authors: Iterable[str], settings: ExtractionSettings = DEFAULT_SETTINGS) -> list[list[str]]:
    """The words of each author's name that is a person's full name (two to ``settings.max_author_name_words``
    words): a single word names a team or a site, which its own text may well open a sentence with."""
    names = []
    for author in authors:
        words = WORD.findall(author.lower())
        if words[:1] == ["by"]:
            words = words[1:]
        if 2 <= len(words) <= settings.max_author_name_words:
            names.append(words)
    return names


def is_author_bio(line: str, names: list[list[str]], settings: ExtractionSettings) -> bool:
    """Whether ``line`` opens with an author's full name and goes on ("Jane Doe is a staff writer ..."): the note
    about the author that closes a story."""
    words = WORD.findall(line.lower())
    return len(words) >= settings.min_author_bio_words and any(words[: len(name)] == name for name in names)


def without_metadata_lines(
    text: str, authors: tuple[str, ...], dates: Iterable[datetime | None],
    settings: ExtractionSettings = DEFAULT_SETTINGS,
) -> str:
    """``text`` (one block per line) without the metadata, share-bar and tag lines among its first and last
    ``settings.metadata_edge_lines`` lines, and without an author's note among its last ones."""
    lines = text.split("\n")
    edge = settings.metadata_edge_lines
    if edge <= 0:
        return text
    allowed, own = metadata_words(authors, dates)
    names = full_names(authors, settings)
    filled = [index for index, line in enumerate(lines) if line.strip()]
    head, tail = set(filled[:edge]), set(filled[-edge:])
    dropped = {
        index for index in head | tail
        if is_metadata_line(lines[index], allowed, own, settings) or is_share_line(lines[index], settings)
        or is_taxonomy_line(lines[index], settings)
        or (index in tail and is_author_bio(lines[index], names, settings))
    }
    return "\n".join(line for index, line in enumerate(lines) if index not in dropped)
