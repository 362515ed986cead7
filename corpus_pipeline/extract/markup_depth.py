"""A flattened reading of markup nested deeper than a limit, and a cheap test of a parsed page's depth.

Parsers that build a tree from the source take time that grows with the square of the nesting, and lxml keeps only
255 levels and silently drops what follows. Broken markup reaches those depths on real pages (a CMS leaving a
``<font>`` open on every line): such a page is flattened (:func:`flatten_markup`) before any parser reads it, so
that every parser gets bounded nesting and all of the text.
"""

from __future__ import annotations

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


def flatten_markup(source: str, limit: int) -> str:
    """``source`` written again with no element deeper than ``limit`` levels (a void one at ``limit + 1``), every
    text in its order, or ``source`` itself when the HTML parser nests it ``limit`` levels deep at most.

    The elements nest as lxml's HTML parser nests them (read as a stream of events, so neither time nor stack grow
    with the nesting). Text arriving among the elements opened past the limit goes to the one whose tag tells a
    reader the most (a footer over a paragraph, over a ``<div>``, over a ``<font>``), written at the limit as the
    sibling of the one written there before: paragraphs each left open inside the previous one become siblings.
    Elements that never hold text, comments and processing instructions are left out (the page parser drops them).
    """
    target = _FlatteningTarget(limit)
    # huge_tree: no cap on a text's size; a parser with a target builds no tree, so no depth cap applies either.
    parser = etree.HTMLParser(
        target=target, recover=True, remove_comments=True, remove_pis=True, no_network=True, huge_tree=True
    )
    parser.feed(source)
    flat = parser.close()
    return source if target.depth <= limit else flat


class _FlatteningTarget:
    """An lxml parser target writing the markup it is given again, with its nesting bounded at ``limit``: the
    elements opened past ``limit - 1`` wait until text or a void element arrives among them (``_write_at_limit``)."""

    def __init__(self, limit: int) -> None:
        self._limit = max(limit, 1)
        self._parts: list[str] = []
        self._tags: list[str] = []  # the source's open elements, as the parser nests them
        self._shown = 0  # how many of them, from the root, are written (fewer than ``limit``)
        # The ones past those: their start tags, and by rank the indices (in ``_tags``) of the open ones.
        self._waiting: dict[int, str] = {}
        self._by_rank: list[list[int]] = [[] for _ in range(_RANKS)]
        self._at_limit: int | None = None  # which of them is written at the limit, open
        self.depth = 0  # how deep the parser nests the source

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
        """Write the waiting element that tells the most (``_rank``) at the limit, as the sibling of the one there."""
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

