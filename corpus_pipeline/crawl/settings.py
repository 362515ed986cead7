"""Global crawl settings: politeness, limits and the ``no_follow`` list."""

from __future__ import annotations

from dataclasses import dataclass

# URL substrings that are never requested: share buttons, social networks, account pages and static assets.
DEFAULT_NO_FOLLOW: tuple[str, ...] = (
    "whatsapp.com/send", "api.whatsapp.com", "pinterest.com/pin/create", "facebook.com/sharer", "facebook.com/share",
    "twitter.com/intent", "twitter.com/share", "x.com/intent", "reddit.com/submit", "t.me/share", "linkedin.com/share",
    "linkedin.com/sharing", "vk.com/share.php", "bufferapp.com/add", "getpocket.com/edit", "tumblr.com/share",
    "translate.google.com/translate", "flickr.com", "instagram.com", "mailto:",
    "/profile/", "/login/", "/signup/", "/login?", "/signup?", "/user/", "/member/", "/register?", "/wp-login.php",
    ".css", ".json",
)


@dataclass(frozen=True)
class CrawlSettings:
    """Knobs shared by every website's crawl (the Dagster resource maps onto this)."""

    no_follow: tuple[str, ...] = DEFAULT_NO_FOLLOW
    user_agent: str = "corpus_pipeline/0.1 (+https://github.com/corpus-pipeline/corpus_pipeline)"
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 20.0
    total_timeout_s: float = 60.0
    max_body_bytes: int = 10 * 1024 * 1024
    max_pdf_bytes: int = 50 * 1024 * 1024
    max_sitemap_bytes: int = 50 * 1024 * 1024  # also the cap of a decompressed gzip sitemap
    max_pages: int = 10_000
    max_url_length: int = 2048
    max_query_variants: int = 50  # distinct query strings per path before it is treated as a trap
    max_repeated_segments: int = 3  # /a/b/a/b/a/b... is a trap
    # Sitemaps read per crawl (indexes included): an index may list 50,000 children of 50,000 URLs each.
    max_sitemaps: int = 1000
    # Pages of one path template (digit runs abstracted: /cal/#/#/), each found only on the previous one, before the
    # chain is a trap (a calendar's "next month" forever); pagination up to this depth is still crawled.
    max_template_chain: int = 100
    # Fetches in flight across hosts (None: twice per_host_concurrency); each may hold a body in memory.
    max_in_flight: int | None = None
    # Pace per host (crawl/throttle.py): adaptive by default, within these bounds.
    adaptive_pace: bool = True  # False: a fixed pace of per_host_concurrency requests, min_delay_s apart
    per_host_concurrency: int = 8  # ceiling of requests in flight per host (Scrapy's per-domain default)
    min_delay_s: float = 0.0  # floor of the delay between request starts; robots.txt Crawl-delay raises it
    max_delay_s: float = 10.0  # ceiling of the back-off delay: a refusing server is still asked every 10 s
    max_crawl_delay_s: float = 30.0  # robots.txt Crawl-delay above this is capped
    max_retries: int = 3
    backoff_base_s: float = 0.5
    max_retry_after_s: float = 60.0
    allow_private_external: bool = False

    def matches_no_follow(self, url: str) -> bool:
        """Whether ``url`` contains one of the ``no_follow`` substrings."""
        return any(fragment in url for fragment in self.no_follow)
