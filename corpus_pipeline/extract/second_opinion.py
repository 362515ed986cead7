"""A second, independent main-content extractor that corrects trafilatura where it misses content.

trafilatura is tuned for articles: on service pages, collections and forum threads it often keeps one block
and drops its siblings. Resiliparse's main-content heuristics (a different method, and ten times faster)
keep them. When most of trafilatura's text is contained in Resiliparse's and Resiliparse found much
more text (neither a grid of one-word lines nor mostly code), trafilatura missed content, and the two are
merged; otherwise trafilatura's text stands alone.
Measured on wcxb-dev and the article benchmark (``benchmarks/extraction_bench.py``), where the thresholds
below were chosen.
"""

from __future__ import annotations

import re
from collections import Counter

from resiliparse.extract.html2text import extract_plain_text

from corpus_pipeline.extract.text import contained_share, line_key, mean_words_per_line, word_counts

# Share of trafilatura's words the second opinion must also hold. Lines of trafilatura's own (a caption, a teaser
# Resiliparse skips) are kept in the merge, so they need not block it (wcxb-dev +0.0005 at 0.7 or 0.6 against 0.9,
# four pages gaining and one losing; article benchmark unchanged).
MIN_CONTAINMENT = 0.7
MIN_GROWTH = 1.5  # the second opinion must have found this many times more words
# What it adds must read as text: lines of one or two words on average are a grid of job cards, menu
# entries or filters, not prose trafilatura missed (wcxb-dev listings: 0.582 merged anyway, 0.590 not).
MIN_WORDS_PER_ADDED_LINE = 2.5
# Nor may it be mostly code: API references list trait impls and signatures that their own text leaves out
# (a Rust std page fell from 0.79 to 0.57 F1 when they were merged in; wcxb-dev documentation 0.917 -> 0.919).
MAX_CODE_SHARE = 0.5
# A call or generic (`f(`, `Result<`), a path or arrow operator, or a line ending like a statement or block.
_CODE_LINE = re.compile(r"\w[<(]|::|->|=>|[{};]\s*$")


def resiliparse_main_text(text: str, skipped: list[str] | None = None) -> str:
    """Main content of an HTML string by Resiliparse's heuristics, one block per line.

    ``skipped``: CSS selectors (tag names, ``[id="..."]``) of elements to leave out.
    """
    return extract_plain_text(
        text, main_content=True, preserve_formatting=True, list_bullets=False, alt_texts=False,
        skip_elements=skipped or None,
    )


def css_attribute_selector(attribute: str, value: str) -> str:
    """A CSS selector for ``skipped``: the elements whose ``attribute`` is exactly ``value``."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")
    return f'[{attribute}="{escaped}"]'


def merge_missed_content(
    primary: str, second: str, min_words_per_added_line: float = MIN_WORDS_PER_ADDED_LINE
) -> str:
    """``second`` (in its reading order, plus primary's lines it lacks) when primary missed content; else primary.

    Content counts as missed when what ``second`` adds averages ``min_words_per_added_line`` words per line.
    """
    primary_words, second_words = word_counts(primary), word_counts(second)
    if not second_words:
        return primary
    if primary_words:
        containment = contained_share(primary_words, second_words)
        growth = sum(second_words.values()) / sum(primary_words.values())
        if containment < MIN_CONTAINMENT or growth < MIN_GROWTH:
            return primary
        added = _added_lines(primary, second)
        if mean_words_per_line(added) < min_words_per_added_line or _code_share(added) > MAX_CODE_SHARE:
            return primary
    covered = line_key(second)
    missing = [line for line in primary.split("\n") if line.strip() and line_key(line) not in covered]
    return "\n".join([*_without_new_repeats(second, primary), *missing])


def _without_new_repeats(second: str, primary: str) -> list[str]:
    """Lines of ``second``, each at most as often as in ``primary`` (at least once).

    Page templates repeat blocks (a mobile and a desktop copy of a product's specs, a sticky header);
    trafilatura drops such copies, so the second opinion may not bring them back.
    """
    allowed = Counter(line_key(line) for line in primary.split("\n"))
    emitted: Counter = Counter()
    kept = []
    for line in second.split("\n"):
        if key := line_key(line):
            emitted[key] += 1
            if emitted[key] > max(1, allowed[key]):
                continue
        kept.append(line)
    return kept


def _added_lines(primary: str, second: str) -> list[str]:
    """The lines of ``second`` that ``primary`` lacks."""
    known = {line_key(line) for line in primary.split("\n")}
    return [line for line in second.split("\n") if (key := line_key(line)) and key not in known]


def _code_share(lines: list[str]) -> float:
    """Share of ``lines`` that read as code (signatures, impls, expressions)."""
    return sum(bool(_CODE_LINE.search(line)) for line in lines) / len(lines) if lines else 0.0

