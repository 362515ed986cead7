"""Crawl pace and throughput on sites served locally: our crawler's default (adaptive) pace against fixed paces and
a naive sequential HEAD+GET crawler.

Usage: python benchmarks/crawl_bench.py [--latency-ms 50] [--concurrency 16] [--loaded-base-ms 50] [--cms-workers 4]
       [--only fast,loaded,dynamic] [--quick]

The site is Debian's python3.11-doc HTML (about 530 pages, dense links and #anchors), served on 127.0.0.1 by two
servers, each crawl in the same run:

1. A fast server: a fixed delay per response, however many requests are in flight. Target: the default pace
   reaches at least half the throughput of ``min_delay_s: 0`` with a high fixed concurrency.
2. A loaded server: its latency is its idle latency times the requests in flight (it works on one at a time).
   Target: the default pace keeps the latency it sees within 2x of its idle latency.

Both print the old fixed default (0.25 s apart, 4 per host) as the baseline (capped in pages: its rate is fixed).
A second pass of the default crawler on the unchanged fast site measures the incremental re-crawl (conditional
GETs answered 304).

3. A dynamic CMS (issue 47; corpus_pipeline_tests/crawl/cms_site.py): a few workers, pages at their own cost
   (log-normal around 90 ms, 40-400 ms), redirects, files and 404s in 3 ms mixed in, latency rising only when more
   requests than workers are in flight; crawled in sitemap mode, as the issue's WordPress was. Targets: the default
   pace reaches at least 3x the naive sequential crawler's pages/s, and keeps the server's mean latency within 1.5x
   of idle: the mean latency of the same requests sent one at a time (a replay of what the default crawl asked,
   which is also printed as "sequential GETs", the issue's curl one request after the other).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, replace
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlsplit

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import PeakMemory, ensure_python_docs, print_table, timed  # noqa: E402
from corpus_pipeline.core.registry import parse_registry  # noqa: E402
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA  # noqa: E402
from corpus_pipeline.core.warehouse import Warehouse  # noqa: E402
from corpus_pipeline.crawl.crawler import crawl_website  # noqa: E402
from corpus_pipeline.crawl.links import extract_links  # noqa: E402
from corpus_pipeline.crawl.previous import PreviousCrawl  # noqa: E402
from corpus_pipeline.crawl.settings import CrawlSettings  # noqa: E402
from corpus_pipeline_demo.server import StaticSiteHandler  # noqa: E402
from corpus_pipeline_tests.crawl.cms_site import PAGE_KINDS, CmsProfile, CmsSite, CmsStats  # noqa: E402


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default backlog of 5 refuses bursts of concurrent connections


@dataclass
class ServerStats:
    """What the server saw since its last reset."""

    requests: Counter[tuple[str, str]]  # (method, path) -> count
    bytes_sent: int
    latencies: list[float]  # seconds from a request's arrival to its headers


def _serve(root: Path, latency_s: float, loaded: bool, ports, parent_end) -> None:
    """The child process: the static site handler with latency; /__stats and /__reset report and clear counts."""
    parent_end.close()  # so that the pipe reports the parent's end, however it ends
    lock = threading.Lock()
    stats = ServerStats(Counter(), 0, [])
    in_flight = [0]

    class Handler(StaticSiteHandler):
        def do_GET(self) -> None:  # noqa: N802
            if self.path in ("/__stats", "/__reset"):
                return self._control()
            super().do_GET()

        def _control(self) -> None:
            with lock:
                body = json.dumps({"requests": [[m, p, n] for (m, p), n in stats.requests.items()],
                                   "bytes_sent": stats.bytes_sent, "latencies": stats.latencies}).encode()
                if self.path == "/__reset":
                    stats.requests.clear()
                    stats.latencies.clear()
                    stats.bytes_sent = 0
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _respond(self, with_body: bool) -> None:
            self._arrived = time.perf_counter()
            with lock:
                in_flight[0] += 1
                load = in_flight[0] if loaded else 1
            try:
                time.sleep(latency_s * load)
                with lock:
                    stats.requests[(self.command, self.path.split("?", 1)[0])] += 1
                super()._respond(with_body)
            finally:
                with lock:
                    in_flight[0] -= 1

        def end_headers(self) -> None:
            arrived = getattr(self, "_arrived", None)
            if arrived is not None:
                with lock:
                    stats.latencies.append(time.perf_counter() - arrived)
            super().end_headers()

        def send_header(self, keyword: str, value: str) -> None:
            if keyword == "Content-Length" and self.command == "GET" and hasattr(self, "_arrived"):
                with lock:
                    stats.bytes_sent += int(value)
            super().send_header(keyword, value)

    httpd = _Server(("127.0.0.1", 0), partial(Handler, root=root.resolve()))
    ports.send(httpd.server_address[1])
    threading.Thread(target=_exit_with_parent, args=(ports,), daemon=True).start()
    httpd.serve_forever()


def _exit_with_parent(ports) -> None:
    """Never outlive the benchmark, even one that crashed."""
    try:
        ports.recv()
    except EOFError:
        pass
    os._exit(0)


class CountingServer:
    """The static site with a latency per response, served by a child process as a real server would be (its
    threads do not wait for the crawler's interpreter lock), counting requests, body bytes and latencies.

    With ``loaded``, a request waits ``latency_s`` times the requests in flight when it arrives (itself included),
    as a server working on one request at a time would.
    """

    def __init__(self, root: Path, latency_s: float, loaded: bool = False) -> None:
        context = multiprocessing.get_context("fork")
        self._ports, child_end = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(root, latency_s, loaded, child_end, self._ports), daemon=True
        )
        self._port = 0

    def __enter__(self) -> CountingServer:
        self._process.start()
        self._port = self._ports.recv()
        return self

    def __exit__(self, *exc) -> None:
        self._process.terminate()
        self._process.join()
        self._ports.close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._port}"

    def stats(self) -> ServerStats:
        return self._control("/__stats")

    def reset(self) -> ServerStats:
        """Clear the counts; returns what they were."""
        return self._control("/__reset")

    def _control(self, path: str) -> ServerStats:
        data = requests.get(self.base_url + path, timeout=30).json()
        return ServerStats(Counter({(m, p): n for m, p, n in data["requests"]}), data["bytes_sent"], data["latencies"])


def naive_crawl(start: str, limit: int) -> int:
    """What the reference does: depth-first-ish, one HEAD then one GET per page, no concurrency."""
    session = requests.Session()
    seen, queue, pages = {start}, deque([start]), 0
    host = urlsplit(start).netloc
    while queue and pages < limit:
        url = queue.popleft()
        head = session.head(url, timeout=30, allow_redirects=True)
        if head.status_code != 200 or "text" not in head.headers.get("Content-Type", ""):
            continue
        response = session.get(url, timeout=30)
        pages += 1
        if "html" not in response.headers.get("Content-Type", ""):
            continue
        for link in extract_links(response.content, url).links:
            link = urldefrag(urljoin(url, link))[0]
            if urlsplit(link).netloc == host and link not in seen:
                seen.add(link)
                queue.append(link)
    return pages


@dataclass
class CrawlRun:
    """One crawl of the site: HTML pages, wall time and the server's latencies."""

    pages: int
    seconds: float
    latencies: list[float]

    @property
    def rate(self) -> float:
        return self.pages / self.seconds

    def mean_latency(self) -> float:
        return statistics.fmean(self.latencies)

    def p90_latency(self) -> float:
        return statistics.quantiles(self.latencies, n=10)[-1]


def paces(concurrency: int, baseline_pages: int) -> dict[str, CrawlSettings]:
    """The paces compared: the default, a fast fixed one and the old fixed default (capped: its rate is fixed)."""
    default = CrawlSettings()
    return {
        "default (adaptive)": default,
        f"fixed: min_delay_s 0, {concurrency} per host": replace(
            default, adaptive_pace=False, per_host_concurrency=concurrency, min_delay_s=0.0
        ),
        "old default: fixed 0.25 s, 4 per host": replace(
            default, adaptive_pace=False, per_host_concurrency=4, min_delay_s=0.25, max_pages=baseline_pages
        ),
    }


def crawl(server: CountingServer, website, settings: CrawlSettings, out=None) -> CrawlRun:
    """Crawl the served site once; rows go to ``out`` when given."""
    server.reset()
    pages = 0
    with timed() as elapsed:
        for row in crawl_website(website, settings):
            pages += row["kind"] == "html"
            if out is not None:
                out.write(row)
    return CrawlRun(pages, elapsed(), server.stats().latencies)


def idle_latency(server: CountingServer, samples: int = 20) -> float:
    """The server's mean time to headers with one request at a time."""
    server.reset()
    session = requests.Session()
    for _ in range(samples):
        session.get(server.base_url + "/index.html", timeout=30).close()
    return statistics.fmean(server.stats().latencies)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def site_entry(server: CountingServer):
    registry = {"websites": [{"name": "pydocs", "url": server.base_url + "/", "mode": "crawl", "child": "/index.html"}]}
    return parse_registry(registry).websites[0]


def fast_server(root: Path, args: argparse.Namespace, compared: dict[str, CrawlSettings]) -> None:
    """Target 1, the naive baseline and the re-crawl, on the server whose latency does not depend on load."""
    import polars as pl

    with CountingServer(root, args.latency_ms / 1000) as server, tempfile.TemporaryDirectory() as tmp:
        website = site_entry(server)
        warehouse = Warehouse(tmp)
        runs: dict[str, CrawlRun] = {}
        for name, settings in compared.items():
            if name == DEFAULT:
                with PeakMemory() as memory, warehouse.writer("raw_pages", "pydocs", RAW_PAGES_SCHEMA) as out:
                    runs[name] = crawl(server, website, settings, out)
                first = server.stats()
                first_bytes, first_requests = first.bytes_sent, dict(first.requests)
            else:
                runs[name] = crawl(server, website, settings)

        rows = pl.read_parquet(warehouse.path("raw_pages", "pydocs"), columns=["url", "outcome", "kind", "attempts"])
        requested = rows.filter(pl.col("attempts") > 0).height
        gets = sum(n for (method, _), n in first_requests.items() if method == "GET")
        duplicates = sum(n - 1 for (method, _), n in first_requests.items() if method == "GET" and n > 1)

        server.reset()
        previous = PreviousCrawl.open(warehouse.path("raw_pages", "pydocs"))
        with timed() as elapsed:
            second = list(crawl_website(website, compared[DEFAULT], previous))
        second_seconds = elapsed()
        revalidated = sum(r["outcome"] == "not_modified" for r in second if r["kind"] == "html")
        second_pages = sum(r["kind"] == "html" for r in second)

        server.reset()
        limit = 100 if args.quick else runs[DEFAULT].pages
        with timed() as elapsed:
            baseline_pages = naive_crawl(server.base_url + "/index.html", limit)
        baseline_seconds = elapsed()
        baseline_requests = sum(server.stats().requests.values())

    fast = runs[next(name for name in compared if name.startswith("fixed"))]
    table = [
        [name, run.pages, run.seconds, run.rate, run.rate / fast.rate, run.mean_latency() * 1000]
        + ([gets / max(requested, 1), duplicates, memory.peak_mib] if name == DEFAULT else ["", "", ""])
        for name, run in runs.items()
    ]
    naive_rate = baseline_pages / baseline_seconds
    table.append(["naive HEAD+GET, sequential", baseline_pages, baseline_seconds, naive_rate, naive_rate / fast.rate,
                  "", baseline_requests / max(baseline_pages, 1), "", ""])
    print_table(
        f"1. Fast server: python3.11-doc at a fixed {args.latency_ms:.0f} ms per response, whatever the load",
        ["crawler", "HTML pages", "seconds", "pages/s", "vs fixed 0 s", "mean latency ms", "requests/page",
         "duplicate GETs", "peak MiB"],
        table,
    )
    ratio = runs[DEFAULT].rate / fast.rate
    print(f"  default / naive: {runs[DEFAULT].rate / naive_rate:.1f}x")
    print(f"  target: default >= 0.5 x the throughput of min_delay_s 0 ({ratio:.2f} x): {verdict(ratio >= 0.5)}")
    print_table(
        "Second pass of the default crawler on the unchanged site (conditional GETs)",
        ["pass", "seconds", "HTML pages", "answered 304", "share 304", "bytes received", "bytes vs first pass"],
        [
            ["first", runs[DEFAULT].seconds, runs[DEFAULT].pages, 0, 0.0, first_bytes, 1.0],
            ["second", second_seconds, second_pages, revalidated, revalidated / max(second_pages, 1),
             server_bytes_second(second), server_bytes_second(second) / max(first_bytes, 1)],
        ],
    )


def loaded_server(root: Path, args: argparse.Namespace, compared: dict[str, CrawlSettings]) -> None:
    """Target 2, on the server whose latency grows with the requests in flight."""
    with CountingServer(root, args.loaded_base_ms / 1000, loaded=True) as server:
        website = site_entry(server)
        idle = idle_latency(server)
        cap = 150 if args.quick else None
        runs = {
            name: crawl(server, website, replace(settings, max_pages=cap or settings.max_pages))
            for name, settings in compared.items()
        }
    print_table(
        f"2. Loaded server: python3.11-doc at {args.loaded_base_ms:.0f} ms x requests in flight "
        f"(idle latency measured: {idle * 1000:.1f} ms)",
        ["crawler", "HTML pages", "seconds", "pages/s", "mean latency ms", "p90 latency ms", "mean / idle"],
        [
            [name, run.pages, run.seconds, run.rate, run.mean_latency() * 1000, run.p90_latency() * 1000,
             run.mean_latency() / idle]
            for name, run in runs.items()
        ],
    )
    ratio = runs[DEFAULT].mean_latency() / idle
    print(f"  target: default keeps the mean latency within 2x of idle ({ratio:.2f} x): {verdict(ratio <= 2.0)}")


def replay_sequentially(site: CmsSite, paths: list[str]) -> tuple[float, CmsStats]:
    """GET each path one after the other, redirects not followed (each hop is a path of its own): seconds taken and
    what the server saw."""
    site.reset()
    session = requests.Session()
    with timed() as elapsed:
        for path in paths:
            session.get(site.base_url + path, allow_redirects=False, timeout=30).close()
    return elapsed(), site.reset()


def dynamic_server(args: argparse.Namespace) -> None:
    """Target 3, on the dynamic CMS whose pages cost their own time and whose fast answers are mixed in."""
    profile = CmsProfile(workers=args.cms_workers, posts=60 if args.quick else args.cms_posts)
    default = CrawlSettings()
    with CmsSite(profile) as site:
        site.reset()
        with timed() as elapsed:
            rows = list(crawl_website(site.website(), default))
        seconds, seen = elapsed(), site.reset()
        pages = sum(row["kind"] == "html" for row in rows)
        replay_seconds, idle = replay_sequentially(site, seen.paths)
        limit = pages // 2 if args.quick else pages
        with timed() as elapsed:
            naive_pages = naive_crawl(site.base_url + "/", limit)
        naive_seconds, naive_seen = elapsed(), site.reset()
    rate, replay_rate, naive_rate = pages / seconds, pages / replay_seconds, naive_pages / naive_seconds
    idle_mean = idle.mean_latency()
    table = [
        ["default (adaptive)", pages, rate, rate / naive_rate, rate / replay_rate, len(seen.kinds),
         seen.mean_latency() / idle_mean, seen.mean_latency(PAGE_KINDS) / idle.mean_latency(PAGE_KINDS),
         statistics.median(seen.in_flight)],
        ["sequential GETs (the same requests)", pages, replay_rate, replay_rate / naive_rate, 1.0, len(idle.kinds),
         1.0, 1.0, statistics.median(idle.in_flight)],
        ["naive HEAD+GET, sequential", naive_pages, naive_rate, 1.0, naive_rate / replay_rate, len(naive_seen.kinds),
         "", "", statistics.median(naive_seen.in_flight)],
    ]
    kinds = ", ".join(f"{kind} {count}" for kind, count in Counter(seen.kinds).most_common())
    print_table(
        f"3. Dynamic CMS: {profile.workers} workers, {profile.posts} posts, sitemap mode (default crawl's answers: "
        f"{kinds}; idle mean latency {idle_mean * 1000:.1f} ms, pages {idle.mean_latency(PAGE_KINDS) * 1000:.1f} ms)",
        ["crawler", "HTML pages", "pages/s", "vs naive", "vs sequential GETs", "requests", "mean latency / idle",
         "pages' latency / idle", "median in flight"],
        table,
    )
    speed, latency = rate / naive_rate, seen.mean_latency() / idle_mean
    print(f"  target: default >= 3 x the naive crawler's pages/s ({speed:.2f} x): {verdict(speed >= 3.0)}")
    print(f"  target: default keeps the mean latency within 1.5x of idle ({latency:.2f} x): {verdict(latency <= 1.5)}")
    print(f"  (default / sequential GETs, the issue's curl: {rate / replay_rate:.2f} x)")


DEFAULT = "default (adaptive)"
SERVERS = ("fast", "loaded", "dynamic")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=50.0, help="fast server: latency of every response")
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight of the fast fixed pace")
    parser.add_argument("--loaded-base-ms", type=float, default=50.0, help="loaded server: latency with one request")
    parser.add_argument("--cms-workers", type=int, default=4, help="dynamic CMS: requests it works on at once")
    parser.add_argument("--cms-posts", type=int, default=120, help="dynamic CMS: posts (and as many pages)")
    parser.add_argument("--only", default=",".join(SERVERS), help=f"servers to run, comma-separated: {SERVERS}")
    parser.add_argument("--quick", action="store_true", help="cap the baselines and the loaded crawls")
    args = parser.parse_args()
    chosen = set(args.only.split(","))
    if chosen - set(SERVERS):
        parser.error(f"--only: unknown servers {sorted(chosen - set(SERVERS))}")
    compared = paces(args.concurrency, 40 if args.quick else 120)
    if chosen & {"fast", "loaded"}:
        root = ensure_python_docs()
        if "fast" in chosen:
            fast_server(root, args, compared)
        if "loaded" in chosen:
            loaded_server(root, args, compared)
    if "dynamic" in chosen:
        dynamic_server(args)


def server_bytes_second(rows: list[dict]) -> int:
    """Body bytes actually transferred in the second pass (304 answers carry none)."""
    return sum(r["bytes"] or 0 for r in rows if r["outcome"] == "fetched")


if __name__ == "__main__":
    main()
