"""Text of an HTML tree: block-aware text, and the user's ``markup`` selection."""

from __future__ import annotations

from lxml import etree, html
from lxml.cssselect import CSSSelector, SelectorError

from corpus_pipeline.core.registry import MarkupRule
from corpus_pipeline.extract.text import normalize_whitespace

BLOCK_TAGS = frozenset(
    "address article aside blockquote body br dd details div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 "
    "h5 h6 header hr li main nav ol p pre section summary table tbody td tfoot th thead tr ul".split()
)


def element_text(element: html.HtmlElement) -> str:
    """Visible text of an element, with line breaks around block elements (iterative: deep trees are fine)."""
    pieces: list[str] = []
    stack: list[tuple[etree._Element, bool]] = [(element, False)]
    while stack:
        node, closing = stack.pop()
        tag = node.tag if isinstance(node.tag, str) else ""
        if closing:
            if tag in BLOCK_TAGS:
                pieces.append("\n")
            if node is not element and node.tail:
                pieces.append(node.tail)
            continue
        if tag in BLOCK_TAGS:
            pieces.append("\n")
        if tag and node.text:
            pieces.append(node.text)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node))
    return normalize_whitespace("".join(pieces).replace("\n", "\n\n"))


def markup_elements(document: html.HtmlElement, rules: tuple[MarkupRule, ...]) -> list[etree._Element]:
    """The elements matching any rule, in document order, none inside another."""
    matched = {node for rule in rules for node in _matches(document, rule)}
    return [
        node for node in document.iter()
        if node in matched and not any(ancestor in matched for ancestor in node.iterancestors())
    ]


def _matches(document: html.HtmlElement, rule: MarkupRule) -> list[etree._Element]:
    if rule.css:
        try:
            return CSSSelector(rule.css)(document)
        except SelectorError:
            return []
    conditions: list[str] = []
    for name, value in rule.attrs:
        if name == "class":
            tokens = [token for token in value.split() if "'" not in token]
            conditions += [f"contains(concat(' ', normalize-space(@class), ' '), ' {token} ')" for token in tokens]
        elif "'" not in value:
            conditions.append(f"@{name}='{value}'")
    predicate = "".join(f"[{c}]" for c in conditions)
    try:
        return document.xpath(f"//{rule.tag}{predicate}")
    except etree.XPathError:
        return []
