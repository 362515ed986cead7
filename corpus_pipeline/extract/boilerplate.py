"""Domain-level boilerplate: DOM subtrees that consecutive pages of one language of a website share.

After the deboiler idea: walk a website's pages in URL order; an element whose tag, class and text appear identically
on the previous page is template (navigation, sidebars, footers, cookie banners). Near-identical pairs of pages
(intersection over union of their elements above a threshold) teach nothing, so duplicates are never emptied.

Pages are compared only within their language (:func:`template_language`): a multilingual site publishes
untranslated copies under other languages' URLs, and a copy must never teach that its original's text is template.

A block is the same on two pages when its tag, class, text and place in the layout (the tags and classes above it)
agree: an index page's table of contents is not the chapter pages' sidebar with the same headings. Only whole lines
are candidates: a table cell ("I:0", "size") is a fragment of its row's line, so a data table goes whole or stays.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import parse_qsl, urlsplit

from lxml import etree, html

from corpus_pipeline.extract.decode import decode_html
from corpus_pipeline.extract.html_tree import parse_html, text_content
from corpus_pipeline.extract.pool import map_in_windows
from corpus_pipeline.extract.text import WORD, line_key

NEAR_IDENTICAL_IOU = 0.8
# Template repeats site-wide, while two near-duplicate neighbours share their text as one pair only.
MIN_SHARED_PAIRS = 2
MIN_TEXT_CHARS = 1
# Only whole blocks are template candidates: inline elements (links, code, emphasis) repeat across pages
# inside genuine text ("None", "str", a product name) and must never be cut out of a sentence.
BLOCK_TAGS = frozenset(
    "address article aside blockquote dd details dialog div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 "
    "h5 h6 header hgroup li main menu nav ol p section summary table tbody td tfoot th thead tr ul".split()
)
# ISO 639-1 codes: a first path segment that is one of them names the page's language (/de/, /pt-br/).
ISO_639_1 = frozenset(
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el "
    "en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu "
    "ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na "
    "nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so "
    "sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu"
    .split()
)
_LANGUAGE_SEGMENT = re.compile(r"([a-z]{2})(?:[-_][a-z]{2,4})?")
# Content negotiation's file names (Apache MultiViews, Debian's documentation): index.de.html, ch01.pt-br.html.
_LANGUAGE_SUFFIX = re.compile(r"\.([a-z]{2})(?:[-_][a-z]{2,4})?\.x?html?$")
LANGUAGE_QUERY_KEYS = ("lang", "hl", "locale")
TABLE_CELL_TAGS = frozenset(("td", "th"))
# Elements after which a browser starts a new line: what the lines of a page's remaining text are split at.
_LINE_BREAKING_TAGS = BLOCK_TAGS | {"br", "hr", "pre"}
UNKNOWN_LANGUAGE = ""
# A signature is its element's frame (32 bits, :func:`_frame`) above a 64-bit digest of the element.
_FRAME_SHIFT = 64


@dataclass(frozen=True)
class PageTemplate:
    """Signatures of the template elements of one language of a website."""

    signatures: frozenset[int] = field(default_factory=frozenset)

    @cached_property
    def frames(self) -> frozenset[int]:
        """The frames of the template's elements (:func:`_frame`): an element of another frame is never template."""
        return frozenset(signature >> _FRAME_SHIFT for signature in self.signatures)

    def lines(self, document: html.HtmlElement) -> list[str]:
        """The template's lines on a page (the text of each of its blocks) that the page holds nowhere else, the tree
        left as it is: an extractor reads the whole page, and these lines leave its text afterwards."""
        return _lines(*self._elements_and_text(document))

    def strip(self, document: html.HtmlElement) -> list[str]:
        """Remove template elements from a parsed page, in place; return the lines it lost (see :meth:`lines`)."""
        elements, text = self._elements_and_text(document)
        lines = _lines(elements, text)
        for node in elements:
            node.drop_tree()
        return lines

    def _elements_and_text(self, document: html.HtmlElement) -> tuple[list[etree._Element], str]:
        """The page's template elements, outermost only, in document order, and the page's text without them."""
        if not self.signatures:
            return [], ""
        body = document.find("body")
        pieces: list[str] = []
        found: list[etree._Element] = []
        if document.text and isinstance(document.tag, str):
            pieces.append(document.text)
        for child in document:
            if body is None:
                self._walk(child, 0, pieces, found)  # signed from the root's children on, as page_signatures does
            elif child is body:
                _open(body, pieces)
                for grandchild in body:
                    self._walk(grandchild, 0, pieces, found)
                _close(body, pieces)
            else:
                _collect_text(child, (), pieces)  # outside the body: nothing there is signed
        text = "".join(pieces)
        if isinstance(document.tag, str) and document.tag in _LINE_BREAKING_TAGS:
            text = f"\n{text}\n"
        return found, text

    def _walk(self, node: etree._Element, path: int, pieces: list[str], found: list[etree._Element]) -> None:
        """:func:`_collect_text` of ``node`` without the template elements at or below it, which go to ``found``,
        outermost only: blocks of the template's frames are signed from the outside in."""
        tag = node.tag
        if not isinstance(tag, str) or not (len(node) or tag in BLOCK_TAGS):
            _collect_text(node, (), pieces)  # a comment, or an inline leaf: nothing signed at or below it
            return
        class_name = node.get("class", "")
        here = _frame(tag, class_name, path)
        if tag in BLOCK_TAGS and here in self.frames:
            text = " ".join(text_content(node).split())  # what _sign builds bottom-up, in one call (C)
            if len(text) >= MIN_TEXT_CHARS and _signature(path, here, tag, class_name, text) in self.signatures:
                found.append(node)
                if node.tail:
                    pieces.append(node.tail)
                return
        if not len(node) or (tag == "table" and _is_data_table(node)):
            _collect_text(node, (), pieces)  # nothing signed below it
            return
        _open(node, pieces)
        for child in node:
            self._walk(child, here, pieces, found)
        _close(node, pieces)


@dataclass(frozen=True)
class BoilerplateModel:
    """A website's template, one :class:`PageTemplate` per language, and the names of the elements of that template
    which hold its documents (``containers``, see :mod:`corpus_pipeline.extract.content_container`)."""

    templates: Mapping[str, PageTemplate] = field(default_factory=dict)
    containers: tuple[str, ...] = ()

    def for_page(self, document: html.HtmlElement, url: str, lang_hint: str | None = None) -> PageTemplate:
        """The template of the page's language (empty when the model learned nothing for it)."""
        return self.templates.get(template_language(document, url, lang_hint), PageTemplate())


class BoilerplateLearner:
    """Learns a website's template from its pages' signatures, fed in URL order, page by page."""

    def __init__(self) -> None:
        self._shared_pairs: dict[str, Counter[int]] = {}
        self._previous: dict[str, frozenset[int]] = {}

    def add(self, language: str, signatures: frozenset[int]) -> None:
        """One page: its :func:`template_language` and its :func:`page_signatures`."""
        previous = self._previous.get(language)
        if previous and signatures:
            shared = signatures & previous
            union = len(signatures | previous)
            if union and len(shared) / union < NEAR_IDENTICAL_IOU:
                self._shared_pairs.setdefault(language, Counter()).update(shared)
        self._previous[language] = signatures

    def model(self) -> BoilerplateModel:
        """Blocks shared by at least MIN_SHARED_PAIRS pairs of neighbouring pages of one language."""
        return BoilerplateModel({
            language: PageTemplate(frozenset(s for s, pairs in counts.items() if pairs >= MIN_SHARED_PAIRS))
            for language, counts in self._shared_pairs.items()
        })


def learn_boilerplate(pages: Iterable[tuple[str, str | None, bytes]], workers: int = 2) -> BoilerplateModel:
    """Learn a website's template from its pages, ``(url, lang_hint, body)`` in URL order, on ``workers`` processes
    (the pipeline learns it in :func:`corpus_pipeline.extract.site_survey.survey_site`)."""
    learner = BoilerplateLearner()
    for language, signatures in map_in_windows(_language_and_signatures, pages, workers):
        learner.add(language, signatures)
    return learner.model()


def _language_and_signatures(page: tuple[str, str | None, bytes]) -> tuple[str, frozenset[int]]:
    url, hint, body = page
    document = parse_page(body) if body else None
    return template_language(document, url, hint), page_signatures(document) if document is not None else frozenset()


def template_language(document: html.HtmlElement | None, url: str, lang_hint: str | None = None) -> str:
    """The language a page is compared in: its URL's (:func:`url_language`), else ``<html lang>``, else the hint.
    The URL comes first: a copy under ``/de/`` may declare ``en`` (a wrong but consistent key only learns less)."""
    declared = document.get("lang") if document is not None else None
    for candidate in (url_language(url), _primary(declared), _primary(lang_hint)):
        if candidate:
            return candidate
    return UNKNOWN_LANGUAGE


def url_language(url: str) -> str | None:
    """The language a URL names: first path segment (``/de/``), file suffix (``ch01.de.html``), ``lang`` query key."""
    parts = urlsplit(url)
    segments = [s for s in parts.path.lower().split("/") if s]
    if segments:
        match = _LANGUAGE_SEGMENT.fullmatch(segments[0])
        if match and match.group(1) in ISO_639_1:
            return match.group(1)
        suffix = _LANGUAGE_SUFFIX.search(segments[-1])
        if suffix and suffix.group(1) in ISO_639_1:
            return suffix.group(1)
    for key, value in parse_qsl(parts.query):
        if key.lower() in LANGUAGE_QUERY_KEYS and _primary(value):
            return _primary(value)
    return None


def parse_page(body: bytes | str) -> html.HtmlElement | None:
    """The page's tree as the model reads it (``body`` raw or decoded), None when it is not HTML."""
    try:
        return parse_html(body if isinstance(body, str) else decode_html(body))
    except (etree.ParserError, ValueError):
        return None


def page_signatures(document: html.HtmlElement) -> frozenset[int]:
    """Signatures of every block element with text in a page (tag, class and normalized text)."""
    return frozenset(signature for _, signature in _signed_elements(document))


def _primary(code: str | None) -> str | None:
    match = _LANGUAGE_SEGMENT.fullmatch((code or "").strip().lower())
    return match.group(1) if match and match.group(1) in ISO_639_1 else None


def _lines(elements: list[etree._Element], page_text: str) -> list[str]:
    """The lines of ``elements`` that no line of ``page_text`` (the page's text without them) has."""
    if not elements:
        return []
    removed = (" ".join(text_content(block).split()) for node in elements for block in node.iter(*BLOCK_TAGS))
    texts = list(dict.fromkeys(removed))
    keys = [line_key(text) for text in texts]
    # An empty key is never a line of the page: no need to look for it.
    held = _keys_of_lines_like(page_text.lower(), {key for key in keys if key})
    return [text for text, key in zip(texts, keys, strict=True) if key not in held]


def _keys_of_lines_like(lowered: str, keys: set[str]) -> set[str]:
    """Which of ``keys`` (non-empty :func:`line_key` values) are the key of a line of ``lowered`` (lower-cased text),
    keying only the lines whose first word begins a key (no other line's key can be one)."""
    if not keys:
        return set()
    first_words = {key.split(" ", 1)[0] for key in keys}
    held: set[str] = set()
    for line in lowered.split("\n"):
        first = WORD.search(line)
        if first is not None and first.group() in first_words:
            held.add(line_key(line))
    return held & keys


def _open(node: etree._Element, pieces: list[str]) -> None:
    """What :func:`_collect_text` appends before ``node``'s children (an element's, not a comment's)."""
    if node.tag in _LINE_BREAKING_TAGS:
        pieces.append("\n")
    if node.text:
        pieces.append(node.text)


def _close(node: etree._Element, pieces: list[str]) -> None:
    """What :func:`_collect_text` appends after ``node``'s children (an element's, not a comment's)."""
    if node.tag in _LINE_BREAKING_TAGS:
        pieces.append("\n")
    if node.tail:
        pieces.append(node.tail)


def _collect_text(node: etree._Element, skipped: Collection[etree._Element], pieces: list[str]) -> None:
    """Append the text of ``node`` and its tail to ``pieces``, with a line break around each line-breaking element
    (recursion is bounded: the pipeline's parsers, without ``huge_tree``, build trees at most 256 levels deep)."""
    if node in skipped:
        if node.tail:
            pieces.append(node.tail)
        return
    tag = node.tag
    breaks = isinstance(tag, str) and tag in _LINE_BREAKING_TAGS
    if breaks:
        pieces.append("\n")
    if isinstance(tag, str) and node.text:
        pieces.append(node.text)
    for child in node:
        if len(child) or child in skipped:
            _collect_text(child, skipped, pieces)
            continue
        # A leaf (most elements: links, emphasis, words in code), read here rather than in a call of its own.
        child_tag = child.tag
        if isinstance(child_tag, str):
            child_breaks = child_tag in _LINE_BREAKING_TAGS
            if child_breaks:
                pieces.append("\n")
            if child.text:
                pieces.append(child.text)
            if child_breaks:
                pieces.append("\n")
        if child.tail:
            pieces.append(child.tail)
    if breaks:
        pieces.append("\n")
    if node.tail:
        pieces.append(node.tail)


def _signed_elements(document: html.HtmlElement) -> list[tuple[etree._Element, int]]:
    """Every template candidate of a page with its signature (tag, class, text and the tags and classes above it), in
    document order; nothing inside a data table (:func:`_is_data_table`), which is one unit."""
    body = document.find("body")
    root = body if body is not None else document
    signed: list[tuple[etree._Element, int] | None] = []
    for child in root:
        _sign(child, 0, signed)
    return [item for item in signed if item is not None]


def _sign(node: etree._Element, path: int, signed: list[tuple[etree._Element, int] | None]) -> str:
    """Append the signatures of ``node`` and of the candidates below it to ``signed``; return ``node``'s text content,
    compacted (:func:`_compact`): built from its children's, so a nested block's text is read once, not once per
    block around it."""
    tag = node.tag
    if not isinstance(tag, str):
        return ""  # a comment or processing instruction: no text content of its own (its tail is its parent's)
    block = tag in BLOCK_TAGS
    slot = len(signed)
    if block:
        signed.append(None)  # reserved: the element comes before its descendants, in document order
    elif not len(node):
        return _compact(node.text)  # an inline leaf (a link, a word in code): its text is all it gives its parent
    class_name = node.get("class", "")
    here = _frame(tag, class_name, path)
    # A data table is one unit: its heading row and repeated cells belong to its rows (without its heading
    # row, trafilatura drops some tables whole).
    if not len(node):
        text = _compact(node.text)
    elif tag == "table" and _is_data_table(node):
        text = _compact(text_content(node))
    else:
        pieces = [_compact(node.text)]
        for child in node:
            pieces.append(_sign(child, here, signed))
            tail = child.tail
            if tail:  # most tails are the source's line breaks and indentation: one space, as _compact makes them
                pieces.append(" " if tail.isspace() else _compact(tail))
        text = _joined(pieces)
    if block:
        normalized = text.strip(" ")  # " ".join(text_content().split())
        if len(normalized) >= MIN_TEXT_CHARS:
            signed[slot] = (node, _signature(path, here, tag, class_name, normalized))
    return text


def _signature(path: int, frame: int, tag: str, class_name: str, normalized: str) -> int:
    """A block's signature: its frame (see :attr:`PageTemplate.frames`) above a digest of its parent's frame, tag,
    class and normalized text."""
    key = f"{path:08x}\x1f{tag}\x1f{class_name}\x1f{normalized}".encode("utf-8", "replace")
    return frame << _FRAME_SHIFT | int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")


def _frame(tag: str, class_name: str, path: int) -> int:
    """An element's frame, also its children's ``path``: a checksum (unlike hash(), the same in every process) of
    its tag and class chained onto its parent's frame (``path``). Ids are left out: pages number them (post-123)."""
    return zlib.crc32(f"{tag}.{class_name}/".encode("utf-8", "replace"), path)


def _compact(text: str | None) -> str:
    """``text`` with each run of whitespace made one space (" " for whitespace alone, "" for nothing). Texts compacted
    and joined by :func:`_joined` are the compacted text of their concatenation; normalizing is stripping its ends."""
    if not text:
        return ""
    if text.isspace():
        return " "  # most tails: the source's line breaks and indentation
    words = " ".join(text.split())
    return f"{' ' if text[0].isspace() else ''}{words}{' ' if text[-1].isspace() else ''}"


def _joined(pieces: list[str]) -> str:
    """Compacted texts (:func:`_compact`) concatenated into the compacted text of their concatenation: where one
    ends with a space and the next begins with one, the two are one."""
    kept = []
    after_space = False
    for piece in pieces:
        if after_space and piece.startswith(" "):
            piece = piece[1:]
        if piece:
            kept.append(piece)
            after_space = piece.endswith(" ")
    return "".join(kept)


def _is_data_table(table: etree._Element) -> bool:
    """A table with a row of two cells of text or more, holding text only: read as lines of cells
    (``| package | I:0 | 56 |``). A table whose cells hold blocks lays out a page's regions."""
    for row in table.iter("tr"):
        if next(row.iterancestors("table"), None) is not table:
            continue  # a row of a nested table
        cells = [cell for cell in row if cell.tag in TABLE_CELL_TAGS and text_content(cell).strip()]
        if len(cells) >= 2 and not any(next(cell.iterdescendants(*BLOCK_TAGS), None) is not None for cell in cells):
            return True
    return False
