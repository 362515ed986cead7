"""Crawl throughput: our crawler vs a naive sequential HEAD+GET crawler, on a real site served locally.

Usage: python benchmarks/crawl_bench.py [--latency-ms 50] [--concurrency 8] [--quick]

The site is Debian's python3.11-doc HTML (about 530 pages, dense links and #anchors), served
on 127.0.0.1 with a fixed delay per response. A second pass of our crawler on the unchanged
site measures the incremental re-crawl (conditional GETs answered 304).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from collections import Counter, deque
from dataclasses import replace
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
from corpus_pipeline.demo.server import StaticSiteHandler  # noqa: E402


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default backlog of 5 refuses bursts of concurrent connections


class CountingServer:
    """The static site handler, with latency, counting requests per (method, path) and body bytes."""

    def __init__(self, root: Path, latency_s: float) -> None:
        self.requests: Counter[tuple[str, str]] = Counter()
        self.bytes_sent = 0
        lock = threading.Lock()
        server = self

        class Handler(StaticSiteHandler):
            def _respond(self, with_body: bool) -> None:
                time.sleep(latency_s)
                with lock:
                    server.requests[(self.command, self.path.split("?", 1)[0])] += 1
                super()._respond(with_body)

            def send_header(self, keyword: str, value: str) -> None:
                if keyword == "Content-Length" and self.command == "GET":
                    with lock:
                        server.bytes_sent += int(value)
                super().send_header(keyword, value)

        self.httpd = _Server(("127.0.0.1", 0), partial(Handler, root=root.resolve()))

    def __enter__(self) -> CountingServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def reset(self) -> None:
        self.requests.clear()
        self.bytes_sent = 0


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="cap the baseline at 100 pages")
    args = parser.parse_args()
    root = ensure_python_docs()
    latency = args.latency_ms / 1000
    settings = replace(CrawlSettings(), per_host_concurrency=args.concurrency, min_delay_s=0.0)

    with CountingServer(root, latency) as server, tempfile.TemporaryDirectory() as tmp:
        website = parse_registry({"websites": [{"name": "pydocs", "url": server.base_url + "/", "mode": "crawl", "child": "/index.html"}]}).websites[0]
        warehouse = Warehouse(tmp)
        with PeakMemory() as memory, timed() as elapsed:
            with warehouse.writer("raw_pages", "pydocs", RAW_PAGES_SCHEMA) as out:
                for row in crawl_website(website, settings):
                    out.write(row)
        first_seconds, first_bytes = elapsed(), server.bytes_sent
        first_requests = dict(server.requests)
        import polars as pl

        rows = pl.read_parquet(warehouse.path("raw_pages", "pydocs"), columns=["url", "outcome", "kind", "attempts"])
        pages = rows.filter(pl.col("kind") == "html").height
        requested = rows.filter(pl.col("attempts") > 0).height
        gets = sum(n for (method, _), n in first_requests.items() if method == "GET")
        duplicates = sum(n - 1 for (method, _), n in first_requests.items() if method == "GET" and n > 1)

        server.reset()
        previous = PreviousCrawl.open(warehouse.path("raw_pages", "pydocs"))
        with timed() as elapsed:
            second = list(crawl_website(website, settings, previous))
        second_seconds = elapsed()
        revalidated = sum(r["outcome"] == "not_modified" for r in second if r["kind"] == "html")
        second_pages = sum(r["kind"] == "html" for r in second)

        server.reset()
        limit = 100 if args.quick else pages
        with timed() as elapsed:
            baseline_pages = naive_crawl(server.base_url + "/index.html", limit)
        baseline_seconds = elapsed()
        baseline_requests = sum(server.requests.values())

    ours_rate, base_rate = pages / first_seconds, baseline_pages / baseline_seconds
    print_table(
        f"Crawl of python3.11-doc ({pages} HTML pages) at {args.latency_ms:.0f} ms latency, {args.concurrency} concurrent requests",
        ["crawler", "pages", "seconds", "pages/s", "requests/page", "duplicate GETs", "peak RSS MiB"],
        [
            ["ours", pages, first_seconds, ours_rate, gets / max(requested, 1), duplicates, memory.peak_mib],
            ["naive HEAD+GET, sequential", baseline_pages, baseline_seconds, base_rate, baseline_requests / max(baseline_pages, 1), "", ""],
            ["ratio ours / naive", "", "", ours_rate / base_rate, "", "", ""],
        ],
    )
    print_table(
        "Second pass on the unchanged site (conditional GETs)",
        ["pass", "seconds", "HTML pages", "answered 304", "share 304", "bytes received", "bytes vs first pass"],
        [
            ["first", first_seconds, pages, 0, 0.0, first_bytes, 1.0],
            ["second", second_seconds, second_pages, revalidated, revalidated / max(second_pages, 1), server_bytes_second(second), server_bytes_second(second) / max(first_bytes, 1)],
        ],
    )


def server_bytes_second(rows: list[dict]) -> int:
    """Body bytes actually transferred in the second pass (304 answers carry none)."""
    return sum(r["bytes"] or 0 for r in rows if r["outcome"] == "fetched")


if __name__ == "__main__":
    main()
