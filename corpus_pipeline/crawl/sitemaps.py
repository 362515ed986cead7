"""Sitemaps: plain or gzipped, url sets and indexes, streamed without trusting the XML."""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone

from lxml import etree

from corpus_pipeline.core.dates import parse_date

READ_BYTES = 64 * 1024


class SitemapError(ValueError):
    """A sitemap that cannot be read (not XML, too large once decompressed...)."""


@dataclass(frozen=True)
class SitemapEntry:
    """One ``<url>`` of a url set."""

    loc: str
    lastmod: datetime | None = None
    alternates: dict[str, str] = field(default_factory=dict)  # hreflang -> URL


@dataclass(frozen=True)
class ChildSitemap:
    """One ``<sitemap>`` of a sitemap index."""

    loc: str


@dataclass(frozen=True)
class Sitemap:
    """A parsed sitemap: either child sitemaps (an index) or page entries."""

    sitemaps: tuple[str, ...] = ()
    entries: tuple[SitemapEntry, ...] = ()


class _CappedGunzip(io.RawIOBase):
    """Decompresses gzip as it is read, refusing to produce more than ``max_bytes`` (gzip bombs)."""

    def __init__(self, data: bytes, max_bytes: int) -> None:
        self._gzip = gzip.GzipFile(fileobj=io.BytesIO(data))
        self._left = max_bytes
        self._max_bytes = max_bytes

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        size = READ_BYTES if size is None or size < 0 else size
        try:
            chunk = self._gzip.read(min(size, self._left + 1))
        except (OSError, EOFError, zlib.error) as exc:
            raise SitemapError(f"corrupt gzip data: {exc}") from exc
        self._left -= len(chunk)
        if self._left < 0:
            raise SitemapError(f"gzip sitemap expands beyond the {self._max_bytes} byte cap")
        return chunk


def gunzip_capped(data: bytes, max_bytes: int) -> bytes:
    """Decompress gzip data, refusing to produce more than ``max_bytes`` (gzip bombs)."""
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        output = decompressor.decompress(data, max_bytes + 1)
    except zlib.error as exc:
        raise SitemapError(f"corrupt gzip data: {exc}") from exc
    if len(output) > max_bytes or decompressor.unconsumed_tail:
        raise SitemapError(f"gzip sitemap expands beyond the {max_bytes} byte cap")
    return output


def iter_sitemap(data: bytes, max_bytes: int) -> Iterator[SitemapEntry | ChildSitemap]:
    """The entries of a url set or the children of an index, one at a time, in bounded memory.

    Gzip is detected by its magic bytes and decompressed as the parser reads. Raises
    :class:`SitemapError` (possibly after some items) when the sitemap cannot be read on.
    """
    stream = _CappedGunzip(data, max_bytes) if data[:2] == b"\x1f\x8b" else io.BytesIO(data)
    # No DTDs, no entities, no network, no huge trees: XXE and billion laughs stay inert.
    events = etree.iterparse(
        stream, events=("start", "end"), resolve_entities=False, no_network=True, load_dtd=False,
        huge_tree=False, recover=True, remove_comments=True,
    )
    root = None
    try:
        for event, node in events:
            if not isinstance(node.tag, str):
                continue
            if root is None:
                root = node
                _check_root(root)
                continue
            if event != "end" or node.getparent() is not root:
                continue
            item = _item(node)
            # Drop what was read: the tree never holds more than one entry.
            node.clear()
            while node.getprevious() is not None:
                del root[0]
            if item is not None:
                yield item
    except etree.XMLSyntaxError as exc:
        raise SitemapError(f"not a valid XML sitemap: {exc}") from exc
    if root is None:
        raise SitemapError("empty or non-XML sitemap")


def parse_sitemap(data: bytes, max_bytes: int) -> Sitemap:
    """A whole sitemap at once (small sitemaps; the crawler streams with :func:`iter_sitemap`)."""
    items = list(iter_sitemap(data, max_bytes))
    return Sitemap(
        sitemaps=tuple(i.loc for i in items if isinstance(i, ChildSitemap)),
        entries=tuple(i for i in items if isinstance(i, SitemapEntry)),
    )


def _check_root(root) -> None:
    kind = etree.QName(root).localname.lower()
    if kind not in ("urlset", "sitemapindex"):
        raise SitemapError(f"root element <{kind}> is neither <urlset> nor <sitemapindex>")


def _item(node) -> SitemapEntry | ChildSitemap | None:
    name = etree.QName(node).localname.lower()
    if name == "url":
        return _entry(node)
    if name == "sitemap":
        loc = _loc(node)
        return ChildSitemap(loc) if loc else None
    return None


def _children(node, name: str):
    return (child for child in node if isinstance(child.tag, str) and etree.QName(child).localname == name)


def _loc(node) -> str | None:
    for child in _children(node, "loc"):
        text = (child.text or "").strip()
        return text or None
    return None


def _entry(node) -> SitemapEntry | None:
    loc = _loc(node)
    if not loc:
        return None
    lastmod = None
    for child in _children(node, "lastmod"):
        lastmod = parse_date(child.text or "")
    alternates = {}
    for child in _children(node, "link"):
        if child.get("rel") == "alternate" and child.get("hreflang") and child.get("href"):
            alternates[child.get("hreflang").lower()] = child.get("href").strip()
    return SitemapEntry(loc, lastmod, alternates)
