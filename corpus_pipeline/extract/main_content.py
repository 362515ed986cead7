"""Automatic main content: trafilatura steered by what the page declares itself to be, checked by Resiliparse.

- Articles: trafilatura in precision mode, which leaves out the teasers, newsletter boxes and "read more"
  lines inside article bodies. When it keeps less than ``MIN_PRECISE_SHARE`` of the words Resiliparse
  sees as main content, precision cut real text, and the default mode is used instead.
- Products: trafilatura; the second opinion may only restore prose (a long description), never spec
  grids or related products.
- Forum threads: trafilatura with comments (the posts are the content), then the second opinion.
- Any other page (one that declares none of these types): trafilatura, then the second opinion. When the
  page's card grid (``card_grid.py``: a listing's repeated records) holds far more text than they found,
  the grid joins in.

On every page, headings trafilatura dropped are put back over the text they introduce (card titles).

Measured with ``benchmarks/extraction_bench.py`` (article-extraction-benchmark and wcxb-dev), where the
thresholds below were chosen.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import trafilatura
from lxml import html

from corpus_pipeline.extract.card_grid import card_grid_text
from corpus_pipeline.extract.headings import heading_anchors, restore_headings
from corpus_pipeline.extract.page_type import declared_page_type
from corpus_pipeline.extract.second_opinion import merge_missed_content, resiliparse_main_text
from corpus_pipeline.extract.text import line_key, mean_words_per_line, paragraphs_of

# article-extraction-benchmark F1: default mode 0.960, precision mode alone 0.964, precision mode with this guard 0.969.
MIN_PRECISE_SHARE = 0.6
# Lines a product page's second opinion adds must average this many words: paragraphs, not spec rows.
MIN_PROSE_WORDS_PER_LINE = 20
# A page's card grid (a listing's records) joins the text when it holds this many times more words (wcxb-dev:
# listings 0.599 -> 0.643, collections 0.601 -> 0.642; anywhere from 1.5x to 3x gains 0.007 to 0.008 overall)...
MIN_GRID_GROWTH = 2
# ...and reads as records, not as menus: sidebar widgets of one-word category links average fewer words per line
# (one such sidebar took over a news story on the article benchmark; with this guard no article page changes).
MIN_GRID_WORDS_PER_LINE = 2.5
_WORD = re.compile(r"\w+")


def extract_main_content(
    document: html.HtmlElement, fresh_document: Callable[[], html.HtmlElement], text: str, url: str,
    skipped_tags: list[str],
) -> str:
    """Main text of a page, one block per line ('' when nothing reads as content).

    ``document`` is consumed (trafilatura edits the tree it reads); ``fresh_document`` gives another copy of
    it, needed only when an article's precise reading is thrown away. ``text`` is the page's HTML source, for
    the second opinion, which leaves out ``skipped_tags``.
    """
    page_type = declared_page_type(document)
    second = resiliparse_main_text(text, skipped_tags)
    anchors = heading_anchors(document)  # before trafilatura edits the tree
    grid = card_grid_text(document) if page_type is None else ""
    if page_type == "article":
        precise = _trafilatura(document, url, favor_precision=True)
        if precise.strip() and _word_count(precise) >= MIN_PRECISE_SHARE * _word_count(second):
            return restore_headings(precise, anchors)
        # Nothing at all: lxml may have hidden the text (it nests a whole page inside a popup <aside> whose
        # divs are unbalanced). Resiliparse parses HTML as browsers do.
        return restore_headings(_trafilatura(fresh_document(), url) or second, anchors)
    extracted = _trafilatura(document, url, include_comments=page_type == "forum")
    if page_type == "product":
        extracted = merge_missed_content(extracted, second, min_words_per_added_line=MIN_PROSE_WORDS_PER_LINE)
    else:
        extracted = merge_missed_content(extracted, second)
    return _with_card_grid(restore_headings(extracted, anchors), grid)


def _with_card_grid(extracted: str, grid: str) -> str:
    """``extracted``, then the page's card grid when the grid holds records the extractor left out."""
    if _word_count(grid) <= MIN_GRID_GROWTH * _word_count(extracted):
        return extracted
    if mean_words_per_line(paragraphs_of(grid)) < MIN_GRID_WORDS_PER_LINE:
        return extracted
    in_grid = {line_key(line) for line in grid.split("\n")}
    return "\n".join([*(line for line in extracted.split("\n") if line_key(line) not in in_grid), grid])


def _trafilatura(document: html.HtmlElement, url: str, include_comments: bool = False, **options) -> str:
    return trafilatura.extract(
        document, url=url, include_comments=include_comments, include_tables=True, output_format="txt", **options
    ) or ""


def _word_count(text: str) -> int:
    return len(_WORD.findall(text))

