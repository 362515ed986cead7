"""The previous crawl of a website, as a cache for conditional requests.

Validators (ETag, Last-Modified, sitemap lastmod) of every URL are held in
memory; bodies stay on disk and are read one row group at a time, when a page
turns out to be unchanged.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path

import pyarrow.parquet as pq

from corpus_pipeline.core.arrow_values import table_rows
from corpus_pipeline.core.outcomes import USABLE_OUTCOMES

_VALIDATOR_COLUMNS = [
    "url", "final_url", "outcome", "kind", "content_type", "etag", "last_modified", "sitemap_lastmod", "fetched_at",
]
# Columns added to raw_pages later: read when the partition has them (a partition written before has not).
_LATER_COLUMNS = ["robots", "body_fetched_at"]
_CACHED_ROW_GROUPS = 4


@dataclass(frozen=True)
class CachedFetch:
    """What the previous crawl knows about one URL."""

    final_url: str | None
    kind: str | None
    content_type: str | None
    etag: str | None
    last_modified: datetime | None
    sitemap_lastmod: datetime | None
    row_group: int
    row_index: int
    robots: str | None = None  # the page's robots directives last time (its X-Robots-Tag is not in a 304)
    body_fetched_at: datetime | None = None  # when its body was first fetched as it is

    def conditional_headers(self) -> dict[str, str]:
        """``If-None-Match`` / ``If-Modified-Since`` for a conditional GET."""
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified.strftime("%a, %d %b %Y %H:%M:%S GMT")
        return headers


class PreviousCrawl:
    """Read access to the previous raw_pages partition of a website."""

    def __init__(self, parquet: pq.ParquetFile, entries: dict[str, CachedFetch]) -> None:
        self._parquet = parquet
        self._entries = entries
        # The bodies of the last few row groups read (unchanged pages come in about the order they were written).
        self._bodies = lru_cache(_CACHED_ROW_GROUPS)(
            lambda group: parquet.read_row_group(group, columns=["body"]).column("body").to_pylist())
        self._lock = threading.Lock()  # the crawler reads bodies from worker threads

    @classmethod
    def open(cls, path: Path) -> PreviousCrawl:
        """Index a raw_pages partition: validators in memory, bodies left on disk."""
        parquet = pq.ParquetFile(path)
        entries: dict[str, CachedFetch] = {}
        columns = _VALIDATOR_COLUMNS + [c for c in _LATER_COLUMNS if c in parquet.schema_arrow.names]
        for group in range(parquet.num_row_groups):
            rows = table_rows(parquet.read_row_group(group, columns=columns))  # to_pylist imports pandas
            for index, row in enumerate(rows):
                if row["outcome"] in USABLE_OUTCOMES:
                    entries[row["url"]] = CachedFetch(
                        row["final_url"], row["kind"], row["content_type"], row["etag"],
                        row["last_modified"], row["sitemap_lastmod"], group, index, row.get("robots"),
                        row.get("body_fetched_at") or row["fetched_at"],
                    )
        return cls(parquet, entries)

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, url: str) -> CachedFetch | None:
        """Validators of a URL that had a usable body last time, else None."""
        return self._entries.get(url)

    def body(self, url: str) -> bytes | None:
        """The stored body of a URL (reads its row group from disk, with a small LRU cache)."""
        entry = self._entries.get(url)
        if entry is None:
            return None
        with self._lock:
            return self._bodies(entry.row_group)[entry.row_index]

    def close(self) -> None:
        self._parquet.close()
