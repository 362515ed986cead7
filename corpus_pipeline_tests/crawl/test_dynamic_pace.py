"""The default pace on a dynamic CMS served on 127.0.0.1 (issue 47): pages of different costs, fast redirects, files
and 404s mixed in, a few workers. Assertions are on what the server saw, never on timing."""

from __future__ import annotations

import statistics

from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline.crawl.settings import CrawlSettings
from corpus_pipeline_tests.crawl.cms_site import PAGE_KINDS, CmsProfile, CmsSite


def test_a_default_crawl_keeps_requests_in_flight_on_a_dynamic_site_whose_latency_does_not_rise():
    # As many workers as the pace's ceiling: our requests never wait for one, so the server's latency does not rise
    # with our concurrency; only each page's own cost and the mix of kinds of answer vary.
    settings = CrawlSettings()
    profile = CmsProfile(workers=settings.per_host_concurrency, posts=60)
    with CmsSite(profile) as site:
        rows = list(crawl_website(site.website(), settings))
        seen = site.stats()
    assert not [row for row in rows if row["outcome"] == "error" or (row["status"] or 0) >= 500], "no failure"
    kinds = set(seen.kinds)
    assert {"page", "redirect", "file", "missing"} <= kinds, f"a mix of kinds of answer: {kinds}"
    # Past the first answers (one at a time: they measure the idle latency of each kind), the pages found the
    # server working on at least two of our requests, typically.
    pages = [load for kind, load in zip(seen.kinds, seen.in_flight) if kind in PAGE_KINDS]
    steady = pages[len(pages) // 4:]
    assert statistics.median(steady) >= 2, f"requests in flight at the server when each page arrived: {steady}"
