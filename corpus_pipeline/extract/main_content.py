"""Automatic main content: trafilatura steered by what the page declares itself to be, checked by Resiliparse.

- Articles: trafilatura in precision mode, which leaves out the teasers, newsletter boxes and "read more"
  lines inside article bodies. When it keeps less than ``MIN_PRECISE_SHARE`` of the words Resiliparse
  sees as main content, precision cut real text, and the default mode is used instead.
- Products: trafilatura; the second opinion may only restore prose (a long description), never spec
  grids or related products.
- Forum threads: trafilatura with comments (the posts are the content), then the second opinion.
- Any other page: trafilatura, then the second opinion.

On every page, headings trafilatura dropped are put back over the text they introduce (card titles).

Measured with ``benchmarks/extraction_bench.py`` (article-extraction-benchmark and wcxb-dev), where the
thresholds below were chosen.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import trafilatura
from lxml import html

from corpus_pipeline.extract.headings import heading_anchors, restore_headings
from corpus_pipeline.extract.page_type import declared_page_type
from corpus_pipeline.extract.second_opinion import merge_missed_content, resiliparse_main_text

# article-extraction-benchmark F1: default mode 0.960, precision mode alone 0.964, precision mode with this guard 0.969.
MIN_PRECISE_SHARE = 0.6
# Lines a product page's second opinion adds must average this many words: paragraphs, not spec rows.
MIN_PROSE_WORDS_PER_LINE = 20
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
    if page_type == "article":
        precise = _trafilatura(document, url, favor_precision=True)
        if precise.strip() and _word_count(precise) >= MIN_PRECISE_SHARE * _word_count(second):
            return restore_headings(precise, anchors)
        return restore_headings(_trafilatura(fresh_document(), url), anchors)
    extracted = _trafilatura(document, url, include_comments=page_type == "forum")
    if page_type == "product":
        extracted = merge_missed_content(extracted, second, min_words_per_added_line=MIN_PROSE_WORDS_PER_LINE)
    else:
        extracted = merge_missed_content(extracted, second)
    return restore_headings(extracted, anchors)


def _trafilatura(document: html.HtmlElement, url: str, include_comments: bool = False, **options) -> str:
    return trafilatura.extract(
        document, url=url, include_comments=include_comments, include_tables=True, output_format="txt", **options
    ) or ""


def _word_count(text: str) -> int:
    return len(_WORD.findall(text))
