"""The element of a website's template that holds its documents, learned from the whole website.

A generated website puts every document's text in the same element of its template: Sphinx's ``div.body``, a
WordPress theme's ``.entry-content``, MkDocs Material's ``article``. An extractor that sees one page at a time guesses
where the text is from that page alone, and leaves out what does not look like prose to it: a long table, a
gallery's captions, a thread's replies, a manual's option lists. The website answers that question with evidence from
all of its pages:

- on a page, every leaf block (a block element holding no other block) whose line an independent reader
  (Resiliparse's main-content reading) keeps counts its words for the elements around it, every other leaf block
  against them; the element with the highest balance, widened while the balance holds, is that page's container;
- each page votes for its container's *name* (tag, id and classes without the digits that number posts and pages);
- the names that many pages vote for are the website's containers. A page that holds one of them is read as that
  element's text, provided it holds most of what the page's own reader finds.

One page cannot outvote the website, so a page whose reader misses its table still gets it from the container the
other pages agree on; and a website with no shared container (one-off pages, a wcxb page) learns none and is read as
before.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree, html

from corpus_pipeline.extract.second_opinion import resiliparse_main_text
from corpus_pipeline.extract.text import WORD, line_key

# Elements whose children are laid out as separate lines; a leaf block holds none of them.
LINE_TAGS = frozenset(
    "address article aside blockquote dd details div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 header li "
    "main nav ol p pre section summary table tbody td th thead tfoot tr ul".split()
)
# What a template holds its documents in: an element that lays out lines, never a line itself (a paragraph named
# after its parent, ``div.post>p``, would name every paragraph and no list).
CONTAINER_TAGS = frozenset({"div", "main", "article", "section", "td"})
_NUMBERED = re.compile(r"\d")
# A name votes only when many pages agree: at least this many pages, and this share of the pages that voted.
MIN_VOTES = 3
MIN_VOTE_SHARE = 0.1
# A page is read through its container only when the container holds this share of its own reader's words.
MIN_READER_RECALL = 0.6


@dataclass(frozen=True)
class ContainerVote:
    """One page's container: its name and the words of the reader's reading it holds."""

    name: str
    words: int


def element_name(element: etree._Element) -> str:
    """An element's name as the template writes it: tag, id and classes, less those that number a post or page.

    A nameless element (no usable id or class) is named after its nearest named ancestor (``div.post>div``), so
    that a bare ``<div>`` of the page is not every page's container.
    """
    own = _own_name(element)
    if own != element.tag or element.tag in ("main", "article"):
        return own
    for ancestor in element.iterancestors():
        ancestor_name = _own_name(ancestor)
        if ancestor_name != ancestor.tag or ancestor.tag in ("main", "article", "body"):
            return f"{ancestor_name}>{own}"
    return own


def _own_name(element: etree._Element) -> str:
    tag = element.tag if isinstance(element.tag, str) else ""
    ident = (element.get("id") or "").strip()
    classes = sorted({c for c in (element.get("class") or "").split() if not _NUMBERED.search(c)})
    name = tag
    if ident and not _NUMBERED.search(ident) and len(ident) <= 40:
        name += f"#{ident}"
    if classes:
        name += "." + ".".join(classes)
    return name


def page_container(document: html.HtmlElement, text: str) -> ContainerVote | None:
    """The element of this page that holds its reader's main content best, as a vote (None: no element does).

    ``document`` is the page parsed, ``text`` its HTML source (what the reader reads).
    """
    body = document.find("body")
    if body is None:
        return None
    kept = {key for key in map(line_key, resiliparse_main_text(text).split("\n")) if key}
    if not kept:
        return None
    balance: dict[etree._Element, int] = {}
    held: dict[etree._Element, int] = {}
    leaves = _leaf_blocks(body)
    for leaf in leaves:
        key = line_key(leaf.text_content())
        words = len(key.split()) if key else 0
        if not words:
            continue
        inside = key in kept
        for element in (leaf, *leaf.iterancestors()):
            balance[element] = balance.get(element, 0) + (words if inside else -words)
            if inside:
                held[element] = held.get(element, 0) + words
            if element is body:
                break
    leaf_set = set(leaves)
    candidates = (e for e in balance if e is not body and e.tag in CONTAINER_TAGS and e not in leaf_set)
    best = max(candidates, key=lambda e: (balance[e], -_depth(e)), default=None)
    if best is None or balance[best] <= 0:
        return None
    # Widen while nothing is lost: an ancestor holding the same balance is the same container with wrapping, and
    # the outermost one is the name pages share (a page whose text sits in one section names its section).
    while (
        (parent := best.getparent()) is not None and parent is not body and parent.tag in CONTAINER_TAGS
        and balance.get(parent) == balance[best]
    ):
        best = parent
    return ContainerVote(element_name(best), held.get(best, 0))


def website_containers(votes: Iterable[ContainerVote | None]) -> tuple[str, ...]:
    """The names many pages of a website vote for, most votes first."""
    counts = Counter(vote.name for vote in votes if vote is not None)
    voters = sum(counts.values())
    return tuple(
        name for name, n in counts.most_common() if n >= MIN_VOTES and n >= MIN_VOTE_SHARE * voters
    )


def container_elements(document: html.HtmlElement, containers: tuple[str, ...]) -> list[etree._Element]:
    """The page's elements named by the first of ``containers`` it holds, outermost only, in document order."""
    if not containers:
        return []
    body = document.find("body")
    if body is None:
        return []
    by_name: dict[str, list[etree._Element]] = {}
    wanted = set(containers)
    for element in body.iter():
        if not isinstance(element.tag, str):
            continue
        name = element_name(element)
        if name in wanted:
            by_name.setdefault(name, []).append(element)
    for name in containers:
        if name in by_name:
            return _outermost(by_name[name])
    return []


def holds_reading(container_text: str, reading: str, min_recall: float = MIN_READER_RECALL) -> bool:
    """Whether the container's text holds most of the words of the page's own reading."""
    wanted = Counter(WORD.findall(reading.lower()))
    if not wanted:
        return bool(WORD.search(container_text))
    found = Counter(WORD.findall(container_text.lower()))
    return sum((wanted & found).values()) >= min_recall * sum(wanted.values())


def _leaf_blocks(body: etree._Element) -> list[etree._Element]:
    """The body's line elements that hold no other line element, in document order (one walk, no recursion)."""
    lines = [e for e in body.iter() if isinstance(e.tag, str) and e.tag in LINE_TAGS]
    holders: set[etree._Element] = set()
    for element in lines:
        for ancestor in element.iterancestors():
            if ancestor in holders:
                break  # its ancestors were marked by the line that marked it
            holders.add(ancestor)
    return [e for e in lines if e not in holders]


def _outermost(elements: list[etree._Element]) -> list[etree._Element]:
    chosen: list[etree._Element] = []
    for element in elements:
        if chosen and any(ancestor is chosen[-1] for ancestor in element.iterancestors()):
            continue
        chosen.append(element)
    return chosen


def _depth(element: etree._Element) -> int:
    return sum(1 for _ in element.iterancestors())
