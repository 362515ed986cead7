"""A second, independent main-content extractor that corrects trafilatura where it misses content.

trafilatura is tuned for articles: on service pages, collections and forum threads it often keeps one block
and drops its siblings. Resiliparse's main-content heuristics (a different method, and ten times faster)
keep them. When trafilatura's text is almost wholly contained in Resiliparse's and Resiliparse found much
more, trafilatura missed content, and the two are merged; otherwise trafilatura's text stands alone.
Measured on wcxb-dev and the article benchmark (``benchmarks/extraction_bench.py``), where the thresholds
below were chosen.
"""

from __future__ import annotations

import re
from collections import Counter

from resiliparse.extract.html2text import extract_plain_text

MIN_CONTAINMENT = 0.9  # share of trafilatura's words also found by the second opinion
MIN_GROWTH = 1.5  # the second opinion must have found this many times more words
_WORD = re.compile(r"\w+")


def resiliparse_main_text(text: str, skipped_tags: list[str] | None = None) -> str:
    """Main content of an HTML string by Resiliparse's heuristics, one block per line, ``skipped_tags`` left out."""
    return extract_plain_text(
        text, main_content=True, preserve_formatting=True, list_bullets=False, alt_texts=False,
        skip_elements=skipped_tags or None,
    )


def merge_missed_content(primary: str, second: str) -> str:
    """``second`` (in its reading order, plus primary's lines it lacks) when primary missed content; else primary."""
    primary_words, second_words = _words(primary), _words(second)
    if not second_words:
        return primary
    if primary_words:
        containment = sum((primary_words & second_words).values()) / sum(primary_words.values())
        growth = sum(second_words.values()) / sum(primary_words.values())
        if containment < MIN_CONTAINMENT or growth < MIN_GROWTH:
            return primary
    covered = " ".join(_WORD.findall(second.lower()))
    missing = [line for line in primary.split("\n") if line.strip() and " ".join(_WORD.findall(line.lower())) not in covered]
    return "\n".join([second, *missing])


def _words(text: str) -> Counter:
    return Counter(_WORD.findall(text.lower()))
