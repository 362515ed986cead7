"""Sitemaps: plain or gzipped, url sets and indexes, parsed without trusting the XML."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone

from lxml import etree

from corpus_pipeline.core.dates import parse_date


class SitemapError(ValueError):
    """A sitemap that cannot be read (not XML, too large once decompressed...)."""


@dataclass(frozen=True)
class SitemapEntry:
    """One ``<url>`` of a url set."""

    loc: str
    lastmod: datetime | None = None
    alternates: dict[str, str] = field(default_factory=dict)  # hreflang -> URL


@dataclass(frozen=True)
class Sitemap:
    """A parsed sitemap: either child sitemaps (an index) or page entries."""

    sitemaps: tuple[str, ...] = ()
    entries: tuple[SitemapEntry, ...] = ()


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


def parse_sitemap(data: bytes, max_bytes: int) -> Sitemap:
    """Parse a sitemap body; gzip is detected by its magic bytes, whatever the name or header."""
    if data[:2] == b"\x1f\x8b":
        data = gunzip_capped(data, max_bytes)
    # No DTDs, no entities, no network, no huge trees: XXE and billion laughs stay inert.
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, recover=True, remove_comments=True
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise SitemapError(f"not a valid XML sitemap: {exc}") from exc
    if root is None:
        raise SitemapError("empty or non-XML sitemap")
    kind = etree.QName(root).localname.lower()
    if kind == "sitemapindex":
        return Sitemap(sitemaps=tuple(loc for loc in (_loc(node) for node in _children(root, "sitemap")) if loc))
    if kind == "urlset":
        return Sitemap(entries=tuple(entry for entry in (_entry(node) for node in _children(root, "url")) if entry))
    raise SitemapError(f"root element <{kind}> is neither <urlset> nor <sitemapindex>")


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
