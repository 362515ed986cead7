"""Crawl outcomes: why a URL is present in raw_pages, one value per crawl decision.

The values are the strings stored in the ``outcome`` column of raw_pages (the
Parquet contract): members compare equal to them and never change spelling.
"""

from __future__ import annotations

from enum import StrEnum


class FetchOutcome(StrEnum):
    """Every value of raw_pages ``outcome``."""

    FETCHED = "fetched"  # 2xx with a body we kept
    NOT_MODIFIED = "not_modified"  # 304 on a conditional GET: body reused from the previous crawl
    UNCHANGED_LASTMOD = "unchanged_lastmod"  # not requested: sitemap lastmod equals the previous crawl's
    HTTP_ERROR = "http_error"  # a final 4xx/5xx status after retries
    ERROR = "error"  # network error, deadline, redirect loop, unreadable sitemap...
    ROBOTS_DISALLOWED = "robots_disallowed"  # robots.txt forbids it, or robots.txt failed (RFC 9309): not requested
    NO_FOLLOW = "no_follow"  # the URL or one of its redirect hops matches a no_follow substring
    TOO_LARGE = "too_large"  # body over the size cap: download stopped
    UNSUPPORTED_TYPE = "unsupported_type"  # neither HTML, PDF nor XML: body not downloaded
    LIMIT_REACHED = "limit_reached"  # max pages / sitemaps, URL length, or a trap rule: not requested
    PRIVATE_ADDRESS = "private_address"  # a host (or redirect hop) outside the website on a private address


# Outcomes whose body is a usable document.
USABLE_OUTCOMES: frozenset[FetchOutcome] = frozenset(
    {FetchOutcome.FETCHED, FetchOutcome.NOT_MODIFIED, FetchOutcome.UNCHANGED_LASTMOD}
)
# The same, as the strings stored in raw_pages (for filters on the ``outcome`` column), in a fixed order.
USABLE_OUTCOME_VALUES: tuple[str, ...] = tuple(sorted(outcome.value for outcome in USABLE_OUTCOMES))
