"""What parsing one page takes: the stored page and what its parse may cost.

Apart from extract/page.py, which parses, so that what only reads or plans pages (the crawl's settings, the code
versions, the survey of an unchanged night) does not import the parsers (trafilatura, Resiliparse...).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class ExtractionBudget:
    """What one page may cost before it is given up, with an error on its record."""

    # Real pages take 70 ms at the median and 2.7 s at worst: 30 s leaves ten times that for a loaded machine, and
    # still stops a parser trap (Resiliparse spends ~50 s on 50,000 nested divs). None: no limit.
    page_time_s: float | None = 30.0
    # Deeper markup is flattened to this depth before any parser reads it, never refused: lxml keeps only 255 levels
    # (dropping the rest), Resiliparse's time grows with the depth squared. The deepest of 1,678 real pages nests 56.
    max_markup_depth: int = 250


DEFAULT_BUDGET = ExtractionBudget()


@dataclass(frozen=True)
class HtmlPage:
    """One raw_pages row of kind html, as the parser needs it."""

    url: str
    body: bytes
    content_type: str | None
    fetched_at: datetime
    sitemap_lastmod: datetime | None = None
    http_last_modified: datetime | None = None
    category: str | None = None
    hreflang: str | None = None
