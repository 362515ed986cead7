"""Crawl one website: sitemap mode or recursive mode, politely, each URL once.

The main thread owns the frontier (what was seen, what is queued, every
decision not to fetch); worker threads only fetch and parse. One row is yielded
per decision, as it happens, so the caller can write rows to Parquet in batches
and memory stays bounded.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
import threading
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from queue import SimpleQueue
from typing import Any
from urllib.parse import urljoin, urlsplit

from corpus_pipeline.core.outcomes import USABLE_OUTCOMES, FetchOutcome
from corpus_pipeline.core.registry import Website
from corpus_pipeline.core.urls import InvalidUrlError, idna_host, normalize_url
from corpus_pipeline.crawl.fetcher import Expected, Fetcher, FetchResult, HopGuard, Refusal
from corpus_pipeline.crawl.link_memo import LinkMemo
from corpus_pipeline.crawl.links import PageLinks, extract_links
from corpus_pipeline.crawl.politeness import RobotsRules, is_private_address, is_private_host
from corpus_pipeline.crawl.previous import PreviousCrawl
from corpus_pipeline.crawl.robots_meta import from_headers, from_meta, meta_names
from corpus_pipeline.crawl.settings import CrawlSettings
from corpus_pipeline.crawl.sitemaps import ChildSitemap, SitemapError, iter_sitemap
from corpus_pipeline.crawl.throttle import HostThrottle

DIGIT_RUN = re.compile(r"\d+")
# A path segment that looks like a session id or another random token (16 or more letters and digits, both present):
# a template abstracts it whole, so session ids of a format normalize_url does not know make a path trap.
TOKEN_SEGMENT = re.compile(r"(?<=/)(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{16,}(?=/|$)")
# URLs a crawl queues (pages fetched or refused included) per page of max_pages: links found beyond it are counted on
# the row of the page they were found on, not queued, so a site of pages of 20,000 new links each costs bounded memory.
FRONTIER_PER_PAGE = 2
# Raw link spellings remembered (a cache that saves normalizing navigation links again), per URL of the frontier.
LINKS_SEEN_PER_URL = 10


@dataclass(frozen=True)
class CrawlTask:
    """A URL the crawler decided about, with how it was reached."""

    url: str
    expected: Expected
    depth: int
    source: str  # start | sitemap | sitemap_index | link | alternate | robots
    referrer: str | None = None
    category: str | None = None
    hreflang: str | None = None
    sitemap_lastmod: datetime | None = None
    follow_links: bool = False
    indexable: bool = False
    chain: int = 1  # pages of this URL's path template in the line of pages that led here, itself included


@dataclass
class _Done:
    """What a worker hands back: rows to write first (robots.txt of new hosts), the task and its fetch."""

    rows: list[dict]
    task: CrawlTask
    result: FetchResult
    discovered: list[CrawlTask] = field(default_factory=list)
    left_out: int = 0  # links of the page not turned into tasks: the frontier was full


def crawl_website(website: Website, settings: CrawlSettings, previous: PreviousCrawl | None = None,
                  resumed: Iterable[Mapping[str, Any]] = (), link_memo: LinkMemo | None = None) -> Iterator[dict]:
    """Yield one raw_pages row (RAW_PAGES_SCHEMA keys) per crawl decision; never raises for network trouble.

    ``resumed``: the rows an interrupted crawl of the website already wrote, neither yielded nor requested again
    (the frontier is rebuilt from them). ``link_memo`` gives last crawl's links of a page and records this crawl's.
    """
    yield from _Crawl(website, settings, previous, link_memo).run(resumed)


class _Crawl:
    """State of one crawl; created per call, never shared."""

    def __init__(self, website: Website, settings: CrawlSettings, previous: PreviousCrawl | None,
                 link_memo: LinkMemo | None) -> None:
        self.website = website
        self.settings = settings
        self.previous = previous
        self.link_memo = link_memo
        self.throttle = HostThrottle.for_settings(settings)
        self.fetcher = Fetcher(settings, self.throttle, peer_check=self._private_peer_refusal)
        self.robots_fetcher = Fetcher(dataclasses.replace(settings, max_retries=min(1, settings.max_retries)),
                                      self.throttle, peer_check=self._private_peer_refusal)
        self.max_pages = website.max_pages or settings.max_pages
        self.frontier_limit = FRONTIER_PER_PAGE * self.max_pages  # documents claimed, at most
        self.links_seen_limit = LINKS_SEEN_PER_URL * self.frontier_limit
        self.site_netlocs = {urlsplit(normalize_url(website.url)).netloc}
        self.site_netlocs |= {idna_host(h) for h in website.same_site_hosts}
        start = urlsplit(normalize_url(urljoin(website.base_url + "/", website.child)))
        self.section = start.path[: start.path.rfind("/") + 1] or "/"
        self.seen: set[str] = set()
        # Raw link spellings already turned into tasks: navigation repeats them on every page, and normalizing costs
        # more than fetching (set.add is atomic under the GIL; a rare double entry is de-duplicated by _enqueue).
        self.links_seen: set[str] = set()
        self.robots: dict[str, RobotsRules] = {}
        self.robots_meta_names = meta_names(settings.user_agent)
        # What the links of a page depend on besides its body and URL (see _links).
        self.link_options = (f"alternates={bool(website.langs)};robots={','.join(sorted(self.robots_meta_names))};"
                             f"nofollow={website.follow_nofollow_links}")
        self.robots_host_locks: dict[str, threading.Lock] = {}
        self.is_private_host = functools.cache(is_private_host)
        self.query_variants: dict[str, set[str]] = defaultdict(set)
        self.documents_claimed = 0  # documents queued: the budget sitemap entries are measured against
        self.documents_dispatched = 0  # documents admitted to a request: max_pages holds exactly here
        self.sitemaps_dispatched = 0
        self.queue: deque[CrawlTask] = deque()
        self.sitemap_queue: deque[CrawlTask] = deque()  # read one at a time, so the page budget is exact

    # -- frontier (main thread) -------------------------------------------------------------

    def run(self, resumed: Iterable[Mapping[str, Any]]) -> Iterator[dict]:
        from_sitemaps, from_pages = self._resume(resumed)
        yield from self._load_robots(self.website.base_url + "/")
        site_robots = self.robots.get(self._robots_key(self.website.base_url + "/"))
        for task in self._initial_tasks(site_robots):
            self._enqueue(task)
        for task in from_pages:
            self._enqueue_within_frontier(task)
        for task in from_sitemaps:  # as a live crawl reads them: within the page budget
            if task.expected != "document" or self.documents_claimed < self.max_pages:
                self._enqueue(task)

        in_flight_limit = self.settings.max_in_flight or max(2, self.settings.per_host_concurrency * 2)
        pool = ThreadPoolExecutor(max_workers=in_flight_limit, thread_name_prefix=f"crawl-{self.website.name}")
        pending: dict[Future, CrawlTask] = {}
        # Fetches report here as they end: concurrent.futures.wait would hook a waiter into every pending future.
        finished: SimpleQueue[Future] = SimpleQueue()
        try:
            while self.queue or self.sitemap_queue or pending:
                for task in self._next_tasks(in_flight_limit - len(pending), pending.values()):
                    refusal = self._admit(task)
                    if refusal is not None:
                        yield self._row(task, FetchResult(refusal.outcome, error=refusal.reason))
                        continue
                    self.documents_dispatched += task.expected == "document"
                    self.sitemaps_dispatched += task.expected == "sitemap"
                    future = pool.submit(self._execute, task)
                    pending[future] = task
                    future.add_done_callback(finished.put)
                if not pending:
                    continue
                for future in _ended(finished):
                    pending.pop(future)
                    yield from self._finish(future.result())
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _next_tasks(self, room: int, in_flight: Iterable[CrawlTask]) -> Iterator[CrawlTask]:
        """Tasks to start now: at most one sitemap in flight, then documents up to ``room``."""
        sitemap_busy = any(t.expected == "sitemap" for t in in_flight)
        while room > 0 and (self.queue or (self.sitemap_queue and not sitemap_busy)):
            if self.sitemap_queue and not sitemap_busy:
                task = self.sitemap_queue.popleft()
                sitemap_busy = True  # if this one is refused, the next round starts the next sitemap
            else:
                task = self.queue.popleft()
            room -= 1
            yield task

    def _finish(self, done: _Done) -> Iterator[dict]:
        """Rows of a finished fetch; a sitemap's entries are read here, against the page budget."""
        yield from done.rows
        result = done.result
        if result.kind == "sitemap" and result.outcome in USABLE_OUTCOMES and result.body:
            result.outcome, result.error = self._read_sitemap(
                done.task, result.body, self._enqueue, lambda: self.documents_claimed < self.max_pages)
        left_out = done.left_out + sum(not self._enqueue_within_frontier(task) for task in done.discovered)
        if left_out and result.error is None:
            result.error = (f"limit: {left_out:,} links beyond the frontier of {self.frontier_limit:,} URLs "
                            f"({FRONTIER_PER_PAGE} x max_pages) not queued")
        yield self._row(done.task, result)

    def _enqueue(self, task: CrawlTask) -> None:
        """Queue a task unless its URL was claimed before (the first claim wins)."""
        if task.url in self.seen:
            return
        self.seen.add(task.url)
        self.documents_claimed += task.expected == "document"
        (self.sitemap_queue if task.expected == "sitemap" else self.queue).append(task)

    def _enqueue_within_frontier(self, task: CrawlTask) -> bool:
        """Queue a link of a page unless the frontier is full (False: left out, to be counted; a URL already
        claimed is no loss)."""
        if task.expected == "document" and self.documents_claimed >= self.frontier_limit:
            return task.url in self.seen
        self._enqueue(task)
        return True

    def _initial_tasks(self, robots: RobotsRules | None) -> list[CrawlTask]:
        website = self.website
        if website.mode == "crawl":
            url = urljoin(website.base_url + "/", website.child)
            task = self._document_task(url, depth=0, source="start", follow_links=True)
            return [task] if task else []
        sitemap_urls = [urljoin(website.base_url + "/", website.sitemap)] + (robots.sitemaps if robots else [])
        return [
            CrawlTask(url, "sitemap", 0, "sitemap_index" if i == 0 else "robots")
            for i, url in enumerate(_normalized(sitemap_urls))
        ]

    def _admit(self, task: CrawlTask) -> Refusal | None:
        """Checks that need no network: a refusal, or None when the task may go ahead."""
        url, settings = task.url, self.settings
        limit = partial(Refusal, FetchOutcome.LIMIT_REACHED)
        if settings.matches_no_follow(url):
            return Refusal(FetchOutcome.NO_FOLLOW, "URL matches a no_follow entry")
        if len(url) > settings.max_url_length:
            return limit(f"URL longer than {settings.max_url_length} characters")
        parts = urlsplit(url)
        segments = [s for s in parts.path.split("/") if s]
        if segments and max(segments.count(s) for s in set(segments)) > settings.max_repeated_segments:
            return limit("path segment repeated: likely a crawler trap")
        if task.chain > settings.max_template_chain:
            return limit(f"path trap: over {settings.max_template_chain} pages of {path_template(parts.path)}, each "
                         "found on the previous one")
        if parts.query and task.expected == "document":
            variants = self.query_variants[f"{parts.netloc}{parts.path}"]
            variants.add(parts.query)
            if len(variants) > settings.max_query_variants:
                return limit(f"more than {settings.max_query_variants} query variants of one path")
        if task.expected == "document" and self.documents_dispatched >= self.max_pages:
            return limit(f"max_pages ({self.max_pages}) reached")
        if task.expected == "sitemap":
            if self.sitemaps_dispatched >= settings.max_sitemaps:
                return limit(f"max_sitemaps ({settings.max_sitemaps}) reached: sitemap not read")
            if self.documents_claimed >= self.max_pages:
                return limit(f"max_pages ({self.max_pages}) reached: sitemap not read")
        return None

    def _read_sitemap(self, task: CrawlTask, body: bytes, add: Callable[[CrawlTask], None],
                      has_room: Callable[[], bool]) -> tuple[FetchOutcome, str | None]:
        """Stream a sitemap's items into ``add`` (pages while ``has_room``); its row's (outcome, error or notice)."""
        left_out = 0
        try:
            for item in self._from_sitemap(task, body, has_room):
                if item is None or (item.expected == "document" and not has_room()):
                    left_out += 1
                else:
                    add(item)
        except SitemapError as exc:
            return FetchOutcome.ERROR, str(exc)
        if left_out:
            return FetchOutcome.FETCHED, f"limit: {left_out:,} sitemap entries beyond max_pages not queued"
        return FetchOutcome.FETCHED, None

    def _network_refusal(self, url: str, expected: str, rows: list[dict]) -> Refusal | None:
        """Checks that need the network (robots.txt, DNS), run in worker threads so that a slow
        or dead host never stalls the frontier; robots.txt rows of new hosts go to ``rows``."""
        refusal = self._private_refusal(url)
        if refusal is not None:
            return refusal
        rows.extend(self._load_robots(url))
        if self._obeys_robots(url):
            rules = self.robots.get(self._robots_key(url))
            if rules is not None and rules.disallow_reason is not None:
                return Refusal(FetchOutcome.ROBOTS_DISALLOWED, rules.disallow_reason)
            if expected == "document" and rules is not None and not rules.allows(url):
                return Refusal(FetchOutcome.ROBOTS_DISALLOWED, "disallowed by robots.txt")
        return None

    def _hop_refusal(self, url: str, expected: str, rows: list[dict]) -> Refusal | None:
        """A redirect hop is judged like a URL of its own before it is requested."""
        if self.settings.matches_no_follow(url):
            return Refusal(FetchOutcome.NO_FOLLOW, "URL matches a no_follow entry")
        return self._network_refusal(url, expected, rows)

    def _obeys_robots(self, url: str) -> bool:
        return self.website.obey_robots or not self._is_same_site(url)

    def _load_robots(self, url: str) -> Iterator[dict]:
        """Fetch a host's robots.txt once, before its first request (yields its row, to one caller only)."""
        key = self._robots_key(url)
        if key in self.robots:
            return
        host_lock = self.robots_host_locks.setdefault(key, threading.Lock())  # atomic under the GIL
        with host_lock:
            if key in self.robots:  # another worker fetched it while we waited
                return
            robots_url = f"{key}/robots.txt"
            self.seen.add(robots_url)
            # Redirects of robots.txt are followed (RFC 9309 2.3.1.2) but never to a private address.
            result = self.robots_fetcher.fetch(robots_url, expected="robots", hop_guard=self._private_refusal)
            self._install_robots(key, robots_rules(result.outcome, result.status, result.body, result.error,
                                                  self.settings.user_agent))
            yield self._row(CrawlTask(robots_url, "robots", 0, "robots"), result)

    def _install_robots(self, key: str, rules: RobotsRules) -> None:
        """Rules of one host (``scheme://netloc``), with its Crawl-delay."""
        self.robots[key] = rules
        if rules.crawl_delay and self._obeys_robots(key + "/"):
            host = urlsplit(key).hostname or ""
            self.throttle.set_delay(host, min(rules.crawl_delay, self.settings.max_crawl_delay_s))

    def _private_refusal(self, url: str) -> Refusal | None:
        """Only the website's own hosts may be on a private address (unless allow_private_external)."""
        if self._is_same_site(url) or self.settings.allow_private_external:
            return None
        host = urlsplit(url).hostname or ""
        if self.is_private_host(host):
            return Refusal(FetchOutcome.PRIVATE_ADDRESS, f"{host} is a private address outside the website")
        return None

    def _private_peer_refusal(self, host: str, port: int, address: str) -> str | None:
        """The same rule, applied to the address a connection actually reached (a name may re-resolve)."""
        netloc = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        if self.settings.allow_private_external or self._is_same_site(f"http://{netloc}/"):
            return None
        if is_private_address(address):
            return f"{host} connected to the private address {address}, outside the website"
        return None

    @staticmethod
    def _robots_key(url: str) -> str:
        parts = urlsplit(url)
        if not parts.netloc.isascii():  # an IDN host: its punycode spelling, the one every task's URL has
            parts = urlsplit(normalize_url(url))
        return f"{parts.scheme}://{parts.netloc}"

    def _is_same_site(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.netloc in self.site_netlocs:
            return True
        host = idna_host(parts.hostname or "")  # an IDN host and its punycode spelling are one host
        try:
            port = parts.port
        except ValueError:
            port = None
        return host in self.site_netlocs or (port is not None and f"{host}:{port}" in self.site_netlocs)

    # -- work (worker threads) --------------------------------------------------------------

    def _execute(self, task: CrawlTask) -> _Done:
        rows: list[dict] = []
        refusal = self._network_refusal(task.url, task.expected, rows)
        if refusal is not None:
            return _Done(rows, task, FetchResult(refusal.outcome, error=refusal.reason))
        result = self._fetch(task, lambda hop: self._hop_refusal(hop, task.expected, rows))
        task = self._retarget(task, result.final_url)
        if result.outcome in USABLE_OUTCOMES and result.kind in ("html", "pdf"):
            return self._read_document(rows, task, result)
        return _Done(rows, task, result)

    def _read_document(self, rows: list[dict], task: CrawlTask, result: FetchResult) -> _Done:
        """What a fetched document lets us do: its robots directives (X-Robots-Tag, robots meta tags) go on its row,
        ``noindex`` keeps it out of the corpus (``indexable``), ``nofollow`` keeps its links unqueued."""
        robots = from_headers(result.robots_headers, self.settings.user_agent)
        links = None
        page_url = result.final_url or task.url
        if result.kind == "html" and result.body:
            links = self._links(result.body, page_url, self._follows(task))
            robots |= from_meta(links.robots_meta)
        result.robots = robots.value
        if robots.noindex:
            task = dataclasses.replace(task, indexable=False)
        if links is None or robots.nofollow:
            return _Done(rows, task, result)
        # A snapshot of the room left (other pages' links may take it first: the main thread queues within it).
        room = self.frontier_limit - self.documents_claimed
        return _Done(rows, task, result, *self._from_page(task, links, page_url, room))

    def _links(self, body: bytes, page_url: str, follow: bool) -> PageLinks:
        """The page's robots meta tags and translations, and its links when ``follow`` (else none, and the page is read
        faster: a sitemap's page in most registries)."""
        read = partial(extract_links, body, page_url, alternates=bool(self.website.langs),
                       robots_names=self.robots_meta_names, follow_nofollow=self.website.follow_nofollow_links,
                       links=follow)
        if self.link_memo is None:
            return read()
        return self.link_memo.links(body, page_url, f"{self.link_options};links={follow}", read)

    def _follows(self, task: CrawlTask) -> bool:
        """Whether the links of the task's page are followed (its translations are, whenever ``langs`` asks)."""
        if not task.follow_links:
            return False
        limit = self.website.max_recurse_level
        return not (self.website.mode == "crawl" and limit != -1 and task.depth + 1 >= limit)

    def _retarget(self, task: CrawlTask, final_url: str | None) -> CrawlTask:
        """Category and link following follow where a redirect ended: a site page sent off-site is external."""
        if task.expected != "document" or not final_url or final_url == task.url:
            return task
        same_site = self._is_same_site(final_url)
        if same_site == self._is_same_site(task.url):
            return task
        if same_site:
            return dataclasses.replace(task, category=self.website.category)
        return dataclasses.replace(task, category="external", follow_links=False)

    def _fetch(self, task: CrawlTask, hop_guard: HopGuard) -> FetchResult:
        cached = self.previous.lookup(task.url) if self.previous is not None else None
        if cached is None or self.previous is None:
            return self.fetcher.fetch(task.url, task.expected, hop_guard=hop_guard)
        lastmod = task.sitemap_lastmod
        if self.website.skip_unchanged_lastmod and lastmod is not None and lastmod == cached.sitemap_lastmod:
            return self._from_cache(task.url, cached, FetchResult(FetchOutcome.UNCHANGED_LASTMOD))
        result = self.fetcher.fetch(task.url, task.expected, cached.conditional_headers(), hop_guard)
        if result.outcome == FetchOutcome.NOT_MODIFIED:
            return self._from_cache(task.url, cached, result)
        if result.body is not None and result.body == self.previous.body(task.url):
            # The same bytes again (a server that sends no validators): the document is as it was since then.
            result.body_fetched_at = cached.body_fetched_at
        return result

    def _from_cache(self, url: str, cached, result: FetchResult) -> FetchResult:
        assert self.previous is not None
        result.body = self.previous.body(url)
        result.kind = cached.kind
        result.final_url = cached.final_url or url
        result.content_type = cached.content_type
        result.etag = result.etag or cached.etag
        result.last_modified = result.last_modified or cached.last_modified
        result.body_fetched_at = cached.body_fetched_at
        if not result.robots_headers and cached.robots:  # a 304 need not repeat X-Robots-Tag: last time's holds
            result.robots_headers = (cached.robots,)
        return result

    def _from_sitemap(self, task: CrawlTask, body: bytes, has_room: Callable[[], bool]) -> Iterator[CrawlTask | None]:
        """Child sitemaps and page tasks of a sitemap, streamed; None for an entry left out for lack of
        room (not even normalized: 600k of them must cost little). Raises SitemapError when it breaks."""
        follow = self.website.internal_links != "ignore"
        for item in iter_sitemap(body, self.settings.max_sitemap_bytes, base_url=task.url):
            if isinstance(item, ChildSitemap):
                yield from (CrawlTask(url, "sitemap", task.depth, "sitemap_index", referrer=task.url)
                            for url in _normalized([item.loc]))
                continue
            if not has_room():
                yield None
                continue
            page = self._document_task(item.loc, 0, "sitemap", task.url, follow_links=follow, lastmod=item.lastmod)
            if page is None:
                continue
            yield page
            alternates = (self._document_task(item.alternates[lang], 0, "alternate", page.url, hreflang=lang)
                          for lang in self.website.langs if lang in item.alternates)
            yield from filter(None, alternates)

    def _from_page(self, task: CrawlTask, links: PageLinks, page_url: str, room: int) -> tuple[list[CrawlTask], int]:
        """Tasks of a page's links, at most ``room`` of them, and how many wanted links were left out (neither
        normalized nor remembered: 20,000 of them per page must cost little)."""
        follow_alternates = task.follow_links and self.website.mode == "crawl"
        tasks = [self._document_task(links.alternates[lang], task.depth, "alternate", task.url,
                                     follow_links=follow_alternates, hreflang=lang)
                 for lang in self.website.langs if lang in links.alternates]
        if not self._follows(task):
            return [t for t in tasks if t], 0
        crawl_mode = self.website.mode == "crawl"
        next_depth = task.depth + 1
        mode = self.website.internal_links
        page_template = path_template(urlsplit(page_url).path)
        left_out = 0
        links_seen = self.links_seen
        for link in links.links:
            if link in links_seen:
                continue
            same_site = self._is_same_site(link)
            link_path = urlsplit(link).path
            is_pdf = link_path.lower().endswith(".pdf")
            if crawl_mode:
                in_section = not self.website.restrict_section or link_path.startswith(self.section)
                wanted = (same_site and in_section) or is_pdf
            else:
                wanted = is_pdf or (mode in ("any", "internal") if same_site else mode in ("any", "external"))
            if wanted and len(tasks) >= room:
                left_out += 1
                continue
            if len(links_seen) >= self.links_seen_limit:
                links_seen.clear()  # only a cache: a link seen again is normalized again, then de-duplicated
            links_seen.add(link)
            if wanted:
                template = path_template(link_path)
                chain = task.chain + 1 if template == page_template and template != link_path else 1
                tasks.append(self._document_task(
                    link, next_depth, "link", page_url, follow_links=crawl_mode and same_site and not is_pdf,
                    chain=chain,
                ))
        return [t for t in tasks if t], left_out

    def _document_task(self, url: str, depth: int, source: str, referrer: str | None = None, *,
                       follow_links: bool = False, hreflang: str | None = None,
                       lastmod: datetime | None = None, chain: int = 1) -> CrawlTask | None:
        try:
            normalized = normalize_url(url)
        except InvalidUrlError:
            return None
        category = self.website.category if self._is_same_site(normalized) else "external"
        return CrawlTask(normalized, "document", depth, source, referrer, category, hreflang, lastmod,
                         follow_links, self.website.is_indexable(normalized), chain)

    # -- resume (main thread, before the crawl) --------------------------------------------------

    def _resume(self, rows: Iterable[Mapping[str, Any]]) -> tuple[list[CrawlTask], list[CrawlTask]]:
        """Take in the rows of an interrupted crawl without any request: their URLs are seen, robots rows give back
        their rules, documents count against max_pages; the links and sitemap items of their bodies are returned
        (from sitemaps, from pages), to be claimed once every resumed URL is known."""
        from_sitemaps: list[CrawlTask] = []
        from_pages: list[CrawlTask] = []
        chains: dict[str, int] = {}
        for row in rows:
            task = self._resumed_task(row, chains)
            self.seen.add(task.url)
            if task.expected == "robots":
                self._install_robots(self._robots_key(task.url), robots_rules(
                    row["outcome"], row.get("status"), row.get("body"), row.get("error"), self.settings.user_agent))
                continue
            refused_early = row["outcome"] in (FetchOutcome.NO_FOLLOW, FetchOutcome.LIMIT_REACHED)
            if task.expected == "document":
                self.documents_claimed += 1
                self.documents_dispatched += not refused_early
            else:
                self.sitemaps_dispatched += not refused_early
            body = row.get("body")
            if row["outcome"] not in USABLE_OUTCOMES or not body:
                continue
            if row.get("kind") == "sitemap":
                # Resumed URLs among them are dropped later, so up to max_pages pages are kept per sitemap.
                gathered = _ResumedSitemapItems(from_sitemaps, self.max_pages)
                self._read_sitemap(task, body, gathered.add, gathered.has_room)
            elif row.get("kind") == "html":
                chains[task.url] = task.chain
                page_url = row.get("final_url") or task.url
                links = self._links(body, page_url, self._follows(task))
                # The directives its row recorded (the X-Robots-Tag's included) and its meta tags.
                if not from_meta([row.get("robots") or "", *links.robots_meta]).nofollow:
                    # Links beyond the frontier were counted on the page's row when it was written.
                    room = self.frontier_limit - self.documents_claimed - len(from_pages)
                    from_pages.extend(self._from_page(task, links, page_url, room)[0])
        return from_sitemaps, from_pages

    def _resumed_task(self, row: Mapping[str, Any], chains: dict[str, int]) -> CrawlTask:
        """The task a resumed row was written for, as a live crawl would have built it."""
        url, source, category = row["url"], row.get("source") or "link", row.get("category")
        if source == "robots" and urlsplit(url).path == "/robots.txt":
            return CrawlTask(url, "robots", 0, "robots")
        if source in ("sitemap_index", "robots"):
            return CrawlTask(url, "sitemap", row.get("depth") or 0, source, row.get("referrer"))
        if self.website.mode == "crawl":
            follow = category != "external" and source in ("start", "link", "alternate") and not (
                urlsplit(url).path.lower().endswith(".pdf"))
        else:
            follow = source == "sitemap" and self.website.internal_links != "ignore"
        referrer = row.get("referrer")
        template = path_template(urlsplit(url).path)
        same_line = (
            referrer in chains and template == path_template(urlsplit(referrer).path) and template != urlsplit(url).path
        )
        return CrawlTask(url, "document", row.get("depth") or 0, source, referrer, category, row.get("hreflang"),
                         row.get("sitemap_lastmod"), follow, bool(row.get("indexable")),
                         chains.get(referrer or "", 0) + 1 if same_line else 1)

    def _row(self, task: CrawlTask, result: FetchResult) -> dict:
        keep_body = result.outcome in USABLE_OUTCOMES and result.kind in ("html", "pdf", "sitemap", "robots")
        body = result.body if keep_body else None
        fetched_at = result.fetched_at or datetime.now(UTC)
        return {
            "website": self.website.name,
            "url": task.url,
            "final_url": result.final_url,
            "outcome": FetchOutcome(result.outcome).value,
            "kind": result.kind,
            "status": result.status,
            "content_type": result.content_type,
            "etag": result.etag,
            "last_modified": result.last_modified,
            "sitemap_lastmod": task.sitemap_lastmod,
            "bytes": result.bytes,
            "elapsed_s": round(result.elapsed_s, 4),
            "pace_wait_s": round(result.pace_wait_s, 4),
            "attempts": result.attempts,
            "error": result.error,
            "depth": task.depth,
            "referrer": task.referrer,
            "source": task.source,
            "category": task.category,
            "hreflang": task.hreflang,
            "indexable": task.indexable,
            "robots": result.robots,
            "fetched_at": fetched_at,
            "body": body,
            "body_fetched_at": (result.body_fetched_at or fetched_at) if body is not None else None,
        }


@dataclass
class _ResumedSitemapItems:
    """Items of a resumed sitemap: every child sitemap and at most ``max_pages`` pages go to ``found``."""

    found: list[CrawlTask]
    max_pages: int
    pages: int = 0

    def has_room(self) -> bool:
        return self.pages < self.max_pages

    def add(self, task: CrawlTask) -> None:
        self.pages += task.expected == "document"
        self.found.append(task)


def path_template(path: str) -> str:
    """A URL path with every run of digits abstracted: /cal/2026/11/ and /cal/2027/01/ share /cal/#/#/; a segment
    of a random-looking token (a session id) is abstracted whole: /s/8f3a9c2e71d04b5a/page is /s/*/page."""
    return DIGIT_RUN.sub("#", TOKEN_SEGMENT.sub("*", path))


def robots_rules(outcome: str, status: int | None, body: bytes | None, error: str | None,
                 user_agent: str) -> RobotsRules:
    """What a robots.txt fetch means (RFC 9309 2.3.1): rules when read, allow all when missing (4xx),
    complete disallow when unreachable (5xx, 429, network error), for this run only."""
    if outcome in USABLE_OUTCOMES:
        return RobotsRules(body.decode("utf-8", "replace") if body else None, user_agent)
    if outcome == FetchOutcome.HTTP_ERROR and status is not None and (status >= 500 or status == 429):
        return RobotsRules.unreachable(user_agent, f"answered HTTP {status}")
    if outcome == FetchOutcome.ERROR and not (error or "").startswith("redirect"):
        return RobotsRules.unreachable(user_agent, f"unreachable ({error})")
    return RobotsRules(None, user_agent)  # missing, too large, or redirected away: unavailable, allow all


def _normalized(urls: Iterable[str]) -> Iterator[str]:
    """The URLs normalized, those that cannot be left out."""
    for url in urls:
        with contextlib.suppress(InvalidUrlError):
            yield normalize_url(url)


def _ended(finished: SimpleQueue[Future]) -> list[Future]:
    """The fetches that ended: at least one (waiting for it), and every other one already there."""
    ended = [finished.get()]
    while not finished.empty():  # the main thread is the one consumer: get() will not block
        ended.append(finished.get())
    return ended
