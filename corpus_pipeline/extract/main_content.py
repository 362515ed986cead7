"""Automatic main content: trafilatura steered by what the page declares itself to be, checked by Resiliparse.

- Articles: trafilatura in precision mode, which leaves out the teasers, newsletter boxes and "read more"
  lines inside article bodies. When it keeps less than ``MIN_PRECISE_SHARE`` of the words Resiliparse
  sees as main content, precision cut real text, and the default mode is used instead. When the article's own
  sections are a card grid (a ranking whose entries are cards) of which the reading kept a few, the grid joins in.
- Products: trafilatura; the second opinion may only restore prose (a long description), never spec
  grids or related products.
- Forum threads: trafilatura with comments (the posts are the content), then the second opinion.
  On any other page, reader comments are left out of every reading (``comments.py``).
- Any other page (one that declares none of these types): trafilatura, then the second opinion. When the
  page's card grid (``card_grid.py``: a listing's repeated records) holds far more text than they found,
  the grid joins in.

trafilatura runs in its fast mode first, and again in full only when the length of its fast reading
disagrees with Resiliparse's: the independent extractor replaces trafilatura's slower built-in fallbacks.

On every page, headings trafilatura dropped are put back over the text they introduce (card titles).

Measured with ``benchmarks/extraction_bench.py`` (article-extraction-benchmark and wcxb-dev), where the
thresholds below were chosen.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import trafilatura
from lxml import html

from corpus_pipeline.extract.card_grid import card_grid_cards
from corpus_pipeline.extract.comments import remove_comment_sections
from corpus_pipeline.extract.headings import heading_anchors, restore_headings
from corpus_pipeline.extract.page_type import declared_page_type
from corpus_pipeline.extract.second_opinion import merge_missed_content, resiliparse_main_text
from corpus_pipeline.extract.text import (
    contained_share,
    line_key,
    mean_words_per_line,
    word_counts,
)

# trafilatura's fast mode skips its fallback extractors (readability and jusText: about 40 % of its time). The
# second opinion stands in for them as the yardstick: a fast reading with under this share of its words, or
# over this many times them, is redone in full (on the article benchmark and wcxb-dev, F1 is unchanged or
# better, and our extraction went from 0.72x to about 0.95x trafilatura's speed; without the upper bound, a
# menu was read as a news story).
MIN_FAST_SHARE = 0.5
MAX_FAST_GROWTH = 5
MIN_EXPECTED_WORDS = 50  # below this, the second opinion's length says little
# article-extraction-benchmark F1: default mode 0.960, precision mode alone 0.964, precision mode with this guard 0.969.
MIN_PRECISE_SHARE = 0.6
# On an article, a default-mode reading with under this share of the second opinion's words failed too, and the
# second opinion may fill it in (wcxb-dev articles 0.942 -> 0.944, anywhere from 0.3 to 0.5; the article
# benchmark is unchanged up to 0.5 and falls to 0.968 at 0.6, where two news stories take in their related stories).
MAX_FAILED_SHARE = 0.3
# Lines a product page's second opinion adds must average this many words: paragraphs, not spec rows.
MIN_PROSE_WORDS_PER_LINE = 20
# A page's card grid (a listing's records) joins the text when it holds this many times more words (wcxb-dev:
# listings 0.599 -> 0.643, collections 0.601 -> 0.642; anywhere from 1.5x to 3x gains 0.007 to 0.008 overall)...
MIN_GRID_GROWTH = 2
# ...and reads as records, not as menus: sidebar widgets of one-word category links average fewer words per line
# (one such sidebar took over a news story on the article benchmark; with this guard no article page changes).
MIN_GRID_WORDS_PER_LINE = 2.5
# Shop records can be shorter (a name, its colours, a price: wcxb-dev collections and listings +0.0018 with this):
# many cards of several short lines each are records too, where a few cards of many one-word lines are a
# sidebar's category and archive widgets (one took over a news story on the article benchmark).
MIN_SHORT_RECORDS = 8
MIN_SHORT_RECORD_LINES = 3
# On an article the grid must be the article's own sections: it holds at least this share of the words read...
MIN_READ_IN_GRID = 0.5
# ...and no card holds this share of them alone, which happens when the article is one story of an endless stream
# or the grid is other stories' teasers (article benchmark: 0.962 with the grid unguarded, 0.971 guarded, as
# without it; wcxb-dev +0.0019 over no grid on articles, with no page losing).
MAX_READ_IN_ONE_CARD = 0.8
# When Resiliparse finds no main content at all, a short trafilatura reading of short lines is what is left of the
# page's menus, buttons and promotion strips (a shop category rendered by script, a home page's navigation): no
# document. wcxb-dev: three such pages, all with empty truth (2.1 to 5.0 words per line); the shortest real page
# Resiliparse misses reads 123 words. Prose stays: Resiliparse drops python3.11-doc's copyright page (52 words,
# 7.4 words per line), which trafilatura reads right.
MAX_CHROME_WORDS = 100
MAX_CHROME_WORDS_PER_LINE = 6
_WORD = re.compile(r"\w+")


class NotADocument(ValueError):
    """The page has text, but none of it reads as a document (a menu, a search prompt, a promotion strip)."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(f"{reason}: {text!r}")  # the words go with the reason: nothing is dropped silently


def extract_main_content(
    document: html.HtmlElement, fresh_document: Callable[[], html.HtmlElement], text: str, url: str,
    skipped: list[str],
) -> str:
    """Main text of a page, one block per line ('' when nothing reads as content).

    ``document`` is consumed (trafilatura edits the tree it reads); ``fresh_document`` gives another copy of
    it, needed only when a first reading is thrown away. ``text`` is the page's HTML source, for
    the second opinion, which leaves out the elements the CSS selectors ``skipped`` match.
    Raises :class:`NotADocument` when the second opinion finds no main content at all and trafilatura only a few
    lines, which on such a page are its menus and banners.
    """
    page_type = declared_page_type(document)
    if page_type != "forum":  # a thread's replies are its content; anywhere else they are not
        skipped = skipped + remove_comment_sections(document)
    second = resiliparse_main_text(text, skipped)
    extracted = _read(document, fresh_document, url, page_type, second)
    if not _word_count(second) and _is_page_chrome(extracted):
        raise NotADocument("no main content (only page chrome)", extracted)
    return extracted


def _read(
    document: html.HtmlElement, fresh_document: Callable[[], html.HtmlElement], url: str, page_type: str | None,
    second: str,
) -> str:
    """trafilatura's reading of the page, in the mode its declared type calls for, corrected by ``second``."""
    anchors = heading_anchors(document)  # before trafilatura edits the tree
    cards = card_grid_cards(document) if page_type in (None, "article") else []
    if page_type == "article":
        precise = _checked_trafilatura(
            document, fresh_document, url, second, MIN_PRECISE_SHARE, favor_precision=True
        )
        if precise.strip() and _word_count(precise) >= MIN_PRECISE_SHARE * _word_count(second):
            return _with_card_grid(restore_headings(precise, anchors), _grid_around(precise, cards))
        # Precision cut real text, and the default mode may too: a listicle read as its introduction, a page whose
        # text lxml hides (it nests a whole page inside a popup <aside> whose divs are unbalanced) while
        # Resiliparse, which parses HTML as browsers do, sees it all.
        default = _trafilatura(fresh_document(), url)
        if _word_count(default) < MAX_FAILED_SHARE * _word_count(second):
            default = merge_missed_content(default, second)
        default = default or second
        return _with_card_grid(restore_headings(default, anchors), _grid_around(default, cards))
    extracted = _checked_trafilatura(
        document, fresh_document, url, second, MIN_FAST_SHARE, include_comments=page_type == "forum"
    )
    if page_type == "product":
        extracted = merge_missed_content(extracted, second, min_words_per_added_line=MIN_PROSE_WORDS_PER_LINE)
    else:
        extracted = merge_missed_content(extracted, second)
    return _with_card_grid(restore_headings(extracted, anchors), cards)


def _is_page_chrome(extracted: str) -> bool:
    """Whether a reading is a few short lines (menu entries, buttons, taglines) rather than prose."""
    lines = [line for line in extracted.split("\n") if line.strip()]
    return 0 < _word_count(extracted) < MAX_CHROME_WORDS and mean_words_per_line(lines) < MAX_CHROME_WORDS_PER_LINE


def _grid_around(extracted: str, cards: list[list[str]]) -> list[list[str]]:
    """The cards when they hold an article's reading spread over them, else none."""
    read = word_counts(extracted)
    if not read or contained_share(read, word_counts(_lines_of(cards))) < MIN_READ_IN_GRID:
        return []
    enough = MAX_READ_IN_ONE_CARD * sum(read.values())
    for card in cards:
        text = "\n".join(card)
        # A card of fewer words than that share cannot hold it (the cheap test spares most cards the count).
        if _word_count(text) >= enough and contained_share(read, word_counts(text)) >= MAX_READ_IN_ONE_CARD:
            return []
    return cards


def _reads_as_records(cards: list[list[str]]) -> bool:
    """Whether cards read as records rather than menus: lines of a few words, or many cards of several lines each."""
    if mean_words_per_line([line for card in cards for line in card]) >= MIN_GRID_WORDS_PER_LINE:
        return True
    return len(cards) >= MIN_SHORT_RECORDS and sum(map(len, cards)) >= MIN_SHORT_RECORD_LINES * len(cards)


def _lines_of(cards: list[list[str]]) -> str:
    return "\n".join(line for card in cards for line in card)


def _with_card_grid(extracted: str, cards: list[list[str]]) -> str:
    """``extracted``, then the page's card grid when the grid holds records the extractor left out."""
    grid = _lines_of(cards)
    if _word_count(grid) <= MIN_GRID_GROWTH * _word_count(extracted):
        return extracted
    if not _reads_as_records(cards):
        return extracted
    in_grid = {line_key(line) for line in grid.split("\n")}
    return "\n".join([*(line for line in extracted.split("\n") if line_key(line) not in in_grid), grid])


def _checked_trafilatura(
    document: html.HtmlElement, fresh_document: Callable[[], html.HtmlElement], url: str, second: str,
    min_share: float, **options,
) -> str:
    """trafilatura's fast reading of the page, redone in full when its length disagrees with ``second``'s."""
    quick = _trafilatura(document, url, fast=True, **options)
    expected = _word_count(second)
    found = _word_count(quick)
    if found and min_share * expected <= found <= MAX_FAST_GROWTH * max(expected, MIN_EXPECTED_WORDS):
        return quick
    return _trafilatura(fresh_document(), url, **options)


def _trafilatura(document: html.HtmlElement, url: str, include_comments: bool = False, **options) -> str:
    return trafilatura.extract(
        document, url=url, include_comments=include_comments, include_tables=True, output_format="txt", **options
    ) or ""


def _word_count(text: str) -> int:
    return len(_WORD.findall(text))

