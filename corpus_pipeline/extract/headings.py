"""Headings the main-content extractor dropped, put back over the text they introduce.

trafilatura judges headings as it judges any line: a card title that is a link reads as navigation and goes,
while the excerpt under it stays. A heading whose following words open a kept line belongs to that line. The
page's headline is the other way round: the record's ``title`` holds it, so it is neither put back nor kept as the
opening line of a reading.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

from lxml import etree, html

from corpus_pipeline.extract.html_tree import text_content
from corpus_pipeline.extract.metadata import TITLE_SEPARATORS
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.text import WORD, line_key

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_UNREAD = frozenset({"script", "style"})
_MOST_H1 = 8  # the h1s read for the title's parts: a page's header and its headline come first


def heading_anchors(
    document: html.HtmlElement, settings: ExtractionSettings = DEFAULT_SETTINGS, titles: tuple[str, ...] | None = None
) -> list[tuple[str, str]]:
    """Each heading's text with the first words that follow it, in document order, the page's headline (the heading
    that repeats its title) left out. ``titles``: the page's :func:`page_titles`, when the caller has read them."""
    anchors = []
    if titles is None:
        titles = page_titles(document) if settings.headline_left_out else ()
    for heading in document.iter(*_HEADINGS):
        words = text_content(heading).split()
        if not words or len(words) > settings.max_heading_words:
            continue
        text = " ".join(words)
        if (key := line_key(text)) and any(_is_headline(key, title) for title in titles):
            continue
        following: list[str] = []
        for fragment in islice(_text_after(heading), settings.max_following_fragments):
            following += WORD.findall(fragment.lower())
            if len(following) >= settings.anchor_words:
                anchors.append((text, " ".join(following[: settings.anchor_words])))
                break
    return anchors


class _Part(str):
    """A title's part that is the page's first h1: a heading is the headline when it is all of it (half of a short
    part is any line of one of its words, "axios({" of "axios API")."""


def page_titles(document: html.HtmlElement) -> tuple[str, ...]:
    """The words of the page's ``<title>`` and ``og:title`` (what the title column is read from), and of the part of
    the title that is the page's first h1 (a short headline beside a long site name: "License - PyMdown Extensions
    Documentation", where the site's name, not "License", is most of the title)."""
    found = [document.findtext(".//title") or ""]
    # The document's first og:title with a content: a walk of the tree that stops there (an XPath reads it all).
    for meta in document.getroottree().getroot().iter("meta"):
        if meta.get("property") == "og:title" and (content := meta.get("content")) is not None:
            found.append(content)
            break
    keys = [key for title in found if (key := line_key(title))]
    if any(TITLE_SEPARATORS.search(title) for title in found):
        parts = {line_key(part) for title in found for part in TITLE_SEPARATORS.split(title)}
        # One part only: where the site's name is an h1 too ("dotenv 17.2.3 – dotenv Release Notes", both parts h1s
        # in WordPress's block themes), the h1s do not tell the headline from the name.
        named = {key for h1 in islice(document.iter("h1"), _MOST_H1) if (key := line_key(text_content(h1))) in parts}
        if len(named) == 1 and (key := named.pop()) not in keys:
            keys.append(_Part(key))
    return tuple(keys)


def _is_headline(heading: str, title: str) -> bool:
    """Whether a heading is the title's own words, whole words: most of it (a title adds the site's name, "Headline |
    Site"; "Legacy EM" is no headline of "Legacy Emphasis - Python-Markdown"), or all of its part that is the h1."""
    if isinstance(title, _Part):
        return heading == title
    return f" {heading} " in f" {title} " and 2 * len(heading.split()) >= len(title.split())


def without_headline(
    text: str, titles: tuple[str, ...], settings: ExtractionSettings = DEFAULT_SETTINGS
) -> str:
    """``text`` from the line after the page's headline (the words of one of ``titles``), when only the page's header
    stands above it: lines of ``settings.max_header_line_words`` words or fewer (a kicker, breadcrumbs, a dateline).
    Below a longer line, a line with the title's words is the page's own (a product's name in its specs), and stays.
    """
    lines = text.split("\n")
    for index, line in enumerate(lines):
        key = line_key(line)
        if key and any(_is_headline(key, title) for title in titles):
            return "\n".join(lines[index + 1 :])
        if len(key.split()) > settings.max_header_line_words:
            return text
    return text


def _text_after(element: html.HtmlElement) -> Iterator[str]:
    """The non-blank text nodes after ``element`` ends, in document order, read lazily (an XPath ``following::``
    would build the rest of the page's node-set for every heading)."""

    node = element
    while node is not None:
        if node.tail and node.tail.strip():
            yield node.tail
        for sibling in node.itersiblings():
            yield from _text_within(sibling)
        node = node.getparent()


def _text_within(element: html.HtmlElement) -> Iterator[str]:
    """The non-blank text nodes of ``element``'s subtree and its tail, in document order (no script or style)."""
    if not isinstance(element.tag, str) or len(element) == 0:
        # A comment or processing instruction (only its tail is text), or an element without children (most).
        if element.text and isinstance(element.tag, str) and element.tag not in _UNREAD and element.text.strip():
            yield element.text
        if element.tail and element.tail.strip():
            yield element.tail
        return
    for event, node in etree.iterwalk(element, events=("start", "end", "comment", "pi")):
        if event == "start":
            fragment = None if node.tag in _UNREAD else node.text
        else:  # the end of an element, a comment or a processing instruction: what follows it
            fragment = node.tail
        if fragment and fragment.strip():
            yield fragment


def restore_headings(
    text: str, anchors: list[tuple[str, str]], settings: ExtractionSettings = DEFAULT_SETTINGS
) -> str:
    """``text`` (one block per line) with each missing heading put back before the line it introduces."""
    if not anchors:
        return text
    lines = text.split("\n")
    keys = [line_key(line) for line in lines]
    present = set(keys)
    if all(not key or key in present for key in map(line_key, (heading for heading, _ in anchors))):
        return text  # every heading is in the text already: no line's opening is needed
    opening_line: dict[str, int] = {}
    for index, key in enumerate(keys):
        # A key's words are single-spaced: its opening is split off, not all its words.
        if opening := " ".join(key.split(" ", settings.anchor_words)[: settings.anchor_words]):
            opening_line.setdefault(opening, index)
    inserted: dict[int, list[str]] = {}
    for heading, following in anchors:
        at = opening_line.get(following)
        if at is not None and (key := line_key(heading)) and key not in present:
            inserted.setdefault(at, []).append(heading)
            present.add(key)
    return "\n".join(restored for index, line in enumerate(lines) for restored in [*inserted.get(index, []), line])
