"""How a website's pages point at each other: its sitemaps' listings and the links between its pages.

The dedup election prefers, among copies of one text, the page the website itself puts forward: the one its sitemaps
list and its other pages link to.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from urllib.parse import urlsplit

from lxml import html

from corpus_pipeline.core.urls import InvalidUrlError, absolutize, canonical_url
from corpus_pipeline.crawl.sitemaps import SitemapEntry, SitemapError, iter_sitemap

# Same cap as the crawler's: a sitemap expanding beyond it was already refused (or cut) at crawl time.
MAX_SITEMAP_BYTES = 50 * 1024 * 1024


def page_key(url: str) -> str | None:
    """The key pages are counted under: the canonical URL of ``url`` without its fragment, None if invalid."""
    try:
        return canonical_url(url.split("#", 1)[0])
    except InvalidUrlError:
        return None


def page_links(document: html.HtmlElement, url: str) -> frozenset[str]:
    """Keys of the same-host pages ``document`` (found at ``url``) links to with ``<a href>``, itself excluded."""
    own = page_key(url)
    host = urlsplit(url).netloc.lower()
    declared = next(document.iter("base"), None)
    base = (absolutize(declared.get("href") or "", url) or url) if declared is not None else url
    folder = _folder(base)
    targets = set()
    for href in {(node.get("href") or "").split("#", 1)[0].strip() for node in document.iter("a")}:
        key = _link_key(href, resolution_base(href, folder, base), host)
        if key and key != own:
            targets.add(key)
    return frozenset(targets)


# A link whose reference begins with these (or is empty) is resolved against the whole base: its path, query or
# parameters; any other reference only against the base's scheme, host and folder (RFC 3986's merge).
_WHOLE_BASE_NEEDED = frozenset(("", "?", ";"))
_ABSOLUTE_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def resolution_base(href: str, folder: str | None, base: str) -> str:
    """What :func:`page_links` resolves ``href`` against: the least of ``base`` that gives the same URL, so that pages
    share it: the base's origin for an absolute URL or path (``/docs/a``), its ``folder`` (:func:`_folder`) for other
    references, else ``base``; also for ``//`` references, as ``urljoin`` reads an empty authority as no reference.
    """
    if not folder or href[:1] in _WHOLE_BASE_NEEDED or href.startswith("//"):
        return base
    if href.startswith("/") or _ABSOLUTE_URL.match(href):
        return folder[: folder.index("/", folder.index("//") + 2) + 1]
    return folder


def _folder(base: str) -> str | None:
    """``base`` up to the last ``/`` of its path, None when that cannot be read off the string (no path, or a
    query, fragment or parameters that may hold a ``/``): a reference with a path resolves the same against both."""
    if any(char in base for char in "?#;") or base.count("/") < 3:
        return None
    return base[: base.rfind("/") + 1]


# A website's pages link to the same pages again and again (its navigation): each process remembers the last keys.
@lru_cache(maxsize=16384)
def _link_key(href: str, base: str, host: str) -> str | None:
    """The :func:`page_key` of ``href`` resolved against ``base`` when it is on ``host``, else None."""
    target = absolutize(href, base) if href else None
    if target and urlsplit(target).netloc.lower() == host:
        return page_key(target)
    return None


@dataclass(frozen=True)
class SitemapListing:
    """What the website's sitemaps say of its pages: which they list (``key in listing``, a :func:`page_key`), and
    the ``lastmod`` of each entry that has one."""

    keys: frozenset[str] = frozenset()
    lastmods: Mapping[str, datetime] = field(default_factory=dict)

    def __contains__(self, key: object) -> bool:
        return key in self.keys


def sitemap_listing(sitemaps: Iterable[tuple[str, bytes]], max_bytes: int = MAX_SITEMAP_BYTES) -> SitemapListing:
    """Every page the sitemaps, ``(address, body)`` each, list as an entry or as an entry's hreflang alternate, and
    each entry's ``lastmod``; a ``<loc>`` path is read against its sitemap's address, as the crawler reads it.
    Sitemap indexes and unreadable sitemaps list no page (the crawl recorded why)."""
    # A multilingual sitemap names each page once per language that lists it: each spelling is made a key once.
    urls: set[str] = set()
    lastmods: dict[str, datetime] = {}
    for address, body in sitemaps:
        try:
            for item in iter_sitemap(body, max_bytes, base_url=address):
                if isinstance(item, SitemapEntry):
                    urls.add(item.loc)
                    urls.update(item.alternates.values())
                    if item.lastmod is not None:
                        lastmods.setdefault(item.loc, item.lastmod)
        except SitemapError:
            continue  # entries read before the error stay listed
    keys = {url: page_key(url) for url in urls}
    return SitemapListing(
        frozenset(key for key in keys.values() if key),
        {key: lastmod for url, lastmod in lastmods.items() if (key := keys[url])},
    )

