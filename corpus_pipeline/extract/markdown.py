"""A document's main content as Markdown, from the same reading as its plain text.

The plain text (``content``) is a sequence of lines: each paragraph, heading, list item, table cell or code line is
one. :func:`render_elements` walks the elements a reading selected and gives those lines as :class:`Line` values,
each carrying its place in the Markdown and its inline Markdown (emphasis, inline code, math, links and images when
asked, the rest escaped). :func:`markdown_of` lays the lines out as Markdown holding the same words, in the same
order, as :func:`plain_of`'s plain text (the tests read it back to check).

The readings that work on lines (trafilatura, the second opinion, the line filters) are mapped back onto the
rendered lines with :func:`mapped_lines`.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import groupby, islice
from typing import Literal, NamedTuple
from urllib.parse import quote, urljoin

from lxml import etree

from corpus_pipeline.extract.html_tree import text_content
from corpus_pipeline.extract.markup import BLOCK_TAGS
from corpus_pipeline.extract.text import SPACES, WORD, line_key

LineKind = Literal["paragraph", "heading", "item", "cell", "code"]

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_STRONG = frozenset({"strong", "b"})
_EMPHASIS = frozenset({"em", "i", "cite", "dfn"})
_INLINE_CODE = frozenset({"code", "kbd", "samp", "tt", "var"})
# Their markup: opener, closer, whether its text is code.
_MARKUP = {
    **dict.fromkeys(_STRONG, ("**", "**", False)), **dict.fromkeys(_EMPHASIS, ("*", "*", False)),
    **dict.fromkeys(_INLINE_CODE, ("`", "`", True)),
}
# A table whose cells hold any of these lays a page out; it is read as text, not as a data table.
_LAYOUT_CONTENT = frozenset(BLOCK_TAGS - {"br", "p", "td", "th", "tr", "tbody", "thead", "tfoot"})
_TABLE_SECTIONS = frozenset({"thead", "tbody", "tfoot"})
# The block elements rendered otherwise than as a block of lines (:meth:`_Renderer._own_block`).
_OWN_RENDERING = frozenset({"br", "pre", "table", "dt"})
# The block elements whose content has a context of its own (:meth:`_Renderer._inner`): a list, an item, a heading,
# a quote or callout box.
_BOXES = frozenset({"div", "aside", "section"})  # a quote when its classes name a callout box
_CONTEXT_TAGS = frozenset({"ul", "ol", "li", *_HEADINGS, "blockquote", *_BOXES})
# Never text a reader sees (the readings that keep them in the tree, for trafilatura's ld+json, read no text there).
_UNRENDERED = frozenset({"script", "style", "noscript", "template"})
# Class words that name a callout box (MkDocs' admonitions, Docusaurus', VitePress' and Hugo themes' notices).
_CALLOUT_CLASSES = frozenset({
    "admonition", "theme-admonition", "custom-block", "notices", "callout", "alert", "note", "warning", "tip",
    "important", "caution", "hint",
})
# Highlighter class prefixes and wrappers that name a code block's language (``language-python``, ``lang-js``,
# ``highlight-python``), or a class word after which the next names it (Pandoc's ``sourceCode numberSource python``,
# SyntaxHighlighter's ``brush: js;``); words that are never a language are left out.
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight|brush:?|sourcecode)-?([\w+#.-]+)$", re.IGNORECASE)
_LANGUAGE_AFTER = re.compile(r"(?:^|\s)(?:sourceCode(?:\s+number\w+)*|brush:)\s+([\w+#.-]+)", re.IGNORECASE)
_NOT_LANGUAGES = frozenset({
    "highlight", "notranslate", "default", "none", "text", "plain", "plaintext", "source", "code", "chroma",
    "hljs", "shiki", "nohighlight", "sourcecode", "default-lang", "codehilite",
})
# Characters that open Markdown inline syntax anywhere in a line, escaped in text: always, and ``<`` before what
# would read as a tag, ``&`` before what would read as an entity, either at a text's end (the next element's text
# follows it: "Expression<" then a link's "RawServer>").
_BACKSLASHED = str.maketrans({char: "\\" + char for char in "\\`*[]$"})
_TAG_START = re.compile(r"<(?=[A-Za-z/!?]|$)")
_ENTITY_START = re.compile(r"&(?=#?\w+;|$)")
_BACKTICKS = re.compile("`+")
_ESCAPABLE = re.compile(r"[\\`*\[\]$<&_|]")
# An underscore that could open or close emphasis (not between two word characters).
_LOOSE_UNDERSCORE = re.compile(r"(?<!\w)_|_(?!\w)")
# What opens a block when a line starts with it: ATX heading, quote, list item, thematic break, setext underline,
# fence, table row.
_LINE_START = re.compile(r"^(?:(#{1,6})(?=\s|$)|([>|~+=-])|(\d{1,9})([.)])(?=\s|$))")
_LINE_START_CHARS = frozenset("#>|~+=-")  # what such a line starts with, when not a digit
# What trafilatura's text output adds to a list item and a table row.
_TEXT_ITEM = re.compile(r"^(\s*)(?:[-*•]|\d{1,9}[.)])\s+(.*)$")
_TEXT_ROW = re.compile(r"^\|(.*)\|$")
# Math as pages carry it: TeX in a MathJax script, in a KaTeX / MathML annotation, or as delimited text that a script
# typesets in the browser (pymdownx.arithmatex's ``\(...\)`` and ``\[...\]``).
TEX_ATTRIBUTE = "data-tex"
_DISPLAY_ATTRIBUTE = "data-tex-display"
_MATH_SCRIPT_TYPE = "math/tex"
_TEX_ENCODING = "application/x-tex"
_DELIMITED_TEX = re.compile(
    r"^\s*(?:\\\((?P<inline>.*)\\\)|\\\[(?P<display>.*)\\\]|\$\$(?P<dollars>.*)\$\$)\s*$", re.DOTALL
)
# The TeX such a page's text holds, as MathJax and KaTeX's auto-render delimit it: ``$$...$$`` and ``\[...\]``
# (display), ``\(...\)`` and ``$...$`` (in a line). A ``$...$`` opens before a non-space and closes after one, not
# before a digit (Pandoc's rule: "$5 and $10" is no math); an escaped dollar opens nothing.
_TEXT_TEX = re.compile(
    r"(?<!\\)(?:\$\$(?P<dollars>.+?)\$\$|\\\[(?P<display>.+?)\\\]|\\\((?P<inline>.+?)\\\)"
    r"|\$(?P<dollar>[^\s$](?:[^$\n]*?[^\s$\\])?)\$(?!\d))",
    re.DOTALL,
)
# Where the text is not typeset: code, scripts, form fields, math already marked.
_NOT_TYPESET = frozenset({"pre", "code", "kbd", "samp", "script", "style", "noscript", "template", "textarea", "math"})


@dataclass(frozen=True)
class MarkdownOptions:
    """What the Markdown keeps beyond the text (the plain text holds neither the URLs nor the images)."""

    links: bool = False  # links as [text](absolute URL)
    images: bool = False  # images as ![alt](URL)
    base_url: str = ""  # the page's URL, that relative ones resolve against


DEFAULT_MARKDOWN_OPTIONS = MarkdownOptions()


@dataclass(slots=True)
class Line:
    """One line of the plain text and its place in the Markdown."""

    plain: str  # the line as the plain text holds it (whitespace-normalized)
    markdown: str  # its inline Markdown (escaped; a code line's own text, whitespace intact)
    kind: LineKind = "paragraph"
    level: int = 0  # a heading's level, else the list depth (0 outside lists)
    marker: str = ""  # a list item's marker on its first line ("-", "3."), "" on its other lines
    group: int = 0  # the table or code block it belongs to
    row: int = 0
    col: int = 0
    quote: int = 0  # block-quote depth
    joined: bool = False  # it continues the line before it in one block (a line break in the source, a <br>)
    language: str = ""  # a code line's block's declared language
    code: tuple[str, ...] = field(default=(), compare=False, repr=False)  # a code line's whole block, raw
    index: int = 0  # a code line's place in ``code``
    heading: int = 0  # a list item's line that is a heading (``- ### Options``): its level


def normalized_line(text: str) -> str:
    """One line as the plain text holds it: NFC, spaces collapsed, no leading or trailing space."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    # SPACES matches two spaces or a space character other than " ", and every such character is unprintable: most
    # lines have neither, and these two scans cost a fraction of the regex's stop at each of their spaces.
    if "  " in text or not text.isprintable():
        text = SPACES.sub(" ", text)
    return text.strip()


def escaped(text: str, *, in_table: bool = False) -> str:
    """``text`` with every character that would read as Markdown syntax escaped (inline syntax anywhere; block
    syntax where it opens the line; ``|`` in a table cell)."""
    if _ESCAPABLE.search(text) is None:  # most text: nothing to escape
        return text
    text = text.translate(_BACKSLASHED)
    if "<" in text:
        text = _TAG_START.sub(r"\\<", text)
    if "&" in text:
        text = _ENTITY_START.sub(r"\\&", text)
    if "_" in text:
        text = _LOOSE_UNDERSCORE.sub(r"\\_", text)
    return text.replace("|", "\\|") if in_table else text


def _escaped_line_start(markdown: str) -> str:
    """A line's Markdown with the character that would open a block at its start escaped."""
    start = markdown[:1]
    # Most lines start with a letter: no match is possible, the regex is not run (``\d`` is ``isdecimal``).
    if start not in _LINE_START_CHARS and not start.isdecimal() or (match := _LINE_START.match(markdown)) is None:
        return markdown
    if match.group(3) is not None:
        return f"{match.group(3)}\\{markdown[match.end(3):]}"
    return "\\" + markdown


# -- rendering the selected elements ---------------------------------------------------------------------------


class _Context(NamedTuple):
    """Where the walk is: block-quote depth, list depth, the open list item, heading level, table cell."""

    quote: int = 0
    depth: int = 0
    item: _Item | None = None
    heading: int = 0
    cell: tuple[int, int, int] | None = None
    list_group: int = 0  # the list the walk is in


@dataclass
class _Item:
    """An open list item: its marker, given to its first line only."""

    marker: str
    used: bool = False


@dataclass
class _Marker:
    """An open inline element: what opens and closes it, where its opening stands in the line's Markdown."""

    opener: str
    closer: str
    at: int
    code: bool = False


class _Renderer:
    """The walk over the selected elements: one current line (its plain text and its Markdown), the lines so far."""

    def __init__(self, options: MarkdownOptions, left_out: frozenset[str] = frozenset()) -> None:
        self.options = options
        self.unrendered = _UNRENDERED | left_out
        self.lines: list[Line] = []
        self.plain: list[str] = []
        self.markdown: list[str] = []
        self.open: list[_Marker] = []
        self.block = 0  # the block the current line belongs to: lines of one block are joined
        self.last_block = -1
        self.groups = 0
        self.code_end: tuple[int, int] | None = None  # the last code span closed: (its start, the line's end then)
        self.code_spans = 0  # code spans open: their text is literal
        self.images = 0  # images in the current line's Markdown (a line of images alone has no plain text)

    # The current line -------------------------------------------------------------------------------------------

    def text(self, text: str | None, ctx: _Context) -> None:
        """Add a text node to the current line; each line break in it ends a line (as the plain text reads it)."""
        if not text:
            return
        if text.isspace():  # most text nodes: the spaces and line breaks between elements
            if self.plain or len(self.markdown) != len(self.open):
                self._spaces(text, ctx)
            # Else the line is empty (its open elements' openers at most): spaces at its start are no Markdown,
            # the plain text's normalization and the closing elements' moving them out of their markup drop them.
            return
        in_code = self.code_spans > 0
        if "\n" not in text and "\r" not in text:  # most text nodes: one piece of one line
            self.plain.append(text)
            if not (in_code or _ESCAPABLE.search(text) or self.options.links and text[-1] == "!"):
                self.markdown.append(text)  # most text: nothing to escape (without a call)
            else:
                self.markdown.append(self._escaped(text, in_code, ctx.cell is not None))
            return
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        for number, piece in enumerate(text.split("\n")):
            if number:
                self.flush(ctx)
            if piece:
                self.plain.append(piece)
                self.markdown.append(self._escaped(piece, in_code, ctx.cell is not None))

    def _spaces(self, text: str, ctx: _Context) -> None:
        """Spaces in a line that holds something: they end it at a line break (the spaces after that one would
        start the next line, empty: they are dropped as :meth:`text` drops them there)."""
        spaces, line_break, _ = text.replace("\r", "\n").partition("\n")
        if spaces:
            self.plain.append(spaces)
            self.markdown.append(spaces)  # spaces are never escaped, in code or not
        if line_break:
            self.flush(ctx)

    def _escaped(self, piece: str, in_code: bool, in_table: bool) -> str:
        if in_code:  # a code span's text is literal; only a table's cell delimiter needs its escape there
            return piece.replace("|", "\\|") if in_table else piece
        markdown = escaped(piece, in_table=in_table)
        if self.options.links and markdown.endswith("!"):
            markdown = markdown[:-1] + "\\!"  # "!" before a link's "[" would make the link an image
        return markdown

    def flush(self, ctx: _Context) -> None:
        """End the current line (a line break inside a block: the next one joins it)."""
        if not self.plain and len(self.markdown) == len(self.open):
            return  # an empty line (most line ends: between blocks)
        raw = "".join(self.plain)
        has_text = bool(raw) and not raw.isspace()
        if has_text or self.images:  # else nothing to close or emit
            for marker in reversed(self.open):
                self._close(marker)
            plain = normalized_line(raw) if has_text else ""  # images alone: a line the plain text does not hold
            written = "".join(self.markdown)
            markdown = plain if written == raw else normalized_line(written)  # most lines: nothing escaped or marked up
            if plain or not has_text and markdown:
                self._emit(plain, markdown, ctx)
        self._reopen()

    def _reopen(self) -> None:
        """A new line, the inline elements still open reopened in it."""
        self.plain, self.markdown = [], []
        self.code_end = None
        self.images = 0
        for marker in self.open:
            marker.at = len(self.markdown)
            self.markdown.append(marker.opener)

    def new_block(self, ctx: _Context) -> None:
        """End the current line and the block it belongs to."""
        if self.plain or len(self.markdown) != len(self.open):  # else an empty line (most): nothing to end
            self.flush(ctx)
        self.block += 1

    def _emit(self, plain: str, markdown: str, ctx: _Context) -> None:
        joined = self.block == self.last_block
        self.last_block = self.block
        if ctx.cell is not None:
            group, row, col = ctx.cell
            self.lines.append(Line(plain, markdown, "cell", group=group, row=row, col=col, quote=ctx.quote))
            return
        markdown = _escaped_line_start(markdown)
        if ctx.item is not None:
            marker = "" if ctx.item.used else ctx.item.marker
            ctx.item.used = True
            self.lines.append(
                Line(plain, markdown, "item", ctx.depth, marker, ctx.list_group, quote=ctx.quote, joined=joined,
                     heading=ctx.heading)
            )
        elif ctx.heading:
            self.lines.append(Line(plain, markdown, "heading", ctx.heading, quote=ctx.quote))
        else:
            self.lines.append(Line(plain, markdown, "paragraph", ctx.depth, quote=ctx.quote, joined=joined))

    def open_marker(self, opener: str, closer: str, code: bool = False) -> _Marker:
        at = len(self.markdown)
        if code and self.code_end is not None and not "".join(self.markdown[self.code_end[1] - 1 :]):
            # Right after another code span, nothing written since (an empty element at most): one span (two side
            # by side read as one with backticks inside).
            start = self.code_end[0]
            lead, _, core = self.markdown[start : start + 3]
            self.markdown[start:] = [lead, opener, core]
            at = start + 1
        else:
            self.markdown.append(opener)
        marker = _Marker(opener, closer, at, code)
        self.open.append(marker)
        self.code_spans += code
        return marker

    def close_marker(self, marker: _Marker) -> None:
        self._close(marker)
        self.open.pop()  # the innermost: an element's children close theirs before it closes
        self.code_spans -= marker.code

    def _close(self, marker: _Marker) -> None:
        """Close an inline element in the current line's Markdown: its spaces go outside it, and it goes when it
        holds no text (an empty link, emphasis around a space)."""
        inner = "".join(self.markdown[marker.at + 1 :])
        core = inner.strip()
        if not core:
            self.markdown[marker.at :] = [inner]
            return
        if len(core) == len(inner):  # most elements: no space at their text's ends
            lead = trail = ""
        else:
            lead, trail = inner[: len(inner) - len(inner.lstrip())], inner[len(inner.rstrip()) :]
        opener, closer = marker.opener, marker.closer
        if marker.code:
            fence = "`" * (_longest_run(core) + 1)
            pad = " " if core[0] == "`" or core[-1] == "`" else ""
            opener, closer = fence + pad, pad + fence
        self.markdown[marker.at :] = [lead, opener, core, closer, trail]
        if marker.code:
            self.code_end = (marker.at, len(self.markdown))
        elif self.code_end is not None and self.code_end[0] >= marker.at:
            self.code_end = None  # the span is inside this element's text now: a span after it joins nothing

    # The walk ----------------------------------------------------------------------------------------------------

    def element(self, node: etree._Element, ctx: _Context) -> None:
        """Render an element and its subtree (not its tail)."""
        tag = node.tag
        if not isinstance(tag, str) or tag in self.unrendered:
            return  # a comment or processing instruction, a script: no text a reader sees
        # Math is marked (:func:`_tex_of`) by a TeX attribute or an arithmatex class: most elements have neither.
        classes = node.get("class") or ""  # read once: a callout box is named by its classes too (_inner)
        if (node.get(TEX_ATTRIBUTE) is not None or "arithmatex" in classes) and (
            (math := _tex_of(node)) is not None and not self.code_spans
        ):
            self._math(*math, tag in BLOCK_TAGS, ctx)
        elif tag in BLOCK_TAGS:
            self._block(node, tag, classes, ctx)
        else:
            self._inline(node, tag, ctx)

    def _children(self, node: etree._Element, ctx: _Context) -> None:
        # The walk visits every element of the page: an absent text or tail (most) costs no call.
        if text := node.text:
            self.text(text, ctx)
        if not len(node):  # a leaf (most inline elements): no iterator
            return
        for child in node:
            self.element(child, ctx)
            # Most tails are spaces between elements, that text() drops when the line is empty: no call for them.
            if (tail := child.tail) and (self.plain or len(self.markdown) != len(self.open) or not tail.isspace()):
                self.text(tail, ctx)

    def _block(self, node: etree._Element, tag: str, classes: str, ctx: _Context) -> None:
        # new_block() written out, here and below: a third of the walk's elements are blocks (most of them divs),
        # and the line they end is most often empty.
        if self.plain or len(self.markdown) != len(self.open):
            self.flush(ctx)
        self.block += 1
        if tag in _OWN_RENDERING:
            self._own_block(node, tag, ctx)
            return
        inner = self._inner(node, tag, classes, ctx) if tag in _CONTEXT_TAGS else ctx
        self._children(node, inner)
        if self.plain or len(self.markdown) != len(self.open):
            self.flush(inner)  # the block's last line is the block's
        self.block += 1

    def _own_block(self, node: etree._Element, tag: str, ctx: _Context) -> None:
        """A line break, a code block, a data table, a definition's term: in a block begun, which it ends."""
        if tag == "br":
            self.block -= 1  # a line break: the next line continues this block
            return
        if tag == "pre" and ctx.cell is None:
            self._code(node, ctx)
        elif tag == "table" and ctx.cell is None and _is_data_table(node):
            self._table(node, ctx)
        elif tag == "dt" and ctx.cell is None and not self.code_spans:
            term = self.open_marker("**", "**")  # a definition's term on a line of its own, in bold
            self._children(node, ctx)
            self.close_marker(term)
        else:  # a layout table; one of them in a table cell: lines as any other block's
            self._children(node, ctx)
        self.new_block(ctx)

    def _inner(self, node: etree._Element, tag: str, classes: str, ctx: _Context) -> _Context:
        """The context of a block element's content (``classes``: its class attribute)."""
        if ctx.cell is not None:
            return ctx  # a cell's lines are the cell's, whatever holds them
        if tag in _BOXES and not _names_callout(classes):
            return ctx  # most blocks asked: a div that is no callout box
        if tag in _BOXES or tag == "blockquote":
            return _Context(ctx.quote + 1, 0, None, ctx.heading, None, ctx.list_group)
        if tag in ("ul", "ol"):
            self.groups += 1
            return _Context(ctx.quote, ctx.depth + 1, None, ctx.heading, None, self.groups)
        if tag == "li":
            return _Context(ctx.quote, max(ctx.depth, 1), _Item(self._item_marker(node)), 0, None, ctx.list_group)
        if tag in _HEADINGS:  # in a list item too: "- ### Options"
            return _Context(ctx.quote, ctx.depth, ctx.item, _HEADINGS[tag], None, ctx.list_group)
        return ctx

    @staticmethod
    def _item_marker(node: etree._Element) -> str:
        parent = node.getparent()
        if parent is None or parent.tag != "ol":
            return "-"
        try:
            start = int(parent.get("start") or 1)
        except ValueError:
            start = 1
        position = sum(1 for _ in node.itersiblings("li", preceding=True))
        return f"{max(start, 0) + position}."

    def _inline(self, node: etree._Element, tag: str, ctx: _Context) -> None:
        in_code = self.code_spans > 0
        marker = None
        if tag == "img":
            self._image(node, in_code, ctx.cell is not None)
            return
        if not in_code:
            if (markup := _MARKUP.get(tag)) is not None:  # one lookup for the inline elements with no markup (most)
                marker = self.open_marker(*markup)
            elif tag == "a" and self.options.links and (target := self._url(node.get("href"))):
                marker = self.open_marker("[", f"]({target})")
        self._children(node, ctx)
        if marker is not None:
            self.close_marker(marker)

    def _math(self, tex: str, display: bool, block: bool, ctx: _Context) -> None:
        """Math as its TeX: ``$...$`` in a line, ``$$...$$`` on a line of its own (the plain text holds the TeX)."""
        if block or display:
            self.new_block(ctx)
        self.plain.append(tex)
        body = tex.replace("|", "\\|") if ctx.cell is not None else tex
        self.markdown.append(f"$${body}$$" if display else f"${body}$")
        if block or display:
            self.new_block(ctx)

    def _image(self, node: etree._Element, in_code: bool, in_table: bool) -> None:
        """An image, as ``![alt](URL)`` when asked (the plain text holds no image)."""
        source = self._url(node.get("src")) if self.options.images and not in_code else ""
        if source:
            alt = normalized_line(" ".join((node.get("alt") or "").split()))
            self.markdown.append(f"![{escaped(alt, in_table=in_table)}]({source})")
            self.images += 1

    def _url(self, href: str | None) -> str:
        """An absolute URL for Markdown's ``(...)`` ('' for none: a script, an empty reference)."""
        href = (href or "").strip()
        if not href or href.lower().startswith(("javascript:", "data:")):
            return ""
        absolute = urljoin(self.options.base_url, href) if self.options.base_url else href
        return quote(absolute, safe=":/?#[]@!$&'*+,;=%~-._")

    def _code(self, node: etree._Element, ctx: _Context) -> None:
        """A code block: its text with whitespace intact, one line each, and its declared language."""
        raw = _code_text(node).split("\n")
        while raw and not normalized_line(raw[-1]):
            raw.pop()
        block = tuple(raw)
        self.groups += 1
        language = _language(node)
        for index, text in enumerate(block):
            plain = normalized_line(text)
            if plain:
                self.lines.append(
                    Line(plain, text.rstrip(), "code", ctx.depth, group=self.groups, quote=ctx.quote,
                         language=language, code=block, index=index)
                )

    def _table(self, table: etree._Element, ctx: _Context) -> None:
        """A data table: each cell's lines, with their row and column."""
        self.groups += 1
        group = self.groups
        self.text(table.text, ctx)
        row = 0
        for child in table:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag == "tr" or tag in _TABLE_SECTIONS:
                for tr in [child] if tag == "tr" else child.iterchildren("tr"):
                    self._row(tr, group, row, ctx)
                    row += 1
            elif tag:
                self.element(child, ctx)  # a caption: a line of its own
                self.new_block(ctx)
        self.new_block(ctx)

    def _row(self, tr: etree._Element, group: int, row: int, ctx: _Context) -> None:
        col = 0
        for cell in tr:
            if not isinstance(cell.tag, str) or cell.tag not in ("td", "th"):
                continue
            inner = _Context(ctx.quote, ctx.depth, None, 0, (group, row, col), ctx.list_group)
            self.new_block(inner)
            self._children(cell, inner)
            self.new_block(inner)
            try:
                col += max(1, min(int(cell.get("colspan") or 1), 100))
            except ValueError:
                col += 1


def mark_tex(document: etree._Element) -> None:
    """Keep the TeX of the page's math where the rendering finds it, before the scripts and the MathML go: a MathJax
    script becomes an empty element carrying its TeX, a KaTeX (or MathML) formula carries its annotation's TeX. No
    reader's text changes (an empty element, attributes)."""
    # Of the whole document: a page parsed with a second <html> holds that one's elements beside the root.
    scripts: list[etree._Element] = []
    annotations: list[etree._Element] = []
    for top in [*reversed(list(document.itersiblings(preceding=True))), document, *document.itersiblings()]:
        for node in top.iter("script", "annotation"):
            if node.tag == "script":
                scripts.append(node)
            elif node.get("encoding") == _TEX_ENCODING:
                annotations.append(node)
    typesets = False
    for script in scripts:
        parent = script.getparent()
        if (script.get("type") or "").startswith(_MATH_SCRIPT_TYPE) and parent is not None:
            marker = etree.Element("span", {TEX_ATTRIBUTE: script.text or ""})
            if "mode=display" in (script.get("type") or ""):
                marker.set(_DISPLAY_ATTRIBUTE, "1")
            marker.tail = script.tail
            parent.replace(script, marker)
        elif not typesets:
            typesets = _loads_math(script)
    for annotation in annotations:
        formula = _formula_of(annotation)
        if formula is not None and formula.get(TEX_ATTRIBUTE) is None:
            formula.set(TEX_ATTRIBUTE, annotation.text or "")
            math = next(annotation.iterancestors("math"), None)
            if math is not None and math.get("display") == "block":
                formula.set(_DISPLAY_ATTRIBUTE, "1")
    if typesets:
        _mark_text_tex(document)


def _loads_math(script: etree._Element) -> bool:
    """Whether a script loads MathJax or KaTeX (its auto-render), or configures MathJax: the page typesets the TeX
    of its text in the browser."""
    source = (script.get("src") or "").lower()
    if "mathjax" in source or "katex" in source:
        return True
    # A script holds its text alone (one text node); its string value otherwise, as XPath reads it.
    return "MathJax" in ((script.text or "") if len(script) == 0 else script.text_content())


def _mark_text_tex(document: etree._Element) -> None:
    """On a page that typesets its text's TeX in the browser, each delimited formula of its text becomes a ``span``
    carrying its TeX, whose text is the formula as written (readers read the same text)."""
    found: list[tuple[etree._Element, bool]] = []
    for node in document.iter():
        if not isinstance(node.tag, str):
            continue
        if node.text and _TEXT_TEX.search(node.text) and not _untypeset(node):
            found.append((node, False))
        parent = node.getparent()
        if node.tail and parent is not None and _TEXT_TEX.search(node.tail) and not _untypeset(parent):
            found.append((node, True))
    for node, tail in found:
        _split_tex(node, tail)


def _untypeset(node: etree._Element) -> bool:
    """Whether the element's text is left as written: in code, a script, a formula already marked."""
    return any(
        element.tag in _NOT_TYPESET or element.get(TEX_ATTRIBUTE) is not None
        or "arithmatex" in (classes := element.get("class") or "") or "katex" in classes
        for element in (node, *node.iterancestors())
    )


def _split_tex(node: etree._Element, tail: bool) -> None:
    """The element's text (or tail) with each formula in a span of its own."""
    text = (node.tail if tail else node.text) or ""
    pieces: list[etree._Element] = []
    last = 0
    lead = ""
    for match in _TEXT_TEX.finditer(text):
        tex = next(group for group in match.groups() if group is not None)
        if not tex.strip():
            continue
        span = etree.Element("span", {TEX_ATTRIBUTE: tex})
        if match.group("inline") is None and match.group("dollar") is None:
            span.set(_DISPLAY_ATTRIBUTE, "1")
        span.text = match.group(0)
        if pieces:
            pieces[-1].tail = text[last : match.start()]
        else:
            lead = text[: match.start()]
        pieces.append(span)
        last = match.end()
    if not pieces:
        return
    pieces[-1].tail = text[last:]
    if tail:
        node.tail = lead
        for span in reversed(pieces):
            node.addnext(span)  # right after the element, its tail (the spans' lead) in place
    else:
        node.text = lead
        for offset, span in enumerate(pieces):
            node.insert(offset, span)


def _formula_of(annotation: etree._Element) -> etree._Element | None:
    """The element that shows an annotated formula: KaTeX's ``.katex-display`` or ``.katex``, else the ``math``."""
    math = None
    for ancestor in annotation.iterancestors():
        if ancestor.tag == "math":
            math = ancestor
            continue
        classes = (ancestor.get("class") or "").split()
        if "katex-display" in classes:
            return ancestor
        if "katex" in classes:
            display = ancestor.getparent()
            in_display = display is not None and "katex-display" in (display.get("class") or "").split()
            return display if in_display else ancestor
    return math


def _tex_of(node: etree._Element) -> tuple[str, bool] | None:
    """An element's math as (TeX, display), when it is math the page marks (None: it is not)."""
    tex = node.get(TEX_ATTRIBUTE)
    display = node.get(_DISPLAY_ATTRIBUTE) is not None
    if tex is None:
        if "arithmatex" not in (node.get("class") or "").split():
            return None
        if (delimited := _DELIMITED_TEX.match(node.text_content())) is None:
            return None
        tex = next(group for group in delimited.groups() if group is not None)
        display = delimited.group("inline") is None
    tex = " ".join(tex.split())
    if not tex or "$" in tex:
        return None  # a dollar inside would end the math early: the element reads as text
    return tex, display


def _code_text(pre: etree._Element) -> str:
    """A code block's text as the page shows it: line breaks where it breaks lines (``<br>``, a block per line)."""
    if next(pre.iterdescendants(*BLOCK_TAGS), None) is None:  # no <br> (one of them) or block inside
        # Its text nodes as they are (most blocks: a highlighter's spans), serialized by lxml, not walked span by span.
        text = text_content(pre)
    else:
        pieces: list[str] = []
        for event, node in etree.iterwalk(pre, events=("start", "end")):
            tag = node.tag if isinstance(node.tag, str) else ""
            if tag == "br" and event == "start":
                pieces.append("\n")  # a line of its own, blank or not (Prism's blank lines are a <br> alone)
            elif tag in BLOCK_TAGS and tag != "br" and node is not pre and pieces and not pieces[-1].endswith("\n"):
                pieces.append("\n")  # a block inside: lines of its own
            if event == "start":
                if tag and node.text:
                    pieces.append(node.text)
            elif node is not pre and node.tail:
                pieces.append(node.tail)
        text = "".join(pieces)
    return text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\n")


def _language(pre: etree._Element) -> str:
    """The language a code block declares in its classes or its wrappers' (``language-x``, ``highlight-x``...)."""
    for node in (pre, *pre.iterchildren("code"), *islice(pre.iterancestors(), 3)):
        classes = node.get("class") or ""
        for match in (*map(_LANGUAGE_CLASS.match, classes.split()), _LANGUAGE_AFTER.search(classes)):
            if match and match.group(1).lower() not in _NOT_LANGUAGES:
                return match.group(1).lower()
        language = (node.get("data-lang") or node.get("data-language") or "").strip().lower()
        if language and language.replace("+", "").replace("#", "").isalnum() and language not in _NOT_LANGUAGES:
            return language
    return ""


def _is_data_table(table: etree._Element) -> bool:
    """Whether a table holds data (rows of cells of text) rather than lays out a page (cells of blocks, tables in
    tables, one column)."""
    if (table.get("role") or "").lower() in ("presentation", "none"):
        return False
    widest = 0
    for node in table.iterdescendants():
        tag = node.tag if isinstance(node.tag, str) else ""
        if tag in _LAYOUT_CONTENT or tag == "table":
            return False
        if tag in _TABLE_SECTIONS and _has_text(node.text):
            return False
        if tag == "tr":
            if _has_text(node.text) or any(
                not isinstance(cell.tag, str) or cell.tag not in ("td", "th") or _has_text(cell.tail) for cell in node
            ):
                return False  # text between the cells: read as the page writes it
            widest = max(widest, len(node))
    return widest >= 2


def _has_text(text: str | None) -> bool:
    return bool(text and not text.isspace())


# Remembered: a page repeats its few class names on many of its elements.
@lru_cache(maxsize=1024)
def _names_callout(classes: str) -> bool:
    return not _CALLOUT_CLASSES.isdisjoint(classes.lower().split())


def _longest_run(text: str) -> int:
    """The longest run of backticks in ``text`` (a code span's or block's fence is one longer)."""
    if "`" not in text:  # most code: a scan instead of the expression's list of runs
        return 0
    return max(map(len, _BACKTICKS.findall(text)))


def render_elements(
    elements: Iterable[etree._Element], options: MarkdownOptions = DEFAULT_MARKDOWN_OPTIONS,
    left_out: frozenset[str] = frozenset(),
) -> list[Line]:
    """The lines of the elements' text, in document order, each with its place in the Markdown: their ``plain``
    values are the lines ``markup.element_text`` gives for the same elements, less those tagged as in ``left_out``."""
    renderer = _Renderer(options, left_out)
    for element in elements:
        renderer.element(element, _Context())
        renderer.new_block(_Context())
    return renderer.lines


def text_as_markdown(text: str, heading: str | None = None) -> str:
    """Text that has no markup (a PDF's text layer) as Markdown: its lines escaped, under ``heading`` (a level-1
    heading) when given. Its markup removed, it is the heading's line, then the text's lines."""
    lines = [_escaped_line_start(escaped(line)) if line.strip() else "" for line in text.split("\n")]
    body = "\n".join(lines).strip("\n")
    title = normalized_line(" ".join((heading or "").split()))
    if not title:
        return body
    return f"# {_escaped_line_start(escaped(title))}\n\n{body}".rstrip("\n")


def plain_of(lines: Sequence[Line]) -> str:
    """The plain text of the lines: one a paragraph, blank-line separated (the ``content`` form); a line of images
    alone holds none."""
    return "\n\n".join(line.plain for line in lines if line.plain)


def with_images(lines: Sequence[Line], rendering: Sequence[Line]) -> list[Line]:
    """``lines`` (taken from ``rendering``) with the rendered lines of images alone put back where they stand
    between two lines kept one after the other in the page: a figure inside the document's text. No reading keeps
    them (they hold no text), and one at the document's edges is left out (a banner, a logo)."""
    positions = {id(line): position for position, line in enumerate(rendering)}
    if not any(not line.plain for line in rendering):
        return list(lines)
    whole: list[Line] = []
    for line in lines:
        here = positions.get(id(line))
        before = positions.get(id(whole[-1])) if whole else None
        if here is not None and before is not None and before < here:
            between = rendering[before + 1 : here]
            if between and all(not other.plain for other in between):
                whole.extend(between)
        whole.append(line)
    return whole


# -- lines read by other readers, mapped back -------------------------------------------------------------------


def mapped_lines(text: str, rendering: Sequence[Line]) -> list[Line]:
    """The lines of a reading's ``text`` (one a line), each as the rendered line it came from.

    A line matches a rendered line with the same text, else one with the same words; among several, the first after
    the last one matched (a reading keeps the page's order). A list item or table row written out as text (a
    reader's ``- item``, ``| a | b |``) matches its item or its cells. A line found nowhere stays a paragraph.
    """
    index = _LineIndex(rendering)
    mapped: list[Line] = []
    for raw in text.split("\n"):
        if raw and (line := normalized_line(raw)):  # a reading's lines are most often blank-line separated
            found = index.take(line)
            mapped.extend([found] if found is not None else _written_structure(raw, line, index))
    return mapped


class _LineIndex:
    """The rendered lines by text and by words, handed out in the page's order."""

    def __init__(self, rendering: Sequence[Line]) -> None:
        self.lines = rendering
        self.by_plain: dict[str, list[int]] = {}
        self.by_key: dict[str, list[int]] | None = None
        for position, line in enumerate(rendering):
            self.by_plain.setdefault(line.plain, []).append(position)
        self.last = -1

    def take(self, line: str, by_words: bool = True) -> Line | None:
        positions = self.by_plain.get(line)
        if positions is None and by_words:
            if self.by_key is None:  # built when a line first needs it (on most pages: a reader's "- item")
                self.by_key = {}
                for plain, places in self.by_plain.items():  # one key a text (a page repeats many of its lines)
                    key = line_key(plain)
                    if (known := self.by_key.setdefault(key, places)) is not places:
                        self.by_key[key] = sorted(known + places)  # texts of the same words: their places in order
            key = line_key(line)
            positions = self.by_key.get(key) if key else None
        if not positions:
            return None
        at = bisect_right(positions, self.last)
        position = positions[at] if at < len(positions) else positions[0]
        self.last = max(self.last, position)
        return self.lines[position]


def cells_as_lines(text: str) -> str:
    """A reader's text with each table row it wrote out (``| a | b |``) as its cells, one a line, and its rules under
    header rows (``|---|---|``) gone."""
    if "|" not in text:
        return text
    lines: list[str] = []
    for raw in text.split("\n"):
        row = _TEXT_ROW.match(raw.strip())
        if row is None:
            lines.append(raw)
        else:
            lines.extend(cell.strip() for cell in row.group(1).split("|") if WORD.search(cell))
    return "\n".join(lines)


def with_whole_code(lines: Sequence[Line], rendering: Sequence[Line]) -> list[Line]:
    """``lines`` with each code block's lines that hold no word put back at its ends (a closing ``}`` that a line
    filter took for template: a line without words is in every template's key set)."""
    blocks: dict[int, list[Line]] = {}
    for line in rendering:
        if line.kind == "code":
            blocks.setdefault(line.group, []).append(line)
    whole: list[Line] = []
    for group, lines_of_run in groupby(lines, lambda line: line.group if line.kind == "code" else None):
        run, block = list(lines_of_run), blocks.get(group, []) if group is not None else []
        places = [rendered.index for rendered in block]  # the run's ends in the block, by their place in the code
        if run[0].index not in places or run[-1].index not in places:
            whole.extend(run)
            continue
        start = first = places.index(run[0].index)
        stop = last = places.index(run[-1].index)
        while first > 0 and not WORD.search(block[first - 1].plain):
            first -= 1
        while last + 1 < len(block) and not WORD.search(block[last + 1].plain):
            last += 1
        whole.extend([*block[first:start], *run, *block[stop + 1 : last + 1]])
    return whole


def _written_structure(raw: str, line: str, index: _LineIndex) -> list[Line]:
    """A line no rendered line has: a table row or a list item a reader wrote out, else a paragraph."""
    row = _TEXT_ROW.match(line)
    if row is not None:
        cells = [normalized_line(cell) for cell in row.group(1).split("|")]
        if not any(WORD.search(cell) for cell in cells):
            return []  # a rule under a header row: no words
        found = [index.take(cell, by_words=False) for cell in cells if cell]
        if found and all(cell is not None and cell.kind == "cell" for cell in found):
            return [cell for cell in found if cell is not None]
    item = _TEXT_ITEM.match(raw.rstrip())
    if item is not None and (text := normalized_line(item.group(2))):
        found_item = index.take(text)
        if found_item is not None:
            return [found_item]
        depth = len(item.group(1).expandtabs(4)) // 2 + 1
        return [Line(text, _escaped_line_start(escaped(text)), "item", depth, "-")]
    return [Line(line, _escaped_line_start(escaped(line)))]


# -- laying the lines out --------------------------------------------------------------------------------------


def markdown_of(lines: Sequence[Line]) -> str:
    """The lines as a Markdown document: blocks separated by blank lines, list items of one list together."""
    out: list[str] = []
    lists: list[tuple[int, int, int]] = []  # open list items: (depth, indent of their content, list)
    previous: Line | None = None
    position = 0
    while position < len(lines):
        line, tight = lines[position], False
        if line.kind == "code":  # a block of several lines: a code block (in its list item), a table
            end = _run_end(lines, position, lambda a, b: b.group == a.group and b.index > a.index)
            rows = _fence(lines[position:end], _list_indent(lists, line.level))
        elif line.kind == "cell":
            lists.clear()
            end = _run_end(lines, position, lambda a, b: b.group == a.group and (b.row, b.col) >= (a.row, a.col))
            rows = _table(lines[position:end])
        else:
            if line.kind != "item" or not line.level:
                lists.clear()
            tight = _continues(previous, line, lists)
            end, rows = position + 1, [_laid_out(line, lists)]
        if previous is not None and not tight:  # a blank line between two blocks (quoted inside a quote both share)
            out.append(_quoted("", min(previous.quote, line.quote)))
        out.extend([_quoted(row, line.quote) for row in rows] if line.quote else rows)  # most lines: in no quote
        previous, position = lines[end - 1], end
    return "\n".join(out).strip("\n")


def _continues(previous: Line | None, line: Line, lists: list[tuple[int, int, int]]) -> bool:
    """Whether a line goes right under the one before (the same block, the next item of an open list or the first
    of a list nested in it), no blank line."""
    if previous is None or previous.kind != line.kind or previous.quote != line.quote:
        return False
    if line.kind == "item" and line.marker:
        if line.level > previous.level:  # a nested list; only one starting at 1 may interrupt the item's paragraph
            return not line.marker[:-1].isdigit() or int(line.marker[:-1]) == 1
        return any(group == line.group for _, _, group in lists)
    return line.joined


def _laid_out(line: Line, lists: list[tuple[int, int, int]]) -> str:
    if line.kind == "heading":
        return _heading(line.level, line.markdown)
    if line.kind != "item":
        return line.markdown
    while lists and lists[-1][0] > line.level or (lists and line.marker and lists[-1][0] == line.level):
        lists.pop()
    text = _heading(line.heading, line.markdown) if line.heading else line.markdown
    indent = lists[-1][1] if lists else 0
    if not line.marker:
        return " " * indent + text
    lists.append((line.level, indent + len(line.marker) + 1, line.group))
    return f"{' ' * indent}{line.marker} {text}"


def _heading(level: int, markdown: str) -> str:
    # A run of "#" after a space would close the heading (CommonMark's optional closing sequence): escape it.
    words = markdown.rstrip("#")
    if words != markdown and (not words or words[-1] in " \t"):
        markdown = f"{words}\\{markdown[len(words):]}"
    return f"{'#' * level} {markdown}"


def _list_indent(lists: list[tuple[int, int, int]], depth: int) -> int:
    """The indent of the content of the innermost open list item at ``depth`` or above (0 outside lists)."""
    return next((indent for level, indent, _ in reversed(lists) if level <= depth), 0)


def _run_end(lines: Sequence[Line], start: int, continues) -> int:
    end = start + 1
    while end < len(lines) and lines[end].kind == lines[start].kind and continues(lines[end - 1], lines[end]):
        end += 1
    return end


def _quoted(text: str, depth: int) -> str:
    if not depth:
        return text
    return ("> " * depth + text).rstrip() if text else ">" * depth


def _fence(lines: Sequence[Line], indent: int) -> list[str]:
    """A fenced code block of the kept lines of one block, with the blank lines between them."""
    block = lines[0].code
    kept = {line.index for line in lines}
    rows = [block[i] for i in range(min(kept), max(kept) + 1) if i in kept or not normalized_line(block[i])]
    fence = "`" * max(3, max(map(_longest_run, rows), default=0) + 1)
    pad = " " * indent
    return [f"{pad}{fence}{lines[0].language}", *(f"{pad}{row}" if row.strip() else "" for row in rows), pad + fence]


def _table(lines: Sequence[Line]) -> list[str]:
    """A GFM table of the kept cells of one table, its first row the header."""
    cells: dict[tuple[int, int], list[str]] = {}
    for line in lines:
        cells.setdefault((line.row, line.col), []).append(line.markdown)
    rows = sorted({row for row, _ in cells})
    width = max(col for _, col in cells) + 1
    laid = [
        "| " + " | ".join("<br>".join(cells.get((row, col), [])) for col in range(width)) + " |" for row in rows
    ]
    return [laid[0], "|" + "|".join(" --- " for _ in range(width)) + "|", *laid[1:]]
