"""Text normalization shared by the extractors."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_SPACES = re.compile(r"[ \t\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")
_WORD = re.compile(r"\w+")


def normalize_whitespace(text: str) -> str:
    """Collapse spaces inside lines, one blank line between paragraphs, no leading or trailing space."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def paragraphs_of(text: str) -> list[str]:
    """Non-empty lines of a text (each paragraph, list item or heading is one line)."""
    return [line.strip() for line in text.split("\n") if line.strip()]


def join_blocks(blocks: list[str]) -> str:
    """Blocks separated by blank lines, each block once (the first occurrence keeps its place)."""
    seen: set[str] = set()
    kept = []
    for block in blocks:
        block = normalize_whitespace(block)
        if block and block not in seen:
            seen.add(block)
            kept.append(block)
    return "\n\n".join(kept)


def line_key(line: str) -> str:
    """A line's lower-cased words, space-separated: what two extractors' copies of one line share."""
    return " ".join(_WORD.findall(line.lower()))


def word_counts(text: str) -> Counter:
    """How often each lower-cased word occurs in ``text``."""
    return Counter(_WORD.findall(text.lower()))


def contained_share(words: Counter, within: Counter) -> float:
    """Share of ``words`` (counted with repeats) that ``within`` also holds; 0.0 when ``words`` is empty."""
    total = sum(words.values())
    return sum((words & within).values()) / total if total else 0.0


def mean_words_per_line(lines: list[str]) -> float:
    """Average number of words on the given lines (0.0 for none)."""
    return sum(len(_WORD.findall(line)) for line in lines) / len(lines) if lines else 0.0


# A sentence-length line found exactly twice is a template's second rendering of one block (a mobile and a
# desktop copy, a carousel's clone). Short labels ("Add to cart") repeat across a page's records, and lines
# repeated three times or more are its own structure (an interview's recurring question, a meal plan's
# portions): both stay. wcxb-dev +0.0012 F1; article-benchmark F1 0.971 either way.
MIN_COPIED_LINE_WORDS = 8


def without_copied_lines(text: str) -> str:
    """``text`` without the second copy of any line of ``MIN_COPIED_LINE_WORDS`` words that appears exactly twice."""
    lines = text.split("\n")
    counts = Counter(line_key(line) for line in lines)
    seen: set[str] = set()
    kept = []
    for line in lines:
        key = line_key(line)
        if key in seen and counts[key] == 2 and len(key.split()) >= MIN_COPIED_LINE_WORDS:
            continue
        seen.add(key)
        kept.append(line)
    return "\n".join(kept)


def without_lines_in(text: str, blocks: list[str]) -> str:
    """``text`` without the lines that repeat one of ``blocks`` word for word."""
    if not blocks:
        return text
    known = {line_key(block) for block in blocks}
    return "\n".join(line for line in text.split("\n") if not (line.strip() and line_key(line) in known))
