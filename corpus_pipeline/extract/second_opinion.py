"""A second, independent main-content extractor that corrects trafilatura where it misses content.

trafilatura, tuned for articles, often keeps one block of a service page, a collection or a forum thread and drops its
siblings; Resiliparse's heuristics (another method, ten times faster) keep them. When Resiliparse holds most of
trafilatura's text and much more (not a grid of one-word lines), the two are merged.
"""

from __future__ import annotations

from collections import Counter

from resiliparse.extract.html2text import extract_plain_text

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.text import WORD, contained_share, line_key, mean_words_per_line


def resiliparse_main_text(text: str, skipped: list[str] | None = None) -> str:
    """Main content of an HTML string by Resiliparse's heuristics, one block per line, less the elements the CSS
    selectors ``skipped`` (tag names, ``[id="..."]``) match."""
    return extract_plain_text(
        text, main_content=True, preserve_formatting=True, list_bullets=False, alt_texts=False,
        skip_elements=skipped or None,
    )


def css_attribute_selector(attribute: str, value: str) -> str:
    """A CSS selector for ``skipped``: the elements whose ``attribute`` is exactly ``value``."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")
    return f'[{attribute}="{escaped}"]'


def merged_content(primary: str, second: str) -> str:
    """``second`` in its reading order plus primary's lines it lacks, for when :func:`missed_content` says that
    ``primary`` missed content."""
    covered = line_key(second)
    missing = [line for line in primary.split("\n") if line.strip() and line_key(line) not in covered]
    return "\n".join([*_without_new_repeats(second, primary), *missing])


def missed_content(
    primary: str, second: str, min_words_per_added_line: float | None = None,
    settings: ExtractionSettings = DEFAULT_SETTINGS, *, primary_count: int | None = None,
    second_count: int | None = None,
) -> bool:
    """Whether ``second`` holds content ``primary`` missed: ``primary`` is empty and ``second`` is not, or most of
    ``primary`` is in ``second``, which is much longer and adds lines of ``min_words_per_added_line`` words on
    average (default: the setting's). ``*_count``: the texts' words (``\\w+``), when counted already.
    """
    primary_words, second_words = _lower_words(primary, primary_count), _lower_words(second, second_count)
    if not _count(second_words):
        return False
    if not _count(primary_words):
        return True
    if not settings.second_opinion_merge:
        return False
    # The growth first: most readings miss nothing, and it needs no count of each word.
    if _count(second_words) / _count(primary_words) < settings.min_growth:
        return False
    if contained_share(_counter(primary_words, primary), _counter(second_words, second)) < settings.min_containment:
        return False
    known = {line_key(line) for line in primary.split("\n")}
    added = [line for line in second.split("\n") if (key := line_key(line)) and key not in known]
    least = settings.min_words_per_added_line if min_words_per_added_line is None else min_words_per_added_line
    return mean_words_per_line(added) >= least


# "İ" lower-cases to "i" and a combining dot (no word's character), splitting a word; any other character's lower case
# is one character of the same kind, so a text without it has as many words lower-cased (a test checks them all).
_SPLIT_BY_LOWER_CASE = "\u0130"


def _lower_words(text: str, counted: int | None) -> list[str] | int:
    """The words of ``text`` lower-cased, or only their number when ``counted`` (the words of ``text`` as it is) is
    that number: most readings miss nothing, and need no list of their words."""
    if counted is not None and _SPLIT_BY_LOWER_CASE not in text:
        return counted
    return WORD.findall(text.lower())


def _count(words: list[str] | int) -> int:
    return words if isinstance(words, int) else len(words)


def _counter(words: list[str] | int, text: str) -> Counter:
    return Counter(WORD.findall(text.lower()) if isinstance(words, int) else words)


def _without_new_repeats(second: str, primary: str) -> list[str]:
    """Lines of ``second``, each at most as often as in ``primary`` (at least once): trafilatura drops a template's
    repeated blocks (a mobile and a desktop copy of a product's specs), which the second opinion may not bring back."""
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

