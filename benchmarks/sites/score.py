"""Truth and scores of the site suite: the template's main container as truth, lines unique within a language,
text repeated across a website's pages."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from lxml import etree, html

from benchmarks.common import bag_f1

# Elements after which text starts a new line (as a browser lays them out).
LINE_BREAKING_TAGS = frozenset(
    "address article aside blockquote br dd div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 header hr li main "
    "nav ol p pre section table tbody td th thead tr ul".split()
)
SKIPPED_TAGS = frozenset(("script", "style", "noscript", "template"))
# What an extractor may put before a list item or heading line ("- item", "# Title"): not part of the line's text.
LINE_MARKERS = "-*•# "


def truth_text(body: bytes, selector: str) -> str:
    """The text of every element matching the CSS selector, one line per block, blocks in document order."""
    document = html.document_fromstring(body)
    return "\n".join(block_text(element) for element in document.cssselect(selector))


def block_text(element: etree._Element) -> str:
    """An element's text with a line break at every block boundary, each line's whitespace collapsed."""
    pieces = "".join(_pieces(element))
    return "\n".join(line for line in (" ".join(raw.split()) for raw in pieces.split("\n")) if line)


def _pieces(element: etree._Element) -> Iterator[str]:
    if not isinstance(element.tag, str) or element.tag in SKIPPED_TAGS:
        return
    breaks = element.tag in LINE_BREAKING_TAGS
    if breaks:
        yield "\n"
    if element.text:
        yield element.text
    for child in element:
        yield from _pieces(child)
        if child.tail:
            yield child.tail
    if breaks:
        yield "\n"


def line_keys(text: str | None) -> set[str]:
    """The distinct lines of a text, whitespace-collapsed, lower-cased, without list markers; lines without a letter
    or digit left out."""
    keys = set()
    for line in (text or "").split("\n"):
        key = " ".join(line.lower().split()).lstrip(LINE_MARKERS)
        if any(c.isalnum() for c in key):
            keys.add(key)
    return keys


def pages_per_line(pages: Iterable[set[str]]) -> Counter[str]:
    """For each line key, on how many pages (given as their sets of line keys) it appears."""
    counts: Counter[str] = Counter()
    for keys in pages:
        counts.update(keys)
    return counts


def without_lines(text: str | None, lines: set[str] | Counter[str], min_pages: int = 2) -> str:
    """The text without its lines that appear on ``min_pages`` pages or more (``lines`` counts pages per line)."""
    kept = [line for line in (text or "").split("\n") if lines.get(" ".join(line.lower().split()).lstrip(LINE_MARKERS), 0) < min_pages]
    return "\n".join(kept)


def mean_f1(pairs: Iterable[tuple[str | None, str]]) -> float:
    """Mean word-bag F1 of (predicted, truth) pairs whose truth holds words."""
    scores = [bag_f1(predicted, truth) for predicted, truth in pairs if truth and truth.strip()]
    return sum(scores) / len(scores) if scores else float("nan")
