"""Sitemaps: plain or gzipped, url sets and indexes, streamed without trusting the XML."""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urljoin, urlsplit

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


def iter_sitemap(data: bytes, max_bytes: int, base_url: str | None = None) -> Iterator[SitemapEntry | ChildSitemap]:
    """The entries of a url set or the children of an index (gzipped or not), one at a time, in bounded memory.

    Raises :class:`SitemapError` (possibly after some items) when the sitemap cannot be read on. A ``<loc>`` written
    as a path (Jekyll's sitemap without ``url`` set, some Hugo themes) is read against ``base_url``, the sitemap's own.
    """
    stream = _CappedGunzip(data, max_bytes) if data[:2] == b"\x1f\x8b" else io.BytesIO(data)
    # Only <url> and <sitemap> elements reach Python; no DTDs, entities, network or huge trees (XXE, billion laughs).
    events = etree.iterparse(
        stream, events=("end",), tag=("{*}url", "{*}sitemap"), recover=True, remove_comments=True,
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
    )
    root = None
    try:
        for _, node in events:
            parent = node.getparent()
            if root is None and parent is not None:
                root = parent
                _check_root(root)
            if parent is not root or root is None:
                continue  # a <url> nested in something else is not an entry
            item = _item(node, base_url)
            # Drop what was read: the tree never holds more than one entry.
            node.clear()
            while node.getprevious() is not None:
                del root[0]
            if item is not None:
                yield item
        if root is None:
            _check_root(events.root)
    except etree.XMLSyntaxError as exc:
        raise SitemapError(f"not a valid XML sitemap: {exc}") from exc


def _check_root(root) -> None:
    if root is None:
        raise SitemapError("empty or non-XML sitemap")
    kind = _local_name(root.tag).lower()
    if kind not in ("urlset", "sitemapindex"):
        raise SitemapError(f"root element <{kind}> is neither <urlset> nor <sitemapindex>")


def _local_name(tag) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _item(node, base_url: str | None) -> SitemapEntry | ChildSitemap | None:
    """One ``<url>`` or ``<sitemap>``, its children read in a single pass (this runs 600k times a sitemap)."""
    loc = lastmod = None
    alternates: dict[str, str] = {}
    for child in node:
        name = _local_name(child.tag)
        if name == "loc" and loc is None:
            loc = (child.text or "").strip() or None
        elif name == "lastmod":
            lastmod = parse_date(child.text or "")
        elif name == "link" and child.get("rel") == "alternate":
            lang, href = child.get("hreflang"), child.get("href")
            if lang and href:
                alternates[lang.lower()] = href.strip()
    if loc is None:
        return None
    if base_url is not None:
        loc = _resolved(loc, base_url)
        alternates = {lang: _resolved(href, base_url) for lang, href in alternates.items()}
    if _local_name(node.tag) == "sitemap":
        return ChildSitemap(loc)
    return SitemapEntry(loc, lastmod, alternates)


def _resolved(url: str, base_url: str) -> str:
    # Nearly every <loc> is absolute: the prefix test spares urlsplit on 600k of them.
    if url.startswith(("https://", "http://")) or urlsplit(url).scheme:
        return url
    return urljoin(base_url, url)
