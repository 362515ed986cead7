"""Automatic main content: trafilatura steered by the page's declared type, checked by Resiliparse (second opinion).

- Articles: precision mode (no teasers, newsletter boxes, "read more" lines); the default mode when precision keeps
  less than ``min_precise_share`` of Resiliparse's words. An article whose sections are a card grid (a ranking) of
  which the reading kept a few gets the grid.
- Products: the second opinion may restore prose only (a long description), never spec grids or related products.
- Forum threads: trafilatura with comments (the posts are the content); any other page loses its comment sections
  (``comments.py``).
- Any other page: trafilatura, then the second opinion, then the page's card grid (``card_grid.py``) when it holds
  far more text than they found.

trafilatura runs fast first, and in full only when its length disagrees with Resiliparse's. The line arbiter
(``line_arbiter.py``) then puts back the second opinion's missing lines it is sure of. Headings trafilatura dropped
are put back; a leading headline goes (the title has its own column). ``Extraction`` names the path taken.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import partial

import trafilatura
from lxml import html

from corpus_pipeline.extract.byline import page_authors, without_metadata_lines
from corpus_pipeline.extract.card_grid import CardGrid
from corpus_pipeline.extract.comments import remove_comment_sections
from corpus_pipeline.extract.headings import heading_anchors, page_titles, restore_headings, without_headline
from corpus_pipeline.extract.line_arbiter import DocumentMarks, arbitrated, load_line_arbiter
from corpus_pipeline.extract.page_labels import without_labels
from corpus_pipeline.extract.page_type import declared_page_type
from corpus_pipeline.extract.second_opinion import merged_content, missed_content, resiliparse_main_text
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.structured_data import StructuredData, structured_data
from corpus_pipeline.extract.text import (
    WORD,
    contained_share,
    line_key,
    mean_words_per_line,
    word_count,
    word_counts,
)


class Extraction(StrEnum):
    """Which path produced a record's text (the ``extraction`` column; see core/columns.py)."""

    MARKUP = "markup"
    SITE_CONTAINER = "site_container"
    TRAFILATURA_FAST = "trafilatura_fast"
    TRAFILATURA_FULL = "trafilatura_full"
    TRAFILATURA_PRECISION = "trafilatura_precision"
    SECOND_OPINION_MERGED = "second_opinion_merged"
    CARD_GRID_ADDED = "card_grid_added"
    RESILIPARSE_ONLY = "resiliparse_only"
    SECOND_OPINION_LINES_ADDED = "second_opinion_lines_added"
    VISIBLE_TEXT = "visible_text"
    NO_DOCUMENT = "no_document"


@dataclass(frozen=True)
class MainContent:
    """A page's main text, one block per line, its path, and its word count when counted already (else None)."""

    text: str
    extraction: Extraction
    words: int | None = field(default=None, compare=False)


class NotADocument(ValueError):
    """The page has text, but none of it reads as a document (a menu, a search prompt, a promotion strip)."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(f"{reason}: {text!r}")  # the words go with the reason: nothing is dropped silently


def extract_main_content(
    document: html.HtmlElement, fresh_document: Callable[[], html.HtmlElement], text: str, url: str,
    skipped: list[str], settings: ExtractionSettings = DEFAULT_SETTINGS, dates: tuple[datetime | None, ...] = (),
    *, structured: StructuredData | None = None,
) -> MainContent:
    """Main text of a page, one block per line ('' when nothing reads as content), and its path.

    ``document`` loses its comment sections; ``fresh_document`` gives a copy of it as given. ``text``: the HTML source,
    for the second opinion, which skips what the CSS selectors ``skipped`` match. ``dates``: the page's (for byline
    lines). ``structured``: the page's (read from ``document`` when not given). Raises :class:`NotADocument` when the
    second opinion finds nothing and trafilatura only a few short lines.
    """
    ld, types = structured or structured_data(document)
    page_type = declared_page_type(document, types, settings)
    removed = page_type != "forum" and settings.comments_removed  # a thread's replies are its content; elsewhere not
    comment_sections = remove_comment_sections(document) if removed else []
    skipped = skipped + comment_sections
    if not comment_sections:
        # trafilatura reads a copy of the tree: a page that lost no comment section is its own fresh copy.
        fresh_document = partial(_same, document)
    second = resiliparse_main_text(text, skipped)
    second_words = word_count(second)  # counted once: the readings' checks and the arbiter compare with it
    extracted = _read(document, fresh_document, url, page_type, second, second_words, settings)
    extracted = _arbitrated(extracted, document, second, second_words, page_type, settings)
    reading = extracted.text
    if page_type == "article":
        reading = without_metadata_lines(reading, page_authors(document, ld), dates, settings)
    reading = without_labels(reading, page_type == "article", settings)
    if WORD.search(second) is None and _is_page_chrome(reading, settings):  # any word at all: no count needed
        raise NotADocument("no main content (only page chrome)", reading)
    return MainContent(reading, extracted.extraction)


def _read(
    document: html.HtmlElement, fresh_document: Callable[[], html.HtmlElement], url: str, page_type: str | None,
    second: str, second_words: int, settings: ExtractionSettings,
) -> MainContent:
    """trafilatura's reading in the mode the page type calls for, corrected by ``second`` (of ``second_words``)."""
    titles = page_titles(document) if settings.headline_left_out else ()
    anchors = heading_anchors(document, settings, titles) if settings.headings_restored else []
    grid = CardGrid(document, settings) if page_type in (None, "article") and settings.card_grids else None
    if page_type == "article":
        if settings.precision_on_articles:
            precise, _, counted = _checked_trafilatura(
                document, fresh_document, url, second_words, settings.min_precise_share, settings, favor_precision=True
            )
            precise_words = word_count(precise) if counted is None else counted  # the fast reading's, counted there
            if precise.strip() and precise_words >= settings.min_precise_share * second_words:
                return _finished(
                    precise, Extraction.TRAFILATURA_PRECISION, anchors, titles, grid, settings, precise, precise_words
                )
            document = fresh_document()
        # The default mode may cut real text too (a listicle read as its introduction, text lxml hides in unbalanced
        # markup that Resiliparse, parsing as browsers do, sees).
        default = read = _trafilatura(document, url)
        path = Extraction.TRAFILATURA_FULL
        if (default_words := word_count(default)) < settings.max_failed_share * second_words:
            default, path = _merged(default, second, path, settings, None, default_words, second_words)
        if not default:
            default, path = second, Extraction.RESILIPARSE_ONLY if second else path
        counted = default_words if default is read else None
        return _finished(default, path, anchors, titles, grid, settings, default, counted)
    extracted, fast, words = _checked_trafilatura(
        document, fresh_document, url, second_words, settings.min_fast_share, settings,
        include_comments=page_type == "forum",
    )
    path = Extraction.TRAFILATURA_FAST if fast else Extraction.TRAFILATURA_FULL
    min_words = settings.min_prose_words_per_line if page_type == "product" else None
    merged, path = _merged(extracted, second, path, settings, min_words, words, second_words)
    return _finished(merged, path, anchors, titles, grid, settings, words=words if merged is extracted else None)


def _arbitrated(
    extracted: MainContent, document: html.HtmlElement, second: str, second_words: int, page_type: str | None,
    settings: ExtractionSettings,
) -> MainContent:
    """The reading with the second opinion's lines the line arbiter judges main content put back (when it is on)."""
    if settings.min_arbiter_probability > 1 or not extracted.text.strip() or not second.strip():
        return extracted
    # The page's marks are read only when a missing line could be put back whatever they say (see ``arbitrated``).
    text = arbitrated(
        extracted.text, second, DocumentMarks(document), page_type, extracted.extraction.value,
        settings.min_arbiter_probability, load_line_arbiter(), second_words=second_words, reading_words=extracted.words,
    )
    return extracted if text == extracted.text else MainContent(text, Extraction.SECOND_OPINION_LINES_ADDED)


def _merged(
    primary: str, second: str, path: Extraction, settings: ExtractionSettings, min_words: float | None = None,
    primary_words: int | None = None, second_words: int | None = None,
) -> tuple[str, Extraction]:
    """``primary`` with the second opinion merged in when it missed content, and the path that now produced it
    (``*_words``: the texts' word counts, when counted already)."""
    if not missed_content(primary, second, min_words, settings, primary_count=primary_words, second_count=second_words):
        return primary, path
    merged = merged_content(primary, second)
    return merged, Extraction.SECOND_OPINION_MERGED if word_count(primary) else Extraction.RESILIPARSE_ONLY


def _finished(
    extracted: str, path: Extraction, anchors: list[tuple[str, str]], titles: tuple[str, ...],
    cards: CardGrid | None, settings: ExtractionSettings, article: str | None = None, words: int | None = None,
) -> MainContent:
    """The reading without its headline, its dropped headings put back, and the page's grid (``cards``: None when it
    may not join) when it holds records the reading left out (``article``: an article's reading, which the cards must
    hold spread over them; ``words``: the reading's, when counted already)."""
    restored = restore_headings(without_headline(extracted, titles, settings), anchors, settings)
    # A reading that lost no headline and gained no heading keeps its count (the line arbiter reads it too).
    words = words if restored is extracted else None
    if cards is None:
        return MainContent(restored, path, words)
    if words is None:
        words = word_count(restored)
    if not _grid_joins(cards, settings, words, article):
        return MainContent(restored, path, words)
    grid = _lines_of(cards.cards())
    in_grid = {line_key(line) for line in grid.split("\n")}
    text = "\n".join([*(line for line in restored.split("\n") if line_key(line) not in in_grid), grid])
    return MainContent(text, Extraction.CARD_GRID_ADDED)


def _is_page_chrome(extracted: str, settings: ExtractionSettings) -> bool:
    """Whether a reading is a few short lines (menu entries, buttons, taglines) rather than prose."""
    lines = [line for line in extracted.split("\n") if line.strip()]
    return (
        0 < word_count(extracted) < settings.max_chrome_words
        and mean_words_per_line(lines) < settings.max_chrome_words_per_line
    )


def _spread_over(extracted: str, grid: CardGrid, settings: ExtractionSettings) -> bool:
    """Whether the grid's cards hold an article's reading spread over them."""
    cards = grid.cards()
    read = word_counts(extracted)
    if not read or contained_share(read, word_counts(_lines_of(cards))) < settings.min_read_in_grid:
        return False
    enough = settings.max_read_in_one_card * sum(read.values())
    for card in cards:
        text = "\n".join(card)
        # A card of fewer words than that share cannot hold it (the cheap test spares most cards the count).
        if word_count(text) >= enough and contained_share(read, word_counts(text)) >= settings.max_read_in_one_card:
            return False
    return True


def _reads_as_records(cards: list[list[str]], settings: ExtractionSettings) -> bool:
    """Whether cards read as records rather than menus: lines of a few words, or many cards of several lines each."""
    if mean_words_per_line([line for card in cards for line in card]) >= settings.min_grid_words_per_line:
        return True
    return (
        len(cards) >= settings.min_short_records
        and sum(map(len, cards)) >= settings.min_short_record_lines * len(cards)
    )


def _lines_of(cards: list[list[str]]) -> str:
    return "\n".join(line for card in cards for line in card)


def _grid_joins(grid: CardGrid, settings: ExtractionSettings, words: int, article: str | None) -> bool:
    """Whether the page's card grid holds records a reading of ``words`` words left out: far more words, reading as
    records (``article``: see :func:`_finished`)."""
    most = settings.min_grid_growth * words
    if grid.max_words() <= most:
        return False  # no grid of the page can hold enough words (most pages): no need to find it
    grid.find()
    if grid.max_words() <= most:
        return False  # the cards' text holds too few words (most articles): no need to read their lines
    cards = grid.cards()
    if not cards or word_count(_lines_of(cards)) <= most:
        return False
    if article is not None and not _spread_over(article, grid, settings):
        return False
    return _reads_as_records(cards, settings)


def _checked_trafilatura(
    document: html.HtmlElement, fresh_document: Callable[[], html.HtmlElement], url: str, expected: int,
    min_share: float, settings: ExtractionSettings, **options,
) -> tuple[str, bool, int | None]:
    """trafilatura's fast reading, redone in full when its length disagrees with the second opinion's (``expected``
    words); whether the fast reading stood, and its words when it did (else None)."""
    if not settings.fast_trafilatura_first:
        return _trafilatura(document, url, **options), False, None
    quick = _trafilatura(document, url, fast=True, **options)
    found = word_count(quick)
    if found and min_share * expected <= found <= settings.max_fast_growth * max(expected, settings.min_expected_words):
        return quick, True, found
    return _trafilatura(fresh_document(), url, **options), False, None


def _trafilatura(
    document: html.HtmlElement, url: str, include_comments: bool = False, fast: bool = False, **options
) -> str:
    """``trafilatura.extract``'s text of the page ('' for none), read from a copy of ``document``."""
    return trafilatura.extract(
        document, url=url, include_comments=include_comments, include_tables=True, output_format="txt", fast=fast,
        **options,
    ) or ""


def _same(document: html.HtmlElement) -> html.HtmlElement:
    return document
