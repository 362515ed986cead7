"""Sitemap fan-out: peak memory and time of a crawl of a huge sitemap index with a small max_pages.

Usage: python benchmarks/sitemap_bench.py [--children 8] [--entries 600000] [--max-pages 20]

Issue 19's case: an index of 8 gzip sitemaps of 600,000 URLs each, crawled with max_pages 20
(4.0 GB peak and 600k rows before the sitemaps were streamed). The baseline is the same index
with a single child sitemap, measured in the same run. Each crawl runs in its own process so
that its peak RSS is its own; the sitemaps are served from disk by this process.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import threading
import time
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import max_rss_mib, print_table  # noqa: E402


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args) -> None:
        return


def write_index(root: Path, base_url: str, children: int, entries: int, name: str) -> str:
    """An index of ``children`` gzip url sets of ``entries`` URLs each; returns the index path."""
    folder = root / name
    folder.mkdir()
    locs = []
    for child in range(children):
        path = folder / f"child{child}.xml.gz"
        with gzip.open(path, "wt", compresslevel=1) as out:
            out.write('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
            for start in range(0, entries, 10_000):
                out.write("".join(f"<url><loc>{base_url}/{name}/c{child}/page-{i:07d}.html</loc></url>\n"
                                  for i in range(start, min(start + 10_000, entries))))
            out.write("</urlset>\n")
        locs.append(f"{base_url}/{name}/{path.name}")
    index = folder / "sitemap.xml"
    index.write_text('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                     + "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs) + "</sitemapindex>")
    return f"/{name}/sitemap.xml"


def crawl_in_child(base_url: str, sitemap: str, max_pages: int) -> dict:
    command = [sys.executable, __file__, "--child", base_url, sitemap, str(max_pages)]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def child_crawl(base_url: str, sitemap: str, max_pages: int) -> None:
    """Runs in the child process: crawl, then print rows, seconds and peak RSS as JSON."""
    from corpus_pipeline.core.registry import parse_registry
    from corpus_pipeline.crawl.crawler import crawl_website
    from corpus_pipeline.crawl.settings import CrawlSettings

    website = parse_registry({"websites": [
        {"name": "bench", "url": base_url + "/", "sitemap": sitemap, "max_pages": max_pages, "internal_links": "ignore"}
    ]}).websites[0]
    started = time.perf_counter()
    rows = sum(1 for _ in crawl_website(website, CrawlSettings(min_delay_s=0.0)))
    print(json.dumps({"rows": rows, "seconds": time.perf_counter() - started, "peak_rss_mib": max_rss_mib()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=8)
    parser.add_argument("--entries", type=int, default=600_000)
    parser.add_argument("--max-pages", type=int, default=20)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child_crawl(args.child[0], args.child[1], int(args.child[2]))
        return
    with tempfile.TemporaryDirectory(prefix="sitemap_bench_") as tmp:
        root = Path(tmp)
        server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base_url = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            started = time.perf_counter()
            baseline = write_index(root, base_url, 1, args.entries, "baseline")
            fanout = write_index(root, base_url, args.children, args.entries, "fanout")
            print(f"wrote {args.children + 1} sitemaps of {args.entries:,} URLs in {time.perf_counter() - started:.1f} s",
                  flush=True)
            measured = {
                f"1 x {args.entries:,} (baseline)": crawl_in_child(base_url, baseline, args.max_pages),
                f"{args.children} x {args.entries:,}": crawl_in_child(base_url, fanout, args.max_pages),
            }
        finally:
            server.shutdown()
            server.server_close()
    base = measured[f"1 x {args.entries:,} (baseline)"]
    print_table(
        f"Sitemap index crawl, max_pages {args.max_pages} (peak RSS of the crawling process)",
        ["index", "rows", "peak RSS MiB", "seconds", "RSS / baseline", "time / baseline"],
        [[name, m["rows"], m["peak_rss_mib"], m["seconds"], m["peak_rss_mib"] / base["peak_rss_mib"],
          m["seconds"] / base["seconds"]] for name, m in measured.items()],
    )


if __name__ == "__main__":
    main()
