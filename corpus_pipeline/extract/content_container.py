"""The element of a website's template that holds its documents, learned from the whole website.

A generated website puts every document's text in the same element (Sphinx's ``div.body``, a WordPress theme's
``.entry-content``), where a one-page extractor leaves out what does not look like prose (a long table, a changelog's
lists). On each page, every leaf block's words count for the elements around it as far as Resiliparse or trafilatura
keeps them, and against them otherwise; the best-balanced element, widened while the balance holds, votes for its
name (tag, id and classes, less numbering) with the words it holds. The names many pages vote for are the website's
containers: a page holding one is read as its text, unless its own reader finds a document elsewhere.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain, islice

from lxml import etree, html

from corpus_pipeline.extract.html_tree import text_content
from corpus_pipeline.extract.second_opinion import resiliparse_main_text
from corpus_pipeline.extract.text import WORD, ReadWords, line_key

# Elements whose children are laid out as separate lines; a leaf block holds none of them.
LINE_TAGS = frozenset(
    "address article aside blockquote dd details div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 header li "
    "main nav ol p pre section summary table tbody td th thead tfoot tr ul".split()
)
# What a template holds its documents in: an element that lays out lines, never a line itself (a paragraph named
# after its parent, ``div.post>p``, would name every paragraph and no list).
CONTAINER_TAGS = frozenset({"div", "main", "article", "section", "td"})
# Tags that name a page's content by themselves, with no id or class.
NAMED_TAGS = frozenset({"main", "article"})
# A name holds at most this many ancestors' names above the element's own.
MAX_NAME_LEVELS = 4
_NUMBERED = re.compile(r"\d")
# A name votes only when many pages agree: at least this many pages, and this share of the pages that voted.
MIN_VOTES = 3
MIN_VOTE_SHARE = 0.1
# A page is read through its container unless its own reader finds a document elsewhere: at least this many words
# outside the container, and this many times the container's words.
MAX_OUTSIDE_WORDS = 100
MAX_OUTSIDE_RATIO = 4


@dataclass(frozen=True)
class ContainerVote:
    """One page's container: its name and the words of the readers' readings it holds."""

    name: str
    words: int


def element_name(element: etree._Element, levels: int = 0) -> str:
    """An element's name as the template writes it: tag, id and classes, less those that number a post or page,
    after the names of its ``levels`` nearest ancestors (``main.site>div.group``)."""
    names = [_own_name(e) for e in islice(chain((element,), element.iterancestors()), levels + 1)]
    return ">".join(reversed(names))


def vote_name(element: etree._Element, body: etree._Element) -> str:
    """The name a page votes for: the element's own name, after as many of its ancestors' as it takes to name it
    alone on the page (a layout class that also names the header's and the footer's groups names none of them),
    and at least up to a named ancestor (a bare ``<div>`` is not every page's container)."""
    levels = 0
    if _own_name(element) == element.tag and element.tag not in NAMED_TAGS:
        for levels, ancestor in enumerate(element.iterancestors(), start=1):
            if levels >= MAX_NAME_LEVELS or ancestor is body or _own_name(ancestor) != ancestor.tag:
                break
    while levels < MAX_NAME_LEVELS and _named_elsewhere(element, body, levels):
        levels += 1
    return element_name(element, levels)


def _named_elsewhere(element: etree._Element, body: etree._Element, levels: int) -> bool:
    """Whether another element of the page, neither inside ``element`` nor around it, has its name."""
    name, own = element_name(element, levels), _own_name(element)
    around = set(element.iterancestors())
    return any(
        other is not element and other not in around and _own_name(other) == own
        and element_name(other, levels) == name and not _contains(element, other)
        for other in body.iter(element.tag)
    )


def _own_name(element: etree._Element) -> str:
    name = element.tag if isinstance(element.tag, str) else ""
    ident = (element.get("id") or "").strip()
    if ident and not _NUMBERED.search(ident) and len(ident) <= 40:
        name += f"#{ident}"
    classes = sorted({c for c in (element.get("class") or "").split() if not _NUMBERED.search(c)})
    return name + "".join(f".{c}" for c in classes)


def page_container(document: html.HtmlElement, text: str) -> ContainerVote | None:
    """The element of this page that holds its readers' main content best, as a vote (None: no element does);
    ``text``: the page's HTML source, which ``document`` is parsed from."""
    body = document.find("body")
    if body is None:
        return None
    # Two independent readers: a line either keeps is evidence for the elements around it (one reader alone fails on
    # whole templates: Resiliparse reads Docusaurus's blog posts as their headings).
    evidence = ReadWords((resiliparse_main_text(text), _trafilatura_text(text)))
    if not evidence:
        return None
    balance: dict[etree._Element, float] = {}
    held: dict[etree._Element, float] = {}
    leaves = _leaf_blocks(body)
    for leaf in leaves:
        tokens = line_key(text_content(leaf)).split()
        if not tokens:
            continue
        kept = evidence.read_share(tokens) * len(tokens)
        for element in (leaf, *leaf.iterancestors()):
            balance[element] = balance.get(element, 0) + 2 * kept - len(tokens)
            held[element] = held.get(element, 0) + kept
            if element is body:
                break
    leaf_set = set(leaves)
    candidates = (e for e in balance if e is not body and e.tag in CONTAINER_TAGS and e not in leaf_set)
    best = max(candidates, key=lambda e: (balance[e], -sum(1 for _ in e.iterancestors())), default=None)
    if best is None or balance[best] <= 0:
        return None
    # Widen while nothing is lost: an ancestor holding the same balance is the same container with wrapping, and
    # the outermost one is the name pages share (a page whose text sits in one section names its section).
    while (
        (parent := best.getparent()) is not None and parent is not body and parent.tag in CONTAINER_TAGS
        and balance.get(parent) == balance[best]
    ):
        best = parent
    return ContainerVote(vote_name(best, body), round(held.get(best, 0)))


def _trafilatura_text(text: str) -> str:
    # Imported here: the survey of an unchanged night reads no page, and trafilatura takes ~0.2 CPU s to import.
    import trafilatura

    return trafilatura.extract(text, include_comments=False, include_tables=True, fast=True) or ""


def website_containers(votes: Iterable[ContainerVote | None]) -> tuple[str, ...]:
    """The names many pages of a website vote for, heaviest first: a vote weighs the words its container holds, so
    that the hundreds of near-empty pages a wiki or a forum serves (edit forms, histories) do not outvote its articles.
    """
    counts: Counter[str] = Counter()
    weights: Counter[str] = Counter()
    for vote in votes:
        if vote is not None and vote.words > 0:
            counts[vote.name] += 1
            weights[vote.name] += vote.words
    total = sum(weights.values())
    return tuple(
        name for name, weight in weights.most_common()
        if counts[name] >= MIN_VOTES and weight >= MIN_VOTE_SHARE * total
    )


def container_elements(document: html.HtmlElement, containers: tuple[str, ...]) -> list[etree._Element]:
    """The page's elements of the heaviest of ``containers`` it holds, outermost only, in document order; of two
    nested containers, the inner one (a docs page's ``div.markdown`` in a blog's ``article``, which adds a header)."""
    body = document.find("body")
    if not containers or body is None:  # (no containers: no tags, and iter() would walk every element)
        return []
    by_own: defaultdict[str, list[str]] = defaultdict(list)  # an element's own name -> the containers it may be
    for name in containers:
        by_own[name.rsplit(">", 1)[-1]].append(name)
    by_name: defaultdict[str, list[etree._Element]] = defaultdict(list)
    # Only the elements of the containers' tags are named (a fraction of the page's elements).
    tags = {re.split(r"[#.]", own, maxsplit=1)[0] for own in by_own}
    for element in body.iter(*tags):
        for name in by_own.get(_own_name(element), ()):
            if element_name(element, name.count(">")) == name:
                by_name[name].append(element)
    present = {name: _outermost(elements) for name, elements in by_name.items()}
    holders = {
        name for name, elements in present.items()
        if any(_contains(outer, inner) for other, inners in present.items() if other != name
               for outer in elements for inner in inners)
    }
    for name in containers:
        if name in present and name not in holders:
            return present[name]
    return []


def _contains(outer: etree._Element, inner: etree._Element) -> bool:
    return any(ancestor is outer for ancestor in inner.iterancestors())


def reader_agrees(container_text: str, reading: str, own_words: int | None = None) -> bool:
    """Whether the page's own reader finds no document outside the container: the words of its ``reading`` that the
    container's text lacks are fewer than ``MAX_OUTSIDE_WORDS`` or than ``MAX_OUTSIDE_RATIO`` times the container's
    (a short post's byline and tags may outnumber it). A container of template lines only (``own_words``: its words
    outside the template's lines, when known, is 0) loses to a reader that finds more words elsewhere."""
    found = Counter(WORD.findall(container_text.lower()))
    held = sum(found.values())
    outside = sum((Counter(WORD.findall(reading.lower())) - found).values())
    if own_words == 0 and outside > held:
        return False
    return outside < MAX_OUTSIDE_WORDS or outside < MAX_OUTSIDE_RATIO * held


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
        if not (chosen and _contains(chosen[-1], element)):
            chosen.append(element)
    return chosen
