"""Domain-level boilerplate: DOM subtrees that consecutive pages of a website share.

After the deboiler idea: walk a website's pages in URL order; an element whose
tag, class and text appear identically on the previous page is template
(navigation, sidebars, footers, cookie banners). Pairs of near-identical pages
(intersection over union of their elements above a threshold) teach nothing,
so duplicates and reprints are never emptied.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import islice

from lxml import etree, html

from corpus_pipeline.extract.decode import decode_html

NEAR_IDENTICAL_IOU = 0.8
# Template repeats along the whole website; two neighbouring near-duplicate pages share their text too.
# Requiring a block to be shared by at least two neighbouring pairs keeps the latter from being learned.
MIN_SHARED_PAIRS = 2
MIN_TEXT_CHARS = 1
# Only whole blocks are template candidates: inline elements (links, code, emphasis) repeat across pages
# inside genuine text ("None", "str", a product name) and must never be cut out of a sentence.
BLOCK_TAGS = frozenset(
    "address article aside blockquote dd details dialog div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 "
    "h5 h6 header hgroup li main menu nav ol p section summary table tbody td tfoot th thead tr ul".split()
)
_WINDOW_PER_WORKER = 64


@dataclass(frozen=True)
class BoilerplateModel:
    """Signatures of the template elements of one website."""

    signatures: frozenset[int] = field(default_factory=frozenset)

    def strip(self, document: html.HtmlElement) -> list[str]:
        """Remove template elements from a parsed page, in place; return the text of every block removed.

        The texts let readers of the page's source (which still holds the template) recognize it.
        """
        if not self.signatures:
            return []
        doomed = [node for node, signature in _signed_elements(document) if signature in self.signatures]
        removed = []
        for node in doomed:
            if node.getparent() is not None and node.tag not in ("html", "body"):
                removed += [" ".join(block.text_content().split()) for block in node.iter(*BLOCK_TAGS)]
                node.drop_tree()
        return removed


def learn_boilerplate(pages: Iterable[tuple[str, bytes]], workers: int = 2) -> BoilerplateModel:
    """Learn a website's template from its pages (given in URL order), streaming, on ``workers`` processes."""
    shared_pairs: Counter[int] = Counter()
    previous: frozenset[int] | None = None
    for signatures in _page_signatures(pages, workers):
        if previous is not None and signatures and previous:
            shared = signatures & previous
            union = len(signatures | previous)
            if union and len(shared) / union < NEAR_IDENTICAL_IOU:
                shared_pairs.update(shared)
        previous = signatures
    return BoilerplateModel(frozenset(s for s, pairs in shared_pairs.items() if pairs >= MIN_SHARED_PAIRS))


def page_signatures(body: bytes) -> frozenset[int]:
    """Signatures of every element with text in a page (tag, class and normalized text)."""
    try:
        document = html.document_fromstring(
            decode_html(body), parser=html.HTMLParser(recover=True, huge_tree=False, remove_comments=True)
        )
    except (etree.ParserError, ValueError):
        return frozenset()
    return frozenset(signature for _, signature in _signed_elements(document))


def _page_signatures(pages: Iterable[tuple[str, bytes]], workers: int) -> Iterator[frozenset[int]]:
    bodies = (body for _, body in pages)
    if workers <= 1:
        yield from map(page_signatures, bodies)
        return
    # Windows keep memory bounded: a pool's map would otherwise read the whole website ahead.
    with ProcessPoolExecutor(max_workers=workers) as pool:
        while window := list(islice(bodies, workers * _WINDOW_PER_WORKER)):
            yield from pool.map(page_signatures, window, chunksize=8)


def _signed_elements(document: html.HtmlElement) -> Iterator[tuple[etree._Element, int]]:
    body = document.find("body")
    root = body if body is not None else document
    for node in root.iter():
        if not isinstance(node.tag, str) or node is root or node.tag not in BLOCK_TAGS:
            continue
        text = " ".join(node.text_content().split())
        if len(text) < MIN_TEXT_CHARS:
            continue
        key = f"{node.tag}\x1f{node.get('class', '')}\x1f{text}".encode("utf-8", "replace")
        yield node, int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")
