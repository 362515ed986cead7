"""A flattened reading of markup nested deeper than a limit, and a cheap test of a parsed page's depth.

Parsers that build a tree from the source (Resiliparse's second opinion reads the page's source, not lxml's tree)
take time that grows with the square of the nesting, and lxml keeps only 255 levels and silently drops everything
that follows. Broken markup reaches those depths on real pages (a CMS leaving a ``<font>`` or a ``<div>`` open on
every line): such a page is not refused but flattened (:func:`flatten_markup`) before any parser reads it, so that
every parser gets bounded nesting and all of the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from lxml import etree

# Elements that never hold children: written without an end tag (an "</br>" would read as another line break).
_VOID = frozenset(
    "area base basefont bgsound br col embed frame hr img input isindex keygen link meta param source track wbr".split()
)
# Elements whose text the HTML parser takes as written (no entities, no tags): written back as read.
_RAW_TEXT = frozenset(("script", "style", "xmp", "iframe", "noembed", "noframes", "plaintext"))
# Which of the elements open past the depth limit holds their text, the one whose tag tells a reader the most: an
# element readers drop whole (trafilatura cleans footers, navigation, forms...) over a block (a paragraph, a heading,
# a list item) over a generic container (div) over a phrasing element (b, font). Among equals, the innermost.
_DROPPED_WHOLE = frozenset(
    "header footer nav aside form menu figure dialog fieldset select button noscript template script style svg math"
    " iframe object textarea title head".split()
)
_GENERIC = frozenset(("div", "center", "html", "body"))
_INLINE = frozenset(
    "a abbr acronym b bdi bdo big blink cite code data del dfn em font i ins kbd label mark nobr q s samp small span"
    " strike strong sub sup time tt u var".split()
)
_RANKS = 4
# The deepest nesting lxml's HTML parser keeps (without huge_tree): the rest of a deeper page is dropped.
LXML_DEPTH = 256


def tree_deeper_than(document: etree._Element, limit: int) -> bool:
    """Whether the page lxml parsed as ``document`` nests deeper than ``limit`` levels, or may: a page deeper than
    the ``LXML_DEPTH`` levels lxml keeps is cut there (one XPath step a level, in C)."""
    return _element_at_depth(min(limit + 1, LXML_DEPTH))(document)


@cache
def _element_at_depth(depth: int) -> etree.XPath:
    return etree.XPath("boolean(/*" + "/*" * (depth - 1) + ")")


@dataclass(frozen=True)
class FlatMarkup:
    """A page's markup with its nesting bounded (see :func:`flatten_markup`).

    ``source``: the markup to parse (the page's own source when it was within the limit); ``depth``: how deep the
    HTML parser nests the original source; ``moved``: how many of its elements opened past the limit.
    """

    source: str
    depth: int
    moved: int


def flatten_markup(source: str, limit: int) -> FlatMarkup:
    """``source`` written again with no element deeper than ``limit`` levels (a void one at ``limit + 1``), every
    text in its order, or ``source`` itself when the HTML parser nests it ``limit`` levels deep at most.

    lxml's HTML parser reads the source as a stream of events (with its own repairs), never as a tree, so that
    neither time nor stack grow with the nesting, and the elements nest as lxml would nest them. The elements opened
    past the limit take turns at it: text arriving among them goes to the one whose tag tells a reader the most (a
    footer over a paragraph, over a ``<div>``, over a ``<font>``), written at the limit as the sibling of the one
    written there before, so thousands of paragraphs each left open inside the previous one become sibling blocks.
    One that never holds text is left out, as are comments and processing instructions (the page parser drops them).
    """
    target = _FlatteningTarget(limit)
    # huge_tree: no cap on a text's size; a parser with a target builds no tree, so no depth cap applies either.
    parser = etree.HTMLParser(
        target=target, recover=True, remove_comments=True, remove_pis=True, no_network=True, huge_tree=True
    )
    parser.feed(source)
    flat = parser.close()
    if target.depth <= limit:
        return FlatMarkup(source, target.depth, 0)
    return FlatMarkup(flat, target.depth, target.moved)


class _FlatteningTarget:
    """An lxml parser target writing the markup it is given again, with its nesting bounded at ``limit``.

    The elements the parser opens while ``limit - 1`` are open are not written when they open: they wait, and text
    (or a void element) arriving among them goes to the one of them that tells the most (``_rank``), written at
    the limit; when that changes, the element written there is closed and the new one written as its sibling.
    """

    def __init__(self, limit: int) -> None:
        self._limit = max(limit, 1)
        self._parts: list[str] = []
        self._tags: list[str] = []  # the source's open elements, as the parser nests them
        self._shown = 0  # how many of them, from the root, are written (fewer than ``limit``)
        # The ones past those: their start tags, and by rank the indices (in ``_tags``) of the open ones.
        self._waiting: dict[int, str] = {}
        self._by_rank: list[list[int]] = [[] for _ in range(_RANKS)]
        self._at_limit: int | None = None  # which of them is written at the limit, open
        self.depth = 0
        self.moved = 0

    def doctype(self, name: str | None, public_id: str | None, system_url: str | None) -> None:
        """lxml's callback for the document type declaration: written back."""
        public = f' PUBLIC "{public_id}"' if public_id else ""
        system = f' "{system_url}"' if system_url else ""
        self._parts.append(f"<!DOCTYPE {name or 'html'}{public}{system}>")

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        """An element opens: written below the limit, else held until text arrives in it."""
        index = len(self._tags)
        self._tags.append(tag)
        self.depth = max(self.depth, index + 1)
        markup = _start_tag(tag, attrib)
        if tag in _VOID:  # no children: one level below the limit cannot nest any deeper
            self._write_at_limit()
            self._parts.append(markup)
        elif self._shown == index and index < self._limit - 1:
            self._parts.append(markup)
            self._shown += 1
        else:
            self.moved += 1
            self._waiting[index] = markup
            self._by_rank[_rank(tag)].append(index)

    def end(self, tag: str) -> None:
        """An element closes (the parser closes every element it opened, innermost first)."""
        index = len(self._tags) - 1
        del self._tags[-1]
        if tag in _VOID:
            return
        if index < self._shown:
            self._shown -= 1
            self._parts.append(f"</{tag}>")
            return
        del self._waiting[index]
        self._by_rank[_rank(tag)].pop()
        if self._at_limit == index:
            self._parts.append(f"</{tag}>")
            self._at_limit = None

    def data(self, text: str) -> None:
        """Text goes to the innermost written element, past the limit to the one chosen there."""
        if self._waiting and not text.isspace():
            self._write_at_limit()
        receiver = self._at_limit if self._at_limit is not None else self._shown - 1
        raw = receiver >= 0 and self._tags[receiver] in _RAW_TEXT
        self._parts.append(text if raw else text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))

    def close(self) -> str:
        """The written markup."""
        return "".join(self._parts)

    def _write_at_limit(self) -> None:
        if not self._waiting:
            return
        chosen = next(ranked[-1] for ranked in reversed(self._by_rank) if ranked)
        if chosen == self._at_limit:
            return
        if self._at_limit is not None:
            self._parts.append(f"</{self._tags[self._at_limit]}>")
        self._parts.append(self._waiting[chosen])
        self._at_limit = chosen


def _rank(tag: str) -> int:
    if tag in _DROPPED_WHOLE:
        return 3
    if tag in _INLINE:
        return 0
    return 1 if tag in _GENERIC else 2


def _start_tag(tag: str, attrib: dict[str, str]) -> str:
    attributes = "".join(
        f' {name}="{value.replace("&", "&amp;").replace(chr(34), "&quot;")}"' for name, value in attrib.items()
    )
    return f"<{tag}{attributes}>"

