"""Automatic main content: trafilatura steered by what the page declares itself to be, checked by Resiliparse.

- Articles: trafilatura in precision mode, which leaves out the teasers, newsletter boxes and "read more" lines
  inside article bodies. When it keeps less than ``min_precise_share`` of the words Resiliparse sees as main content,
  precision cut real text, and the default mode is used instead. When the article's own sections are a card grid (a
  ranking whose entries are cards) of which the reading kept a few, the grid joins in.
- Products: trafilatura; the second opinion may only restore prose (a long description), never spec grids or related
  products.
- Forum threads: trafilatura with comments (the posts are the content), then the second opinion. On any other page,
  reader comments are left out of every reading (``comments.py``).
- Any other page: trafilatura, then the second opinion. When the page's card grid (``card_grid.py``: a listing's
  repeated records) holds far more text than they found, the grid joins in.

trafilatura runs in its fast mode first, and again in full only when the length of its fast reading disagrees with
Resiliparse's: the independent extractor replaces trafilatura's slower built-in fallbacks.

The line arbiter (``line_arbiter.py``, a small model trained on wcxb-dev's tuning part) then judges each line of
Resiliparse's reading that the reading still lacks, and those it is sure are main content go back
(``ExtractionSettings.min_arbiter_probability``).

On every page, headings trafilatura dropped are put back over the text they introduce (card titles), and a reading
that opens with the page's headline (its title's words) loses that line: the title has its own column.

Every reading says which path produced it (``Extraction``: the ``extraction`` column of parsed_pages). The
thresholds of ``settings.py`` were chosen with ``benchmarks/extraction_bench.py``.
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
from corpus_pipeline.extract.line_arbiter import arbitrated, load_line_arbiter, page_marks
from corpus_pipeline.extract.page_labels import without_labels
from corpus_pipeline.extract.page_type import declared_page_type
from corpus_pipeline.extract.second_opinion import merged_content, missed_content, resiliparse_main_text
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.text import (
    WORD,
    contained_share,
    line_key,
    mean_words_per_line,
    word_count,
    word_counts,
)


class Extraction(StrEnum):
    """Which path produced a record's text (the ``extraction`` column; see core/schema.py)."""

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
    """A page's main text, one block per line, and the path that produced it (``words``: the text's word count, when
    counted already; None when not)."""

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
    *, parsed_from_text: bool = False,
) -> MainContent:
    """Main text of a page, one block per line ('' when nothing reads as content), and its path.

    ``document`` loses its comment sections; ``fresh_document`` gives another copy of it as it was given, for a
    second reading. ``text`` is the page's HTML source, for the second opinion, which leaves out the elements the CSS
    selectors ``skipped`` match. ``dates``: the page's, which an article's byline lines write out. ``parsed_from_text``:
    ``document`` is ``text`` parsed (elements removed at most), so ``text`` says where comment sections cannot be.
    Raises :class:`NotADocument` when the second opinion finds no main content and trafilatura only a few lines (menus
    and banners).
    """
    page_type = declared_page_type(document, settings)
    removed = page_type != "forum" and settings.comments_removed  # a thread's replies are its content; elsewhere not
    comment_sections = remove_comment_sections(document, text if parsed_from_text else None) if removed else []
    skipped = skipped + comment_sections
    if not comment_sections:
        # trafilatura reads a copy of the tree it is given, and nothing here edits the tree otherwise: a page that
        # lost no comment section is still as it was given, and serves as its own fresh copy.
        fresh_document = partial(_same, document)
    second = resiliparse_main_text(text, skipped)
    second_words = word_count(second)  # counted once: the readings' checks and the arbiter compare with it
    extracted = _read(document, fresh_document, url, page_type, second, second_words, settings)
    extracted = _arbitrated(extracted, document, second, second_words, page_type, settings)
    reading = extracted.text
    if page_type == "article":
        reading = without_metadata_lines(reading, page_authors(document), dates, settings)
    reading = without_labels(reading, page_type == "article", settings)
    if WORD.search(second) is None and _is_page_chrome(reading, settings):  # any word at all: no count needed
        raise NotADocument("no main content (only page chrome)", reading)
    return MainContent(reading, extracted.extraction)


def _read(
    document: html.HtmlElement, fresh_document: Callable[[], html.HtmlElement], url: str, page_type: str | None,
    second: str, second_words: int, settings: ExtractionSettings,
) -> MainContent:
    """trafilatura's reading of the page, in the mode its declared type calls for, corrected by ``second``
    (``second_words``: its word count)."""
    # Both read before trafilatura edits the tree.
    titles = page_titles(document) if settings.headline_left_out else ()
    anchors = heading_anchors(document, settings, titles) if settings.headings_restored else []
    # The grid is found on this tree, as it is now, when a reading needs it (trafilatura reads copies of the tree).
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
        # Precision cut real text, and the default mode may too (a listicle read as its introduction, text lxml hides
        # in unbalanced markup that Resiliparse, which parses HTML as browsers do, sees).
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
    """The reading with the second opinion's lines (``second_words`` words) the line arbiter judges main content put
    back (when it is on)."""
    if settings.min_arbiter_probability > 1 or not extracted.text.strip() or not second.strip():
        return extracted
    # The arbiter reads the page's marks of the second opinion's lines the reading lacks, when it lacks any (most
    # pages) and one of them could be put back whatever they say (see ``arbitrated``).
    text = arbitrated(
        extracted.text, second, partial(page_marks, document), page_type, extracted.extraction.value,
        settings.min_arbiter_probability, load_line_arbiter(), second_words=second_words, reading_words=extracted.words,
    )
    return extracted if text == extracted.text else MainContent(text, Extraction.SECOND_OPINION_LINES_ADDED)


def _merged(
    primary: str, second: str, path: Extraction, settings: ExtractionSettings, min_words: float | None = None,
    primary_words: int | None = None, second_words: int | None = None,
) -> tuple[str, Extraction]:
    """``primary`` with the second opinion merged in when it missed content, and the path that now produced it
    (``primary_words``, ``second_words``: the texts' word counts, when counted already)."""
    if not missed_content(primary, second, min_words, settings, primary_count=primary_words, second_count=second_words):
        return primary, path
    merged = merged_content(primary, second)
    return merged, Extraction.SECOND_OPINION_MERGED if word_count(primary) else Extraction.RESILIPARSE_ONLY


def _finished(
    extracted: str, path: Extraction, anchors: list[tuple[str, str]], titles: tuple[str, ...],
    cards: CardGrid | None, settings: ExtractionSettings, article: str | None = None, words: int | None = None,
) -> MainContent:
    """The reading without its headline, with its dropped headings put back and, when it holds records the reading
    left out, its grid (``cards``: none when the page's grid may not join; ``article``: an article's reading, whose
    grid joins only when its cards hold it spread over them; ``words``: the reading's words, when counted already)."""
    restored = restore_headings(without_headline(extracted, titles, settings), anchors, settings)
    # Counted once, for the line arbiter too: a reading that lost no headline and gained no heading keeps its count.
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
    records (``article``: an article's reading, which the grid must hold spread over its cards)."""
    most = settings.min_grid_growth * words
    if article is not None:
        # An article's page holds far more words than twice the article's: the bound below is the cards' words once
        # they are found, and spares most articles comparing them with the article's.
        grid.cards()
    if grid.max_words() <= most:
        return False  # no grid of the page can hold enough words (most pages): no need to find it
    if article is not None and not _spread_over(article, grid, settings):
        return False
    cards = grid.cards()
    if not cards or word_count(_lines_of(cards)) <= most:
        return False
    return _reads_as_records(cards, settings)


def _checked_trafilatura(
    document: html.HtmlElement, fresh_document: Callable[[], html.HtmlElement], url: str, expected: int,
    min_share: float, settings: ExtractionSettings, **options,
) -> tuple[str, bool, int | None]:
    """trafilatura's fast reading of the page, redone in full when its length disagrees with the second opinion's
    (``expected`` words).

    The flag says whether the fast reading stood; the number is its words when it did (else None: not counted).
    """
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
    """``trafilatura.extract``'s text of the page ('' for none); it reads a copy of ``document``, which it leaves as
    it was."""
    return trafilatura.extract(
        document, url=url, include_comments=include_comments, include_tables=True, output_format="txt", fast=fast,
        **options,
    ) or ""


def _same(document: html.HtmlElement) -> html.HtmlElement:
    return document
