"""A dynamic CMS on 127.0.0.1, as a WordPress site behind Apache answers a crawler: real sockets, no mocks.

What the profile keeps of such a site (issue 47):

* A few **workers**: each request holds one while the server works on it; requests beyond them wait for a free one,
  so the latency at the server rises only when more requests than workers are in flight.
* **Pages** cost what their URL costs (a long post with many comments is always slow), drawn once per URL from a
  log-normal spread (median 90 ms, most between 45 and 200 ms, clipped to 40-400 ms), give or take a tenth per
  request.
* **Fast answers** mixed in, a few milliseconds each: shortlinks (``/?p=12``) and old slugs redirected (301) to
  their post, uploaded images served as files, links to deleted posts answered 404.

The server runs in a child process of its own (its threads never wait for the crawler's interpreter lock) and
records, for every request, the kind of answer, its latency at the server (arrival to headers, as Apache's ``%D``
nearly is for small pages) and how many requests were in flight when it arrived, itself included.

    with CmsSite(CmsProfile(workers=4)) as site:
        rows = list(crawl_website(site.website(), CrawlSettings()))
        stats = site.stats()
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import random
import statistics
import threading
import time
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from multiprocessing.connection import Connection
from urllib.request import urlopen

from corpus_pipeline.core.registry import Website, parse_registry

PAGE_KINDS = ("page", "sitemap")  # answers that cost the server real work; the others are fast
# How long the server child may take to end once asked (it ends within milliseconds when nothing is wrong).
EXIT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class CmsProfile:
    """How the emulated CMS behaves: its workers, its posts and what each kind of answer costs."""

    workers: int = 4
    posts: int = 120
    categories: int = 6
    page_median_s: float = 0.09
    page_sigma: float = 0.45  # of the log-normal spread of page costs
    page_min_s: float = 0.04
    page_max_s: float = 0.4
    fast_s: float = 0.003  # a redirect, a 404, a file
    related_links: int = 6  # other posts each post links to
    paragraphs: int = 25  # of text per post (about 15 kB of HTML with the template)
    seed: int = 47


@dataclass(frozen=True)
class Answer:
    """What the server answers for one path."""

    kind: str  # page | sitemap | redirect | missing | file | robots
    cost_s: float
    status: int = 200
    location: str | None = None


@dataclass
class CmsStats:
    """What the server saw since its last reset, one entry per request."""

    kinds: list[str]
    latencies: list[float]  # seconds from arrival to headers
    in_flight: list[int]  # requests in flight when each arrived, itself included
    paths: list[str]

    def latencies_of(self, kinds: tuple[str, ...] = PAGE_KINDS) -> list[float]:
        """Latencies of the answers of ``kinds`` (pages and sitemaps: the slow ones)."""
        return [latency for kind, latency in zip(self.kinds, self.latencies) if kind in kinds]

    def mean_latency(self, kinds: tuple[str, ...] | None = None) -> float:
        """Mean latency at the server of every answer, or of the answers of ``kinds``."""
        chosen = self.latencies if kinds is None else self.latencies_of(kinds)
        return statistics.fmean(chosen) if chosen else math.nan


class CmsSiteMap:
    """The site's posts, categories and fast URLs, drawn once from the profile's seed."""

    def __init__(self, profile: CmsProfile) -> None:
        self.profile = profile
        draw = random.Random(profile.seed)
        self.permalinks = [f"/2024/{1 + i % 12:02d}/{1 + i % 28:02d}/post-{i}/" for i in range(profile.posts)]
        self.costs = [self._page_cost(draw) for _ in range(profile.posts)]
        self.category_costs = [self._page_cost(draw) for _ in range(profile.categories)]
        self.related = [draw.sample(range(profile.posts), min(profile.related_links, profile.posts))
                        for _ in range(profile.posts)]
        self.home_cost = self._page_cost(draw)

    def _page_cost(self, draw: random.Random) -> float:
        profile = self.profile
        cost = profile.page_median_s * math.exp(draw.gauss(0.0, profile.page_sigma))
        return min(max(cost, profile.page_min_s), profile.page_max_s)

    def answer(self, path: str) -> Answer:
        """The answer for ``path`` (with its query)."""
        fast = self.profile.fast_s
        route, _, query = path.partition("?")
        if route == "/" and query.startswith("p="):  # shortlink
            post = self._post(query[2:])
            return Answer("redirect", fast, 301, self.permalinks[post]) if post is not None else Answer(
                "missing", fast, 404)
        if route == "/":
            return Answer("page", self.home_cost)
        if route == "/robots.txt":
            return Answer("robots", fast)
        if route == "/wp-sitemap.xml":
            return Answer("sitemap", self.profile.page_median_s)
        if route.startswith("/archives/"):  # an old slug
            post = self._post(route.removeprefix("/archives/"))
            return Answer("redirect", fast, 301, self.permalinks[post]) if post is not None else Answer(
                "missing", fast, 404)
        if route.startswith("/wp-content/uploads/") and route.endswith(".jpg"):
            return Answer("file", fast)
        if route.startswith("/category/"):
            index = self._post(route.removeprefix("/category/cat-").rstrip("/"))
            if index is not None and index < self.profile.categories:
                return Answer("page", self.category_costs[index])
        if route.startswith("/2024/"):
            post = self._post(route.rstrip("/").rsplit("/post-", 1)[-1])
            if post is not None and route == self.permalinks[post]:
                return Answer("page", self.costs[post])
        return Answer("missing", fast, 404)

    def _post(self, text: str) -> int | None:
        return int(text) if text.isdigit() and int(text) < self.profile.posts else None

    def body(self, path: str, answer: Answer) -> tuple[bytes, str]:
        """The body and Content-Type of an answer."""
        if answer.kind == "robots":
            return b"User-agent: *\nDisallow: /wp-admin/\n", "text/plain"
        if answer.kind == "sitemap":
            entries = "".join(f"<url><loc>{{base}}{link}</loc></url>" for link in self.permalinks)
            return (f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/'
                    f'sitemap/0.9">{entries}</urlset>').encode(), "application/xml"
        if answer.kind == "file":
            return b"\xff\xd8\xff\xe0" + bytes(8000), "image/jpeg"
        if answer.kind in ("redirect", "missing"):
            return b"<html><body><p>See elsewhere.</p></body></html>", "text/html; charset=UTF-8"
        return self._page(path).encode(), "text/html; charset=UTF-8"

    def _page(self, path: str) -> str:
        profile = self.profile
        nav = "".join(f'<li><a href="/category/cat-{k}/">Category {k}</a></li>' for k in range(profile.categories))
        if path == "/" or path.startswith("/category/"):
            step = profile.categories if path != "/" else 1
            first = int(path.removeprefix("/category/cat-").rstrip("/")) if path != "/" else 0
            listed = range(first, min(profile.posts, first + 40 * step), step)
            main = "".join(f'<article><h2><a href="{self.permalinks[i]}">Post {i}</a></h2>'
                           f"<p>Summary of post {i}.</p></article>" for i in listed)
            title = "Home" if path == "/" else "Category"
        else:
            post = int(path.rstrip("/").rsplit("/post-", 1)[-1])
            related = "".join(f'<li><a href="{self.permalinks[j]}">Post {j}</a></li>' for j in self.related[post])
            text = "".join(f"<p>Paragraph {n} of post {post}: words a reader came for, and more of them.</p>"
                           for n in range(profile.paragraphs))
            missing = f'<a href="/2019/deleted-{post}/">an old post</a>' if post % 3 == 0 else ""
            main = (f'<article><h1>Post {post}</h1><img src="/wp-content/uploads/post-{post}.jpg">{text}'
                    f'<p><a href="/wp-content/uploads/post-{post}.jpg">Full size</a> {missing} '
                    f'<a href="/?p={(post + 1) % profile.posts}">next</a> '
                    f'<a href="/archives/{(post + 7) % profile.posts}">seven on</a></p>'
                    f"</article><aside><ul>{related}</ul></aside>")
            title = f"Post {post}"
        return (f"<!doctype html><html><head><title>{title} - A CMS</title></head><body>"
                f'<header><a href="/">A CMS</a><nav><ul>{nav}</ul></nav></header><main>{main}</main>'
                f"<footer><p>Powered by a CMS.</p></footer></body></html>")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # Apache's ListenBacklog is far above the default 5

    def handle_error(self, request, client_address) -> None:
        return  # a crawler closes connections whose bodies it does not want: no traceback for that


def _serve(profile: CmsProfile, port_out: Connection, parent_end: Connection) -> None:
    """The child process: the CMS on a free port, its port sent back, until the parent's end of the pipe closes."""
    parent_end.close()
    site = CmsSiteMap(profile)
    workers = threading.BoundedSemaphore(profile.workers)
    lock = threading.Lock()
    stats = CmsStats([], [], [], [])
    in_flight = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as Apache
        disable_nagle_algorithm = True  # headers and body in two writes must not wait for a delayed ACK

        def do_GET(self) -> None:  # noqa: N802
            if self.path in ("/__stats", "/__reset"):
                self._control()
            else:
                self._answer(with_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(with_body=False)

        def log_message(self, format, *args) -> None:  # noqa: A002
            return

        def _control(self) -> None:
            with lock:
                body = json.dumps(asdict(stats)).encode()
                if self.path == "/__reset":
                    for values in (stats.kinds, stats.latencies, stats.in_flight, stats.paths):
                        values.clear()
            self._send(200, body, "application/json", None, True)

        def _answer(self, with_body: bool) -> None:
            arrived = time.perf_counter()
            with lock:
                in_flight[0] += 1
                seen = in_flight[0]
            try:
                answer = site.answer(self.path)
                with workers:  # the request waits here for a free worker: the server's queue
                    time.sleep(answer.cost_s * random.uniform(0.9, 1.1))
                body, content_type = site.body(self.path.partition("?")[0], answer)
                host = self.headers.get("Host", "")
                body = body.replace(b"{base}", f"http://{host}".encode())
                self._send(answer.status, body, content_type, answer.location, with_body,
                           lambda: self._record(answer.kind, time.perf_counter() - arrived, seen))
            finally:
                with lock:
                    in_flight[0] -= 1

        def _record(self, kind: str, latency: float, seen: int) -> None:
            with lock:
                stats.kinds.append(kind)
                stats.latencies.append(latency)
                stats.in_flight.append(seen)
                stats.paths.append(self.path)

        def _send(self, status: int, body: bytes, content_type: str, location: str | None, with_body: bool,
                  headers_sent=None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                if location:
                    self.send_header("Location", location)
                self.end_headers()
                if headers_sent is not None:
                    headers_sent()
                if with_body:
                    self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up on us

    httpd = _Server(("127.0.0.1", 0), Handler)
    port_out.send(httpd.server_address[1])
    threading.Thread(target=_exit_with_parent, args=(port_out,), daemon=True).start()
    httpd.serve_forever()


def _exit_with_parent(pipe: Connection) -> None:
    """Never outlive the process that started the server, even one that crashed."""
    try:
        pipe.recv()
    except EOFError:
        pass
    os._exit(0)


class CmsSite:
    """The emulated CMS served by a child process on 127.0.0.1 for the length of a ``with`` block."""

    def __init__(self, profile: CmsProfile | None = None) -> None:
        self.profile = profile or CmsProfile()
        context = multiprocessing.get_context("spawn")  # a fresh interpreter: no lock of ours copied half-held
        self._pipe, child_end = context.Pipe()
        self._process = context.Process(target=_serve, args=(self.profile, child_end, self._pipe), daemon=True)
        self._port = 0

    def __enter__(self) -> CmsSite:
        self._process.start()
        self._port = self._pipe.recv()
        return self

    def __exit__(self, *exc) -> None:
        # The child ends itself when our end of the pipe closes. SIGTERM is only the fallback, and SIGKILL the last
        # one: a process Dagster ran in gives SIGTERM SIGINT's handler, which in a background job is "ignore", and
        # a spawned child inherits that.
        self._pipe.close()
        self._process.join(EXIT_TIMEOUT_S)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(EXIT_TIMEOUT_S)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    def website(self, mode: str = "sitemap", **options) -> Website:
        """A registry entry for the site (sitemap mode, as the issue's WordPress was crawled, or crawl mode)."""
        entry = {"name": "cms", "url": self.base_url + "/", "mode": mode, **options}
        if mode == "sitemap":
            entry.setdefault("sitemap", "/wp-sitemap.xml")
        return parse_registry({"websites": [entry]}).websites[0]

    def stats(self) -> CmsStats:
        """What the server saw since the last reset."""
        return self._control("/__stats")

    def reset(self) -> CmsStats:
        """Clear the server's record; returns what it was."""
        return self._control("/__reset")

    def _control(self, path: str) -> CmsStats:
        with urlopen(self.base_url + path, timeout=30) as response:
            return CmsStats(**json.loads(response.read()))
