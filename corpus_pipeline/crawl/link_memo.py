"""The links the last crawl read from each page, kept beside raw_pages (``crawl_links``), by body.

A page answered ``304 Not Modified`` (or skipped by an unchanged sitemap lastmod) has last night's body, hence its
links, translations and robots meta tags: the crawl takes them from here instead of parsing the body again. A page's
key covers its body, its URL (links are resolved against it), the crawl's options and the version of the code that
reads links. The memo is a cache and nothing more: a page it lacks is read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from corpus_pipeline.core.partition_writer import PartitionWriter
from corpus_pipeline.core.reuse import KeyedRows, digest
from corpus_pipeline.crawl.links import PageLinks

# The memo's partitions in the warehouse: raw_pages' companion, not an asset of its own.
LINKS_MEMO = "crawl_links"
LINKS_MEMO_SCHEMA = pa.schema([
    pa.field("key", pa.binary()),
    pa.field("links", pa.list_(pa.string())),
    pa.field("alternate_langs", pa.list_(pa.string())),
    pa.field("alternate_urls", pa.list_(pa.string())),
    pa.field("robots_meta", pa.list_(pa.string())),
])


class LinkMemo:
    """Last crawl's links by key (``last``, a memo file), and this crawl's, written to ``writer`` as pages are read;
    ``reading`` names the version of the code that reads links (a memo of another version is never used). Safe to use
    from the crawl's worker threads."""

    def __init__(self, last: Path | None, reading: str, writer: PartitionWriter | None = None) -> None:
        self._last = KeyedRows(last, "key") if last is not None else None
        self._reading = reading
        self._writer = writer
        self._lock = threading.Lock()
        self.kept = 0  # pages whose links came from the memo

    def links(self, body: bytes, page_url: str, options: str, read: Callable[[], PageLinks]) -> PageLinks:
        """The links of the page ``body`` at ``page_url`` read with ``options``: last crawl's when it read the same,
        else ``read()``; either way recorded for the next crawl."""
        key = digest(self._reading, options, page_url, body)
        with self._lock:
            row = self._last.get(key) if self._last is not None else None
        links = _links_of(row) if row is not None else read()
        with self._lock:
            self.kept += row is not None
            if self._writer is not None:
                self._writer.write(_row_of(key, links))
        return links

    def close(self) -> None:
        """Close last crawl's memo file."""
        if self._last is not None:
            self._last.close()


def _row_of(key: bytes, links: PageLinks) -> dict[str, Any]:
    return {
        "key": key,
        "links": list(links.links),
        "alternate_langs": list(links.alternates),
        "alternate_urls": list(links.alternates.values()),
        "robots_meta": list(links.robots_meta),
    }


def _links_of(row: dict[str, Any]) -> PageLinks:
    return PageLinks(
        tuple(row["links"]), dict(zip(row["alternate_langs"], row["alternate_urls"], strict=True)),
        tuple(row["robots_meta"]),
    )
