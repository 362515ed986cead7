"""Rendering a document's own source to the plain text the bench scores against.

Markdown goes through markdown-it-py (CommonMark with tables and strikethrough), reStructuredText through docutils;
both give an HTML fragment of the document alone, which ``fragment_text`` reads block by block. Generators that render
a source themselves (Sphinx's text builder, WordPress's ``the_content``, MediaWiki's parser) feed their own output.
"""

from __future__ import annotations

import re

from lxml import html

BLOCK_TAGS = frozenset(
    "address article aside blockquote caption dd details div dl dt figcaption figure footer h1 h2 h3 h4 h5 h6 "
    "header hr li main nav ol p pre section summary table tbody td tfoot th thead tr ul br".split()
)
SKIPPED_TAGS = frozenset({"script", "style", "template", "noscript"})
FRONT_MATTER = re.compile(r"\A(?:---|\+\+\+)\s*\n.*?\n(?:---|\+\+\+)\s*\n", re.DOTALL)
SPACES = re.compile(r"[ \t\u00a0]+")


def strip_front_matter(source: str) -> str:
    """The Markdown body without its YAML or TOML front matter."""
    return FRONT_MATTER.sub("", source, count=1)


def markdown_text(source: str) -> str:
    """A Markdown document (front matter removed) rendered to text."""
    from markdown_it import MarkdownIt

    renderer = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    return fragment_text(renderer.render(strip_front_matter(source)))


def rst_text(source: str) -> str:
    """A reStructuredText document rendered to text by docutils (unknown directives reported, not fatal)."""
    from docutils.core import publish_parts

    parts = publish_parts(
        source,
        writer_name="html5",
        settings_overrides={"report_level": 5, "halt_level": 5, "file_insertion_enabled": False, "raw_enabled": True},
    )
    return fragment_text(parts["title"] and f"<h1>{parts['title']}</h1>" + parts["body"] or parts["body"])


def fragment_text(fragment: str) -> str:
    """An HTML fragment as text: one line per block, blank lines between blocks, whitespace normalized."""
    if not fragment.strip():
        return ""
    root = html.fragment_fromstring(fragment, create_parent="div")
    pieces: list[str] = []
    _walk(root, pieces)
    lines = [SPACES.sub(" ", line).strip() for line in "".join(pieces).split("\n")]
    blocks: list[str] = []
    for line in lines:
        if line:
            blocks.append(line)
    return "\n\n".join(blocks)


def _walk(element: html.HtmlElement, pieces: list[str]) -> None:
    if not isinstance(element.tag, str):
        # A comment or processing instruction: its text is no content (<!-- introduced_in=v4.15.0 -->).
        if element.tail:
            pieces.append(element.tail.replace("\n", " "))
        return
    tag = element.tag
    if tag in SKIPPED_TAGS:
        if element.tail:
            pieces.append(element.tail.replace("\n", " "))
        return
    block = tag in BLOCK_TAGS
    if block:
        pieces.append("\n")
    if tag == "pre":
        pieces.append((element.text_content() or "").replace("\n", "\n"))
    else:
        if element.text:
            # A line break in the source of a paragraph is a space, not a new block (only <pre> keeps lines).
            pieces.append(element.text.replace("\n", " "))
        for child in element:
            _walk(child, pieces)
    if block:
        pieces.append("\n")
    elif tag in {"td", "th"}:
        pieces.append(" ")
    if element.tail:
        pieces.append(element.tail.replace("\n", " "))
