"""Near-duplicate detection: our MinHash/LSH + verification vs the reference's 500-neighbour window.

Usage: python benchmarks/dedup_bench.py [--sizes 2000 10000 50000] [--quick] [--cross-websites 10000 ... 500000]
       [--unfiltered-up-to 50000]

A corpus is synthesized from real English sentences (Python documentation): documents of
2-5 KB with a site header and footer. Variants of random originals are injected at random
URLs (far apart in URL order): exact copies, word edits of 1/3/5/10 %, swapped boilerplate,
shuffled paragraphs, shuffle plus 3 % edits, 10 % truncation. Hard negatives share half their
paragraphs with an original and must stay apart. Scores are on pairs.

The cross-website case spreads such a corpus over 20 websites at random, so most duplicate pairs join two
websites (syndication, mirrors), and runs the global_corpus merge on all of it against the per-website corpus
stage run website by website on the same records, in the same run: wall and CPU seconds of the process tree, peak
memory, and the load average next to them. Up to --unfiltered-up-to records, global_corpus also runs with every
band-sharing pair verified (min_estimated_jaccard 0, the code before the filter), and the two outputs are compared.
A last table puts global_corpus's CPU seconds per 1,000 records side by side across sizes: flat means linear.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import random
import re
import resource
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import combinations
from pathlib import Path

import polars as pl
import psutil
from rapidfuzz import fuzz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import PeakMemory, print_table, python_doc_paragraphs, timed  # noqa: E402
from corpus_pipeline.core.schema import CANONICAL_URL_GROUPS_SCHEMA  # noqa: E402
from corpus_pipeline.dedup.corpus import deduplicate  # noqa: E402
from corpus_pipeline.lm.global_dedup import (  # noqa: E402
    MIN_ESTIMATED_JACCARD,
    deduplicate_across_websites,
    kept_records,
)

WINDOW = 500
CROSS_WEBSITES = 20  # websites the cross-website corpus is spread over
THRESHOLD = 0.9
HEADERS = [
    "Riverside Docs | Home | Guides | Reference | Download | Community",
    "Python Notes — tutorials, how-tos and references for every release",
    "Developer Portal · Search · Sign in · Products · Pricing · Support",
]
FOOTERS = [
    "Copyright 2026 Riverside Docs. All rights reserved. Privacy policy. Terms of use. Contact.",
    "Built with care by volunteers. Found a bug? Report it on the tracker. Last updated yesterday.",
    "This site uses cookies to improve your experience. Read our cookie policy for details.",
]
VARIANTS = ["exact", "edit1", "edit3", "edit5", "edit10", "boilerplate", "shuffle", "shuffle+edit3", "truncate10"]


def sentences() -> list[str]:
    pool = []
    for paragraph in python_doc_paragraphs():
        pool.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+", paragraph) if len(s.split()) >= 6)
    return pool


def synthesize(size: int, pool: list[str], rng: random.Random):
    """Documents (url, text) and the truth clusters of duplicates, plus hard-negative pairs."""
    vocabulary = sorted({w for s in pool[:5000] for w in s.split()})  # sorted: runs must not depend on hash seeds
    n_variants = int(size * 0.15)
    n_negatives = int(size * 0.05)
    n_originals = size - n_variants - n_negatives

    def paragraph() -> str:
        return " ".join(rng.sample(pool, 3))

    def document(body: list[str], header: int, footer: int) -> str:
        return "\n\n".join([HEADERS[header], *body, FOOTERS[footer]])

    # Each original is kept as its document text only (its body is the text between header and footer): a body
    # list besides the text would double the synthesis's memory (500k documents: ~2 GB of text).
    originals: list[tuple[str, int, int]] = []
    for _ in range(n_originals):
        body, length = [], 0
        target = rng.randint(2000, 5000)
        while length < target:
            body.append(paragraph())
            length += len(body[-1])
        header, footer = rng.randrange(3), rng.randrange(3)
        originals.append((document(body, header, footer), header, footer))

    def original(index: int) -> tuple[list[str], int, int]:
        text, header, footer = originals[index]
        return text.split("\n\n")[1:-1], header, footer

    def edit(body: list[str], share: float) -> list[str]:
        words = "\n".join(body).split(" ")
        for index in rng.sample(range(len(words)), max(1, int(len(words) * share))):
            words[index] = rng.choice(vocabulary)
        return " ".join(words).split("\n")

    docs: list[tuple[str, str]] = []
    cluster_of: dict[str, int] = {}
    for index, (text, _, _) in enumerate(originals):
        url = f"https://docs.example/{rng.getrandbits(64):016x}"
        docs.append((url, text))
        cluster_of[url] = index
    for position in range(n_variants):
        kind = VARIANTS[position % len(VARIANTS)]
        source = rng.randrange(n_originals)
        body, header, footer = original(source)
        if kind.startswith("edit"):
            body = edit(body, int(kind[4:]) / 100)
        elif kind == "boilerplate":
            header, footer = (header + 1) % 3, (footer + 1) % 3
        elif kind == "shuffle":
            body = rng.sample(body, len(body))
        elif kind == "shuffle+edit3":
            body = edit(rng.sample(body, len(body)), 0.03)
        elif kind == "truncate10":
            text = "\n\n".join(body)
            body = text[: int(len(text) * 0.9)].rsplit(" ", 1)[0].split("\n\n")
        url = f"https://docs.example/{rng.getrandbits(64):016x}"
        docs.append((url, document(body, header, footer)))
        cluster_of[url] = source
    negatives = []
    for _ in range(n_negatives):
        source = rng.randrange(n_originals)
        body, header, footer = original(source)
        half = body[: len(body) // 2] + [paragraph() for _ in range(len(body) - len(body) // 2)]
        url = f"https://docs.example/{rng.getrandbits(64):016x}"
        docs.append((url, document(half, header, footer)))
        negatives.append((docs[source][0], url))
    clusters: dict[int, list[str]] = {}
    for url, cluster in cluster_of.items():
        clusters.setdefault(cluster, []).append(url)
    truth = {frozenset(p) for members in clusters.values() for p in combinations(members, 2)}
    return docs, truth, negatives


def as_groups(docs: list[tuple[str, str]]) -> pl.DataFrame:
    now = datetime.now(UTC)
    rows = [
        {"website": "bench", "url": url, "canonical_url": url, "title": url, "content": text, "h1": [], "h2": [],
         "lang": "en", "kind": "html", "fetched_at": now, "alternates": [], "candidate_urls": [url], "candidates": 1}
        for url, text in docs
    ]
    return pl.DataFrame(rows, schema=pl.from_arrow(CANONICAL_URL_GROUPS_SCHEMA.empty_table()).schema)


def ours(docs, workers: int):
    with PeakMemory() as memory, timed() as elapsed:
        corpus, _ = deduplicate(as_groups(docs), threshold=THRESHOLD, workers=workers)
    predicted = set()
    for kept, absorbed in zip(corpus["url"], corpus["absorbed"].to_list()):
        members = [kept] + [a["url"] for a in absorbed or [] if a["reason"] != "same_url"]
        predicted |= {frozenset(p) for p in combinations(members, 2)}
    return predicted, elapsed(), memory.peak_mib


def normalized(text: str) -> str:
    return " ".join(text.lower().split())


def window_scheme(docs, truth, negatives, budget_s: float):
    """The reference: URL order, each document against the next 500, ratio > 0.9.

    Its pairs are exactly the truth/negative pairs within 500 ranks whose ratio passes, so recall
    and precision are computed on those; its time is measured on a sample and extrapolated.
    """
    ordered = sorted(docs)
    rank = {url: i for i, (url, _) in enumerate(ordered)}
    text = {url: normalized(t) for url, t in docs}
    found = {p for p in truth if abs(rank[min(p)] - rank[max(p)]) <= WINDOW and fuzz.ratio(*(text[u] for u in p)) / 100 > THRESHOLD}
    false = {frozenset(p) for p in negatives if abs(rank[p[0]] - rank[p[1]]) <= WINDOW and fuzz.ratio(text[p[0]], text[p[1]]) / 100 > THRESHOLD}
    comparisons = sum(min(WINDOW, len(ordered) - 1 - i) for i in range(len(ordered)))
    done = 0
    with timed() as elapsed:
        for i in range(len(ordered)):
            a = text[ordered[i][0]]
            for j in range(i + 1, min(i + 1 + WINDOW, len(ordered))):
                fuzz.ratio(a, text[ordered[j][0]])
                done += 1
            if elapsed() > budget_s:
                break
    seconds = elapsed() * comparisons / max(done, 1)
    return found, false, seconds, done < comparisons


def spread_over_websites(docs: list[tuple[str, str]], rng: random.Random) -> pl.DataFrame:
    """The documents as kept corpus_quality records of CROSS_WEBSITES websites, each document on a random one."""
    websites = [f"site{rng.randrange(CROSS_WEBSITES):02d}" for _ in docs]
    scored = pl.DataFrame(
        {
            "website": websites,
            "url": [url for url, _ in docs],
            "canonical_url": [url for url, _ in docs],
            "content": [text for _, text in docs],
            "chars": [len(text) for _, text in docs],
            "keep": [True] * len(docs),
        },
        schema_overrides={"chars": pl.Int32},
    )
    return kept_records([scored])


@dataclass
class Cost:
    """What one method cost: wall and CPU seconds of the process tree (this process and its reaped workers), peak
    PSS and RSS of the tree, and the 1-minute load average at the end."""

    seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_pss_mib: float = 0.0
    peak_rss_mib: float = 0.0
    load: float = 0.0

    def add(self, other: Cost) -> None:
        """Sums of times, maxima of memory: the cost of runs one after the other."""
        self.seconds += other.seconds
        self.cpu_seconds += other.cpu_seconds
        self.peak_pss_mib = max(self.peak_pss_mib, other.peak_pss_mib)
        self.peak_rss_mib = max(self.peak_rss_mib, other.peak_rss_mib)
        self.load = max(self.load, other.load)


def _tree_cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _threads_cpu_seconds(threads: list[threading.Thread]) -> float:
    ids = {thread.native_id for thread in threads}
    return sum(t.user_time + t.system_time for t in psutil.Process().threads() if t.id in ids)


@contextmanager
def measured() -> Iterator[Cost]:
    """The cost of the block, filled in when it ends (the workers of a pool are reaped when the pool closes).

    The memory sampler's own CPU is left out: reading a 6 GB process's memory map five times a second costs ~20 % of
    a core, which would grow the CPU per record of big runs with the measurement, not the work."""
    cost = Cost()
    cpu = _tree_cpu_seconds()
    before = set(threading.enumerate())
    with PeakMemory() as memory, timed() as elapsed:
        yield cost
        sampler_cpu = _threads_cpu_seconds([t for t in threading.enumerate() if t not in before])
    cost.seconds, cost.cpu_seconds = elapsed(), _tree_cpu_seconds() - cpu - sampler_cpu
    cost.peak_pss_mib, cost.peak_rss_mib, cost.load = memory.peak_mib, memory.peak_rss_mib, os.getloadavg()[0]


def global_merge(records: pl.DataFrame, workers: int, min_estimated_jaccard: float = MIN_ESTIMATED_JACCARD):
    with measured() as cost:
        merged, _ = deduplicate_across_websites(
            records, threshold=THRESHOLD, workers=workers, min_estimated_jaccard=min_estimated_jaccard
        )
    predicted = set()
    for kept, sources in zip(merged["url"], merged["merged_from"].to_list()):
        predicted |= {frozenset(p) for p in combinations([kept] + [s["url"] for s in sources or []], 2)}
    return predicted, cost, merged


def per_website_merges(records: pl.DataFrame, workers: int):
    """The per-website corpus stage, website after website: what the pipeline did before global_corpus."""
    predicted, total = set(), Cost()
    for _, website in records.group_by("website"):
        groups = as_groups(list(zip(website["url"], website["content"])))  # built outside the timing, like records
        with measured() as cost:
            corpus, _ = deduplicate(groups, threshold=THRESHOLD, workers=workers)
        total.add(cost)
        for kept, absorbed in zip(corpus["url"], corpus["absorbed"].to_list()):
            members = [kept] + [a["url"] for a in absorbed or [] if a["reason"] != "same_url"]
            predicted |= {frozenset(p) for p in combinations(members, 2)}
    return predicted, total, None


COST_HEADER = ["wall s", "CPU s", "CPU ms / record", "peak PSS MiB", "peak RSS MiB", "load (1 min)"]


def cost_cells(size: int, cost: Cost) -> list[object]:
    return [cost.seconds, cost.cpu_seconds, 1000 * cost.cpu_seconds / size, cost.peak_pss_mib, cost.peak_rss_mib, cost.load]


def release_freed_memory() -> None:
    """Give the heap that freed Python objects leave behind back to the system (glibc keeps it otherwise), so that
    a method's peak memory is not the synthesis's or the previous method's garbage (500k documents: ~2 GB)."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the figures then include the garbage
        pass


def cross_website_case(size: int, pool: list[str], workers: int, unfiltered: bool, baseline: bool = True) -> Cost:
    """global_corpus against the per-website stage (when ``baseline``) and, when ``unfiltered``, against itself
    verifying every band-sharing pair, on ``size`` synthesized records; returns global_corpus's cost."""
    docs, truth, negatives = synthesize(size, pool, random.Random(size))
    release_freed_memory()
    records = spread_over_websites(docs, random.Random(size + 1))
    website_of = dict(zip(records["url"], records["website"]))
    del docs
    crossing = {pair for pair in truth if len({website_of[url] for url in pair}) == 2}
    del website_of
    release_freed_memory()
    methods: list[tuple[str, Callable]] = [("global_corpus (all websites at once)", global_merge)]
    if unfiltered:
        methods.append(("global_corpus, every band-sharing pair verified", lambda r, w: global_merge(r, w, 0.0)))
    if baseline:
        methods.append(("corpus per website (baseline)", per_website_merges))
    rows, costs, outputs = [], [], []
    for method, run in methods:
        predicted, cost, merged = run(records, workers)
        recall, precision = score(predicted, truth)
        cross_recall, _ = score(predicted & crossing, crossing)
        rows.append([size, method, recall, cross_recall, precision, *cost_cells(size, cost)])
        costs.append(cost)
        outputs.append(merged)
        del predicted, merged
        release_freed_memory()
        # Printed at once: a long run that is stopped later still leaves what it measured.
        print(f"measured: {rows[-1]}", flush=True)
    if baseline:
        reference = costs[-1]
        rows.append([size, "global / per-website", "", "", "", costs[0].seconds / max(reference.seconds, 1e-9),
                     costs[0].cpu_seconds / max(reference.cpu_seconds, 1e-9), "",
                     costs[0].peak_pss_mib / max(reference.peak_pss_mib, 1e-9), "", ""])
    print_table(
        f"{size} documents on {CROSS_WEBSITES} websites, {len(truth)} duplicate pairs ({len(crossing)} across websites), "
        f"{len(negatives)} hard negatives",
        ["docs", "method", "pair recall", "cross-website recall", "pair precision", *COST_HEADER],
        rows,
    )
    if unfiltered:
        compare_outputs(outputs[0], outputs[1])
    return costs[0]


def compare_outputs(filtered: pl.DataFrame, unfiltered: pl.DataFrame) -> None:
    """Whether the filter changed global_corpus's output, and where."""
    if filtered.equals(unfiltered):
        print("  global_corpus output with and without the filter: identical (same frame)")
        return
    kept_a, kept_b = set(filtered["url"]), set(unfiltered["url"])
    merges = {url: sorted(s["url"] for s in sources) for url, sources in zip(filtered["url"], filtered["merged_from"].to_list())}
    other = {url: sorted(s["url"] for s in sources) for url, sources in zip(unfiltered["url"], unfiltered["merged_from"].to_list())}
    changed = sum(1 for url in kept_a & kept_b if merges[url] != other[url])
    print(f"  global_corpus output with and without the filter differs: {len(kept_a - kept_b)} records kept only with "
          f"it, {len(kept_b - kept_a)} only without, {changed} kept by both with other merges")


def linearity(costs: dict[int, Cost]) -> None:
    base = min(costs)
    rows = [[size, *cost_cells(size, cost), (cost.cpu_seconds / size) / (costs[base].cpu_seconds / base)]
            for size, cost in sorted(costs.items())]
    print_table(
        f"global_corpus's cost by size (CPU per record relative to {base} records: 1.0 is linear)",
        ["docs", *COST_HEADER, "CPU per record vs smallest"],
        rows,
    )


def score(predicted: set, truth: set) -> tuple[float, float]:
    hits = len(predicted & truth)
    return hits / max(len(truth), 1), hits / max(len(predicted), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000, 10000, 50000])
    parser.add_argument("--quick", action="store_true", help="2,000 documents only")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--window-budget", type=float, default=60.0, help="seconds of measured window scheme per size")
    parser.add_argument(
        "--cross-websites", type=int, nargs="*", default=[10_000, 50_000, 100_000, 200_000, 500_000],
        help="sizes of the cross-website case (global_corpus vs the per-website stage); none to skip",
    )
    parser.add_argument(
        "--baseline-sizes", type=int, nargs="*",
        help="cross-website sizes at which the per-website stage runs too (default: every size)",
    )
    parser.add_argument(
        "--unfiltered-up-to", type=int, default=50_000,
        help="up to this size, global_corpus also runs verifying every band-sharing pair (the code before the filter)",
    )
    args = parser.parse_args()
    if args.quick:
        args.cross_websites = [2000]
    sizes = [2000] if args.quick else args.sizes
    pool = sentences()
    print(f"{len(pool)} real sentences from the Python documentation")
    rows = []
    for size in sizes:
        docs, truth, negatives = synthesize(size, pool, random.Random(size))
        predicted, seconds, peak = ours(docs, args.workers)
        recall, precision = score(predicted, truth)
        found, false, window_seconds, extrapolated = window_scheme(docs, truth, negatives, args.window_budget)
        w_recall, w_precision = len(found) / max(len(truth), 1), len(found) / max(len(found) + len(false), 1)
        rows.append([size, "ours (MinHash/LSH + ratio)", recall, precision, seconds, peak])
        rows.append([size, "reference window 500" + (" (time extrapolated)" if extrapolated else ""), w_recall, w_precision, window_seconds, float("nan")])
        rows.append([size, "speed-up", "", "", window_seconds / max(seconds, 1e-9), ""])
        print_table(f"{size} documents, {len(truth)} duplicate pairs, {len(negatives)} hard negatives", ["docs", "method", "pair recall", "pair precision", "seconds", "peak PSS MiB"], rows[-3:])
    print_table("Summary", ["docs", "method", "pair recall", "pair precision", "seconds", "peak PSS MiB"], rows)
    costs = {}
    for size in args.cross_websites:
        baseline = args.baseline_sizes is None or size in args.baseline_sizes
        costs[size] = cross_website_case(size, pool, args.workers, size <= args.unfiltered_up_to, baseline)
        if len(costs) > 1:
            linearity(costs)


if __name__ == "__main__":
    main()
