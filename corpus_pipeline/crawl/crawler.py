"""Crawl one website: sitemap mode or recursive mode, politely, each URL once.

The main thread owns the frontier (what was seen, what is queued, every
decision not to fetch); worker threads only fetch and parse. One row is yielded
per decision, as it happens, so the caller can write rows to Parquet in batches
and memory stays bounded.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import defaultdict, deque
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import urljoin, urlsplit

from corpus_pipeline.core.registry import Website
from corpus_pipeline.core.urls import InvalidUrlError, normalize_url
from corpus_pipeline.crawl.fetcher import Fetcher, FetchResult
from corpus_pipeline.crawl.links import extract_links
from corpus_pipeline.crawl.politeness import RobotsRules, is_private_host
from corpus_pipeline.crawl.previous import PreviousCrawl
from corpus_pipeline.crawl.settings import CrawlSettings
from corpus_pipeline.crawl.sitemaps import SitemapError, parse_sitemap
from corpus_pipeline.crawl.throttle import HostThrottle

USABLE = ("fetched", "not_modified", "unchanged_lastmod")


@dataclass(frozen=True)
class CrawlTask:
    """A URL the crawler decided about, with how it was reached."""

    url: str
    expected: str  # document | sitemap | robots
    depth: int
    source: str  # start | sitemap | sitemap_index | link | alternate | robots
    referrer: str | None = None
    category: str | None = None
    hreflang: str | None = None
    sitemap_lastmod: datetime | None = None
    follow_links: bool = False
    indexable: bool = False


def crawl_website(website: Website, settings: CrawlSettings, previous: PreviousCrawl | None = None) -> Iterator[dict]:
    """Yield one raw_pages row (RAW_PAGES_SCHEMA keys) per crawl decision; never raises for network trouble."""
    yield from _Crawl(website, settings, previous).run()


class _Crawl:
    """State of one crawl; created per call, never shared."""

    def __init__(self, website: Website, settings: CrawlSettings, previous: PreviousCrawl | None) -> None:
        self.website = website
        self.settings = settings
        self.previous = previous
        self.throttle = HostThrottle.for_settings(settings)
        self.fetcher = Fetcher(settings, self.throttle)
        self.robots_fetcher = Fetcher(dataclasses.replace(settings, max_retries=min(1, settings.max_retries)), self.throttle)
        self.max_pages = website.max_pages or settings.max_pages
        self.site_netlocs = {urlsplit(normalize_url(website.url)).netloc} | {h.lower() for h in website.same_site_hosts}
        start = urlsplit(normalize_url(urljoin(website.base_url + "/", website.child)))
        self.section = start.path[: start.path.rfind("/") + 1] or "/"
        self.website_is_private = is_private_host(website.host)
        self.seen: set[str] = set()
        # Raw link spellings already turned into tasks: navigation repeats the same links on every page,
        # and normalizing them again would cost more than fetching (set.add is atomic under the GIL;
        # a rare double entry is still de-duplicated by _claim).
        self.links_seen: set[str] = set()
        self.robots: dict[str, RobotsRules] = {}
        self.robots_lock = threading.Lock()
        self.robots_host_locks: dict[str, threading.Lock] = {}
        self.private_hosts: dict[str, bool] = {}
        self.query_variants: dict[str, set[str]] = defaultdict(set)
        self.documents_dispatched = 0

    # -- frontier (main thread) -------------------------------------------------------------

    def run(self) -> Iterator[dict]:
        queue: deque[CrawlTask] = deque()
        yield from self._load_robots(self.website.base_url + "/")
        site_robots = self.robots.get(self._robots_key(self.website.base_url + "/"))
        for task in self._initial_tasks(site_robots):
            if self._claim(task):
                queue.append(task)

        in_flight_limit = max(2, self.settings.per_host_concurrency * 2)
        pool = ThreadPoolExecutor(max_workers=in_flight_limit, thread_name_prefix=f"crawl-{self.website.name}")
        pending: dict[Future, CrawlTask] = {}
        try:
            while queue or pending:
                while queue and len(pending) < in_flight_limit:
                    task = queue.popleft()
                    refusal = self._admit(task)
                    if refusal is not None:
                        yield self._row(task, FetchResult(refusal[0], error=refusal[1]))
                        continue
                    if task.expected == "document":
                        self.documents_dispatched += 1
                    pending[pool.submit(self._execute, task)] = task
                if not pending:
                    continue
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    pending.pop(future)
                    rows, discovered = future.result()
                    yield from rows
                    queue.extend(t for t in discovered if self._claim(t))
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _initial_tasks(self, robots: RobotsRules | None) -> list[CrawlTask]:
        website = self.website
        if website.mode == "crawl":
            url = urljoin(website.base_url + "/", website.child)
            return [self._document_task(url, depth=0, source="start", follow_links=True)]
        sitemap_urls = [urljoin(website.base_url + "/", website.sitemap)] + (robots.sitemaps if robots else [])
        return [
            CrawlTask(url, "sitemap", 0, "sitemap_index" if i == 0 else "robots")
            for i, url in enumerate(_normalized(sitemap_urls))
        ]

    def _claim(self, task: CrawlTask) -> bool:
        """Normalize and de-duplicate: the first claim of a URL wins, later ones are dropped."""
        if task.url in self.seen:
            return False
        self.seen.add(task.url)
        return True

    def _admit(self, task: CrawlTask) -> tuple[str, str] | None:
        """Checks that need no network: (outcome, reason) when the task is refused, else None."""
        url, settings = task.url, self.settings
        if settings.matches_no_follow(url):
            return "no_follow", "URL matches a no_follow entry"
        if len(url) > settings.max_url_length:
            return "limit_reached", f"URL longer than {settings.max_url_length} characters"
        parts = urlsplit(url)
        segments = [s for s in parts.path.split("/") if s]
        if segments and max(segments.count(s) for s in set(segments)) > settings.max_repeated_segments:
            return "limit_reached", "path segment repeated: likely a crawler trap"
        if parts.query:
            variants = self.query_variants[f"{parts.netloc}{parts.path}"]
            variants.add(parts.query)
            if len(variants) > settings.max_query_variants:
                return "limit_reached", f"more than {settings.max_query_variants} query variants of one path"
        if task.expected == "document" and self.documents_dispatched >= self.max_pages:
            return "limit_reached", f"max_pages ({self.max_pages}) reached"
        return None

    def _network_refusal(self, task: CrawlTask) -> tuple[tuple[str, str] | None, list[dict]]:
        """Checks that need the network (robots.txt, DNS), run in worker threads so that a slow
        or dead host never stalls the frontier: (outcome, reason) when refused, plus robots.txt rows."""
        url = task.url
        if not self._is_same_site(url) and not self.settings.allow_private_external and not self.website_is_private:
            host = urlsplit(url).hostname or ""
            if host not in self.private_hosts:
                self.private_hosts[host] = is_private_host(host)
            if self.private_hosts[host]:
                return ("private_address", f"{host} resolves to a private address"), []
        robots_rows = list(self._load_robots(url))
        if task.expected == "document" and self._obeys_robots(url):
            rules = self.robots.get(self._robots_key(url))
            if rules is not None and not rules.allows(url):
                return ("robots_disallowed", "disallowed by robots.txt"), robots_rows
        return None, robots_rows

    def _obeys_robots(self, url: str) -> bool:
        return self.website.obey_robots or not self._is_same_site(url)

    def _load_robots(self, url: str) -> Iterator[dict]:
        """Fetch a host's robots.txt once, before its first request (yields its row, to one caller only)."""
        key = self._robots_key(url)
        if key in self.robots:
            return
        with self.robots_lock:
            host_lock = self.robots_host_locks.setdefault(key, threading.Lock())
        with host_lock:
            if key in self.robots:  # another worker fetched it while we waited
                return
            yield from self._fetch_robots(key)

    def _fetch_robots(self, key: str) -> Iterator[dict]:
        robots_url = f"{key}/robots.txt"
        self.seen.add(robots_url)
        host = urlsplit(robots_url).hostname or ""
        result = self.robots_fetcher.fetch(robots_url, host, expected="robots")
        text = result.body.decode("utf-8", "replace") if result.outcome == "fetched" and result.body else None
        rules = RobotsRules(text, self.settings.user_agent)
        self.robots[key] = rules
        if rules.crawl_delay and self._obeys_robots(robots_url):
            self.throttle.set_delay(host, min(rules.crawl_delay, self.settings.max_crawl_delay_s))
        yield self._row(CrawlTask(robots_url, "robots", 0, "robots"), result)

    @staticmethod
    def _robots_key(url: str) -> str:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}"

    def _is_same_site(self, url: str) -> bool:
        parts = urlsplit(url)
        return parts.netloc in self.site_netlocs or (parts.hostname or "") in self.site_netlocs

    # -- work (worker threads) --------------------------------------------------------------

    def _execute(self, task: CrawlTask) -> tuple[list[dict], list[CrawlTask]]:
        refusal, rows = self._network_refusal(task)
        if refusal is not None:
            return rows + [self._row(task, FetchResult(refusal[0], error=refusal[1]))], []
        result = self._fetch(task)
        discovered: list[CrawlTask] = []
        if result.outcome in USABLE and result.body:
            if result.kind == "sitemap":
                try:
                    discovered = self._from_sitemap(task, result.body)
                except SitemapError as exc:
                    result.outcome, result.error = "error", str(exc)
            elif result.kind == "html":
                discovered = self._from_page(task, result)
        return rows + [self._row(task, result)], discovered

    def _fetch(self, task: CrawlTask) -> FetchResult:
        host = urlsplit(task.url).hostname or ""
        cached = self.previous.lookup(task.url) if self.previous is not None else None
        if cached is None:
            return self.fetcher.fetch(task.url, host, task.expected)
        if (
            self.website.skip_unchanged_lastmod
            and task.sitemap_lastmod is not None
            and task.sitemap_lastmod == cached.sitemap_lastmod
        ):
            return self._from_cache(task.url, cached, FetchResult("unchanged_lastmod"))
        result = self.fetcher.fetch(task.url, host, task.expected, cached.conditional_headers())
        if result.outcome == "not_modified":
            return self._from_cache(task.url, cached, result)
        return result

    def _from_cache(self, url: str, cached, result: FetchResult) -> FetchResult:
        assert self.previous is not None
        result.body = self.previous.body(url)
        result.kind = cached.kind
        result.final_url = cached.final_url or url
        result.content_type = cached.content_type
        result.etag = result.etag or cached.etag
        result.last_modified = result.last_modified or cached.last_modified
        return result

    def _from_sitemap(self, task: CrawlTask, body: bytes) -> list[CrawlTask]:
        sitemap = parse_sitemap(body, self.settings.max_sitemap_bytes)
        tasks = [CrawlTask(url, "sitemap", task.depth, "sitemap_index", referrer=task.url) for url in _normalized(sitemap.sitemaps)]
        follow = self.website.internal_links != "ignore"
        for entry in sitemap.entries:
            page = self._document_task(entry.loc, 0, "sitemap", task.url, follow_links=follow, lastmod=entry.lastmod)
            if page is None:
                continue
            tasks.append(page)
            for lang in self.website.langs:
                if lang in entry.alternates:
                    alternate = self._document_task(entry.alternates[lang], 0, "alternate", page.url, hreflang=lang)
                    tasks.extend([alternate] if alternate else [])
        return tasks

    def _from_page(self, task: CrawlTask, result: FetchResult) -> list[CrawlTask]:
        page_url = result.final_url or task.url
        links = extract_links(result.body or b"", page_url)
        tasks: list[CrawlTask] = []
        for lang in self.website.langs:
            if lang in links.alternates:
                tasks.append(self._document_task(
                    links.alternates[lang], task.depth, "alternate", task.url,
                    follow_links=task.follow_links and self.website.mode == "crawl", hreflang=lang,
                ))
        if not task.follow_links:
            return [t for t in tasks if t]
        crawl_mode = self.website.mode == "crawl"
        limit = self.website.max_recurse_level
        next_depth = task.depth + 1
        if crawl_mode and limit != -1 and next_depth >= limit:
            return [t for t in tasks if t]
        mode = self.website.internal_links
        for link in links.links:
            if link in self.links_seen:
                continue
            self.links_seen.add(link)
            same_site = self._is_same_site(link)
            is_pdf = urlsplit(link).path.lower().endswith(".pdf")
            if crawl_mode:
                in_section = not self.website.restrict_section or urlsplit(link).path.startswith(self.section)
                wanted = (same_site and in_section) or is_pdf
            else:
                wanted = is_pdf or (mode in ("any", "internal") if same_site else mode in ("any", "external"))
            if wanted:
                tasks.append(self._document_task(
                    link, next_depth, "link", page_url, follow_links=crawl_mode and same_site and not is_pdf,
                ))
        return [t for t in tasks if t]

    def _document_task(self, url: str, depth: int, source: str, referrer: str | None = None, *,
                       follow_links: bool = False, hreflang: str | None = None,
                       lastmod: datetime | None = None) -> CrawlTask | None:
        try:
            normalized = normalize_url(url)
        except InvalidUrlError:
            return None
        category = self.website.category if self._is_same_site(normalized) else "external"
        return CrawlTask(normalized, "document", depth, source, referrer, category, hreflang, lastmod,
                         follow_links, self.website.is_indexable(normalized))

    def _row(self, task: CrawlTask, result: FetchResult) -> dict:
        keep_body = result.outcome in USABLE and result.kind in ("html", "pdf", "sitemap", "robots")
        return {
            "website": self.website.name,
            "url": task.url,
            "final_url": result.final_url,
            "outcome": result.outcome,
            "kind": result.kind,
            "status": result.status,
            "content_type": result.content_type,
            "etag": result.etag,
            "last_modified": result.last_modified,
            "sitemap_lastmod": task.sitemap_lastmod,
            "bytes": result.bytes,
            "elapsed_s": round(result.elapsed_s, 4),
            "attempts": result.attempts,
            "error": result.error,
            "depth": task.depth,
            "referrer": task.referrer,
            "source": task.source,
            "category": task.category,
            "hreflang": task.hreflang,
            "indexable": task.indexable,
            "fetched_at": result.fetched_at or datetime.now(timezone.utc),
            "body": result.body if keep_body else None,
        }


def _normalized(urls) -> list[str]:
    out = []
    for url in urls:
        try:
            out.append(normalize_url(url))
        except InvalidUrlError:
            continue
    return out
