"""A page cut into text blocks, each described by numbers a model can weigh: the block model's input.

A block is the text between two block-level tags (a paragraph, a list item, a heading, a table cell, the text
directly inside a div). Each block gets features of the kinds the boilerplate-detection literature found to
carry the signal: its length, its link density and its text density (words per wrapped line, as in Kohlschütter
et al., "Boilerplate Detection using Shallow Text Features"), the same for its neighbours, its punctuation, its
tag and the sectioning tags above it, its depth and position in the page, and the words of the class and id
attributes on its way to the root, hashed into a fixed number of buckets (crc32, so the same word lands in the
same bucket in every process).

The feature vector's layout is :data:`FEATURE_NAMES` followed by the hashed buckets; the model file records both,
so a model trained on another layout is refused rather than misread.
"""

from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass, field

import numpy as np
from lxml import etree, html

from corpus_pipeline.extract.text import WORD

# Tags that end the running block and start a new one (everything else is inline text of the current block).
BLOCK_TAGS = frozenset((
    "address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd", "details", "dialog", "div",
    "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th",
    "thead", "tr", "ul",
))
# Never text a reader sees.
SKIPPED_TAGS = frozenset(("script", "style", "noscript", "template", "svg", "math", "head", "title", "meta", "link"))
# Tags whose presence above a block is a feature of its own (sectioning elements and lists).
ANCESTOR_MARKERS = ("nav", "header", "footer", "aside", "form", "main", "article", "li", "table", "blockquote", "a")
# The tag that starts a block, one feature each (others count as "other").
CONTAINER_TAGS = (
    "p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "pre", "div", "dd", "dt", "blockquote", "span"
)
HASHED_BUCKETS = 256  # class/id words hashed: enough buckets that common hints rarely share one
WRAP_CHARS = 80  # a "line" of text density: the wrap width of the seed article
_ATTRIBUTE_WORD = re.compile(r"[a-z]+")
_SENTENCE_END = re.compile(r"[.!?。](?:\s|$)")
_DIGIT = re.compile(r"\d")
_CAPITALIZED = re.compile(r"\b[A-Z\u00c0-\u00de]")  # a word opening with a capital (Latin scripts)

FEATURE_NAMES: tuple[str, ...] = (
    "log_words", "log_chars", "link_density", "text_density", "mean_word_length", "sentence_ends_per_word",
    "punctuation_share", "digit_share", "capitalized_share", "ends_with_sentence",
    "prev_log_words", "prev_link_density", "prev_text_density",
    "next_log_words", "next_link_density", "next_text_density",
    "page_word_share", "position", "chars_before_share", "relative_depth", "log_page_words",
    "parent_log_words", "parent_link_density",
    *(f"container_{tag}" for tag in CONTAINER_TAGS), "container_other",
    *(f"inside_{tag}" for tag in ANCESTOR_MARKERS),
    "bias",
)


@dataclass
class Block:
    """One block of a page while it is read: its text pieces, how much of them is link text, where it sits."""

    element: html.HtmlElement
    depth: int
    parts: list[str] = field(default_factory=list)
    link_chars: int = 0
    text: str = ""


@dataclass(frozen=True)
class PageBlocks:
    """A page's non-empty blocks in document order and their feature matrix (one row per block)."""

    texts: list[str]
    features: np.ndarray


def page_blocks(document: html.HtmlElement) -> PageBlocks:
    """The blocks of a parsed page with their features; a page without text gives an empty matrix.

    Works on any tree lxml made, however broken the HTML was: only tags, text and attributes are read.
    """
    blocks = _cut(document)
    texts = [block.text for block in blocks]
    width = len(FEATURE_NAMES) + HASHED_BUCKETS
    if not blocks:
        return PageBlocks(texts, np.zeros((0, width), dtype=np.float32))
    return PageBlocks(texts, _features(blocks, texts, width))


def _cut(document: html.HtmlElement) -> list[Block]:
    """Non-empty blocks in document order: a walk (lxml's, in C) that opens a block at every block-level tag."""
    root = document.find(".//body")
    if root is None:
        root = document
    blocks: list[Block] = []
    current = Block(root, 0)
    depth = links = 0
    walker = etree.iterwalk(root, events=("start", "end"))
    for event, element in walker:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if event == "start":
            depth += 1
            if not tag or tag in SKIPPED_TAGS:
                walker.skip_subtree()
                continue
            if tag in BLOCK_TAGS:
                _close(current, blocks)
                current = Block(element, depth)
            links += tag == "a"
            _add(current, element.text, in_link=links > 0)
            continue
        depth -= 1
        if tag and tag not in SKIPPED_TAGS:
            links -= tag == "a"
            if tag in BLOCK_TAGS and element is not root:
                _close(current, blocks)
                current = Block(_container(element.getparent(), element), depth)
        _add(current, element.tail if element is not root else None, in_link=links > 0)
    _close(current, blocks)
    return blocks


def _close(block: Block, blocks: list[Block]) -> None:
    """Keep a finished block when it holds any text."""
    if block.parts:
        block.text = " ".join("".join(block.parts).split())
        if block.text:
            blocks.append(block)


def _container(parent: html.HtmlElement | None, fallback: html.HtmlElement) -> html.HtmlElement:
    return parent if parent is not None else fallback


def _add(block: Block, text: str | None, in_link: bool) -> None:
    if text and not text.isspace():
        block.parts.append(text)
        if in_link:
            block.link_chars += len(text.strip())
    elif text:
        block.parts.append(" ")


def _features(blocks: list[Block], texts: list[str], width: int) -> np.ndarray:
    rows = np.zeros((len(blocks), width), dtype=np.float32)
    tokens = [WORD.findall(text) for text in texts]
    words = np.array([len(own) for own in tokens], dtype=np.float32)
    chars = np.array([max(len(text), 1) for text in texts], dtype=np.float32)
    pairs = zip(blocks, texts, strict=False)
    link = np.array([min(block.link_chars / max(len(text), 1), 1.0) for block, text in pairs])
    density = words / np.ceil(chars / WRAP_CHARS)
    total_words = max(float(words.sum()), 1.0)
    before = np.concatenate([[0.0], np.cumsum(chars)[:-1]]) / max(float(chars.sum()), 1.0)
    depths = np.array([block.depth for block in blocks], dtype=np.float32)
    parent_words, parent_links = _parent_totals(blocks, words, link * chars)
    base = len(FEATURE_NAMES)
    index = {name: i for i, name in enumerate(FEATURE_NAMES)}
    rows[:, index["log_words"]] = np.log1p(words)
    rows[:, index["log_chars"]] = np.log1p(chars)
    rows[:, index["link_density"]] = link
    rows[:, index["text_density"]] = np.log1p(density)
    for name, (values, shift) in {
        "prev": ((np.log1p(words), link, np.log1p(density)), 1),
        "next": ((np.log1p(words), link, np.log1p(density)), -1),
    }.items():
        for feature, column in zip(("log_words", "link_density", "text_density"), values, strict=False):
            shifted = np.roll(column, shift)
            shifted[0 if shift > 0 else -1] = 0.0
            rows[:, index[f"{name}_{feature}"]] = shifted
    rows[:, index["page_word_share"]] = words / total_words
    rows[:, index["position"]] = np.arange(len(blocks)) / max(len(blocks) - 1, 1)
    rows[:, index["chars_before_share"]] = before
    rows[:, index["relative_depth"]] = depths / max(float(depths.max()), 1.0)
    rows[:, index["log_page_words"]] = math.log1p(total_words)
    rows[:, index["parent_log_words"]] = np.log1p(parent_words)
    rows[:, index["parent_link_density"]] = parent_links
    rows[:, index["bias"]] = 1.0
    shapes = np.array([_text_shape(text, own) for text, own in zip(texts, tokens, strict=False)], dtype=np.float32)
    rows[:, index["mean_word_length"]:index["ends_with_sentence"] + 1] = shapes
    columns: dict[html.HtmlElement, list[int]] = {}
    for i, block in enumerate(blocks):
        rows[i, _markup_columns(block.element, columns, index, base)] = 1.0
    return rows


def _parent_totals(blocks: list[Block], words: np.ndarray, link_chars: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Words and link density of all blocks sharing each block's parent element (the enclosing container)."""
    # Keyed by the element itself, not its id(): lxml makes a new Python proxy per getparent() call, and a freed
    # proxy's id is reused by the next one, which pooled the words of unrelated containers.
    totals: dict[html.HtmlElement, list[float]] = {}
    keys = []
    for block, count, linked in zip(blocks, words, link_chars, strict=False):
        parent = block.element.getparent()
        key = parent if parent is not None else block.element
        keys.append(key)
        entry = totals.setdefault(key, [0.0, 0.0, 0.0])
        entry[0] += float(count)
        entry[1] += float(linked)
        entry[2] += float(count) * 6  # words to characters, roughly, for the density's denominator
    return (
        np.array([totals[key][0] for key in keys], dtype=np.float32),
        np.array([min(totals[key][1] / max(totals[key][2], 1.0), 1.0) for key in keys], dtype=np.float32),
    )


def _text_shape(text: str, tokens: list[str]) -> tuple[float, ...]:
    """mean_word_length .. ends_with_sentence, in FEATURE_NAMES' order."""
    letters = sum(map(len, tokens))
    return (
        min(letters / max(len(tokens), 1), 20) / 10,
        len(_SENTENCE_END.findall(text)) / max(len(tokens), 1),
        sum(map(text.count, ",.;:!?")) / len(text),
        len(_DIGIT.findall(text)) / len(text),
        len(_CAPITALIZED.findall(text)) / max(len(tokens), 1),
        float(text[-1:] in ".!?:\"'”)"),
    )


def _markup_columns(
    element: html.HtmlElement, columns: dict[html.HtmlElement, list[int]], index: dict[str, int], base: int
) -> list[int]:
    """Columns set to 1 for a block: its container tag, and the markers and class/id words of it and its ancestors."""
    tag = element.tag.lower() if isinstance(element.tag, str) else ""
    own = index[f"container_{tag}" if tag in CONTAINER_TAGS else "container_other"]
    return [own, *_ancestry_columns(element, columns, index, base)]


def _ancestry_columns(
    element: html.HtmlElement, columns: dict[html.HtmlElement, list[int]], index: dict[str, int], base: int
) -> list[int]:
    """Marker and hashed class/id columns of an element and its ancestors, memoized per element (blocks share them)."""
    chain = []
    node: html.HtmlElement | None = element
    while node is not None and node not in columns:
        chain.append(node)
        node = node.getparent()
    inherited = columns[node] if node is not None else []
    for node in reversed(chain):
        own = set(inherited)
        node_tag = node.tag.lower() if isinstance(node.tag, str) else ""
        if node_tag in ANCESTOR_MARKERS:
            own.add(index[f"inside_{node_tag}"])
        attributes = f"{node.get('class') or ''} {node.get('id') or ''} {node.get('role') or ''}".lower()
        own.update(base + zlib.crc32(word.encode()) % HASHED_BUCKETS for word in _ATTRIBUTE_WORD.findall(attributes))
        inherited = columns[node] = sorted(own)
    return inherited
