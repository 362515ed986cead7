"""Parsing through the worker pool of per-page time budgets (``core/budget.py``) against parsing in this process.

Usage: python benchmarks/pool_bench.py [--pages N] [--rounds R] [--workers W]

The article benchmark's and wcxb-dev's first pages (N in all) go through ``parse_html_pages`` twice per round,
alternated: on W worker processes with the default page budget (as ``parsed_pages`` runs), and in this process without
a budget (the same run's baseline). Printed per mode: the median wall time, CPU seconds of the process tree (workers
included), pages per wall and per CPU second, and the peak PSS of the tree. A last line times a map of a trivial
function over 2,000 items: the pool's own cost per item.
"""

from __future__ import annotations

import argparse
import gzip
import resource
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import DATASETS, PeakMemory, print_table  # noqa: E402
from corpus_pipeline.core.budget import Budget, map_within_budget  # noqa: E402
from corpus_pipeline.core.registry import parse_registry  # noqa: E402
from corpus_pipeline.extract.page import ExtractionBudget, HtmlPage, parse_html_pages  # noqa: E402

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def pages(count: int) -> list[HtmlPage]:
    """Half from the article benchmark, half from wcxb-dev, in file order."""
    articles = sorted((DATASETS / "article-extraction-benchmark" / "html").glob("*.html.gz"))[: count // 2]
    wcxb = sorted((DATASETS / "wcxb-dev" / "html").glob("*.html.gz"))[: count - len(articles)]
    return [HtmlPage(f"https://example.org/{path.name}", gzip.decompress(path.read_bytes()), "text/html", NOW)
            for path in articles + wcxb]


def tree_cpu_s() -> float:
    """CPU seconds of this process and of its reaped children (the pool's workers, once stopped)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed_parse(batch: list[HtmlPage], workers: int) -> tuple[float, float, float]:
    """(wall s, CPU s, peak PSS MiB) of one ``parse_html_pages`` over ``batch``."""
    website = parse_registry({"websites": [{"name": "bench", "url": "https://example.org/"}]}).websites[0]
    budget = ExtractionBudget() if workers > 1 else ExtractionBudget(page_time_s=None)
    cpu, wall = tree_cpu_s(), time.perf_counter()
    with PeakMemory(interval_s=0.2) as memory:
        records = list(parse_html_pages(batch, website, None, workers=workers, budget=budget))
    assert len(records) == len(batch) and not any(r.get("error") for r in records)
    return time.perf_counter() - wall, tree_cpu_s() - cpu, memory.peak_mib


def per_item_ms(workers: int, items: int = 2000) -> float:
    """Wall milliseconds per item of a budgeted map whose function does nothing."""
    started = time.perf_counter()
    assert sum(map_within_budget(abs, range(items), fallback=None, budget=Budget(item_s=30), workers=workers)) > 0
    return (time.perf_counter() - started) * 1000 / items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    batch = pages(args.pages)
    if not batch:
        raise SystemExit(f"no pages under {DATASETS}")
    runs: dict[str, list[tuple[float, float, float]]] = {"pool": [], "in-process": []}
    for _ in range(args.rounds):
        runs["pool"].append(timed_parse(batch, args.workers))
        runs["in-process"].append(timed_parse(batch, 1))
    rows = []
    for mode, measured in runs.items():
        wall, cpu = statistics.median(m[0] for m in measured), statistics.median(m[1] for m in measured)
        rows.append([mode, wall, cpu, len(batch) / wall, len(batch) / cpu, max(m[2] for m in measured)])
    print_table(f"{len(batch)} pages, {args.workers} workers, median of {args.rounds} rounds",
                ["mode", "wall s", "CPU s", "pages/s", "pages/CPU s", "peak PSS MiB"], rows)
    print(f"pool cost per item (2,000 trivial items, {args.workers} workers): {per_item_ms(args.workers):.3f} ms")


if __name__ == "__main__":
    main()
