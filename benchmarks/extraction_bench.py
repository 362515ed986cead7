"""Main-text extraction quality and speed: ours vs trafilatura 2.3.1, on public benchmarks.

Usage: python benchmarks/extraction_bench.py [--quick] [--limit N] [--ablation] [--workers N] [--write-split]

- article-extraction-benchmark (181 news pages): word 4-gram precision / recall / F1 (its metric).
- wcxb-dev (1,497 pages of 7 types): mean per-page word-bag F1 (its metric, including its rule for the 21 pages
  whose truth is empty), per page type, on its tuning and its validation part (split by website, see
  ``wcxb_split.py``: tune on the tuning part only; a change lands when it gains on validation);
  pages and mean F1 per extraction path (the records' ``extraction`` column);
  title and publish-date accuracy (normalized exact match).
- --ablation: each extraction rule switched off in turn (``ABLATIONS``, through ExtractionSettings), its effect on
  both parts of wcxb-dev and on the article benchmark, against all rules on.
- python3.11-doc (a real multi-page website; truth = text of div.body): with and without the
  website's learned boilerplate model, markup unset and markup="body".
- Pages per second per core (median of interleaved rounds, after a warm-up pass).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import trafilatura
from lxml import html

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import DATASETS as SHARED_DATASETS  # noqa: E402
from benchmarks.common import PYTHON_DOCS, WORD, bag_f1, print_table, python_doc_pages  # noqa: E402
from benchmarks.wcxb_split import TUNING, VALIDATION, read_split, website_of, write_split  # noqa: E402
from corpus_pipeline.core.registry import parse_registry  # noqa: E402
from corpus_pipeline.extract.boilerplate import learn_boilerplate  # noqa: E402
from corpus_pipeline.extract.page import HtmlPage, parse_html_page  # noqa: E402
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings  # noqa: E402

# common.py finds the datasets next to the checkout (/work/main -> /work/shared); a worktree elsewhere names them.
DATASETS = Path(os.environ.get("CORPUS_DATASETS", SHARED_DATASETS))
NOW = datetime.now(UTC)
SPEED_ROUNDS = 3
PARTS = (TUNING, VALIDATION)
# Each rule switched off: a switch turned off, or a guard's threshold set where the guard never fires.
ABLATIONS: dict[str, dict[str, object]] = {
    "fast mode first (full mode always)": {"fast_trafilatura_first": False},
    "fast reading far longer than the second opinion's redone": {"max_fast_growth": float("inf")},
    "precision mode on articles": {"precision_on_articles": False},
    "article fill-in when default fails": {"max_failed_share": 0.0},
    "second opinion merge": {"second_opinion_merge": False},
    "merge: added lines must be text": {"min_words_per_added_line": 0.0},
    "merge: product adds prose only": {"min_prose_words_per_line": DEFAULT_SETTINGS.min_words_per_added_line},
    "card grid added": {"card_grids": False},
    "grid: reads as records": {"min_grid_words_per_line": 0.0},
    "grid: many short shop records": {"min_short_records": 10**9},
    "grid: other columns of the grid": {"grid_column_levels": 0},
    "grid on articles: article's own sections": {"min_read_in_grid": 0.0, "max_read_in_one_card": 1.01},
    "page chrome is no document": {"max_chrome_words": 0},
    "reader comments removed": {"comments_removed": False},
    "consent banners removed": {"consent_banners_removed": False},
    "dropped headings restored": {"headings_restored": False},
    "headline (the title's heading) left out": {"headline_left_out": False},
    "header lines above the headline dropped": {"max_header_line_words": 0},
    "degenerate lines dropped": {"min_degenerate_line_words": 10**9},
    "article bylines and author notes dropped": {"metadata_edge_lines": 0},
    "article pointers at other stories dropped": {"story_pointers_removed": False},
    "line arbiter (its missing lines put back at 0.75)": {"min_arbiter_probability": 2.0},
}


def website(**options):
    return parse_registry({"websites": [{"name": "bench", "url": "https://example.org/", **options}]}).websites[0]


def ours(raw: bytes, url: str, site=None, boilerplate=None, settings: ExtractionSettings = DEFAULT_SETTINGS) -> dict:
    return parse_html_page(HtmlPage(url, raw, "text/html", NOW), site or website(), boilerplate, settings=settings)


def traf(raw: bytes, url: str, **options) -> str:
    return trafilatura.extract(raw.decode("utf-8", "replace"), url=url, include_comments=False, **options) or ""


# -- metrics ----------------------------------------------------------------------------------


def shingles(text: str) -> Counter:
    tokens = WORD.findall(text or "")
    if not tokens:
        return Counter()
    if len(tokens) < 4:
        return Counter([tuple(tokens)])
    return Counter(tuple(tokens[i : i + 4]) for i in range(len(tokens) - 3))


def aeb_scores(predictions: dict[str, str], truth: dict[str, str]) -> tuple[float, float, float]:
    precisions, recalls = [], []
    for key, expected in truth.items():
        predicted, reference = shingles(predictions.get(key, "")), shingles(expected)
        tp = sum((predicted & reference).values())
        if predicted:
            precisions.append(tp / sum(predicted.values()))
        if reference:
            recalls.append(tp / sum(reference.values()))
    p, r = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def wcxb_f1(predicted: str, expected: str) -> float:
    """WCXB's per-page score (its evaluate.py): word-bag F1, except that a page whose truth holds no words scores 1
    when nothing was extracted from it either, and 0 otherwise."""
    if not WORD.search(expected or ""):
        return 0.0 if WORD.search(predicted or "") else 1.0
    return bag_f1(predicted, expected)


def normalized(text: str | None) -> str:
    return " ".join(WORD.findall((text or "").lower()))


# -- datasets ---------------------------------------------------------------------------------


def article_benchmark(limit: int | None):
    root = DATASETS / "article-extraction-benchmark"
    truth = json.loads((root / "ground-truth.json").read_text())
    items = sorted(truth.items())[:limit]
    return [(key, gzip.decompress((root / "html" / f"{key}.html.gz").read_bytes()), value["url"], value["articleBody"]) for key, value in items]


def wcxb(limit: int | None):
    root = DATASETS / "wcxb-dev"
    pages = []
    for path in sorted((root / "ground-truth").glob("*.json"))[:limit]:
        meta = json.loads(path.read_text())
        truth = meta["ground_truth"]
        internal = meta["_internal"]
        page_type = internal["page_type"]["primary"] if isinstance(internal, dict) else "unknown"
        raw = gzip.decompress((root / "html" / f"{path.stem}.html.gz").read_bytes())
        pages.append((path.stem, raw, meta.get("url") or "https://example.org/", truth, page_type))
    return pages


def run_articles(limit):
    pages = article_benchmark(limit)
    truth = {key: body for key, _, _, body in pages}
    methods = {
        "ours": lambda raw, url: ours(raw, url)["content"],
        "trafilatura": lambda raw, url: traf(raw, url),
        "trafilatura favor_precision": lambda raw, url: traf(raw, url, favor_precision=True),
    }
    # Quality from a first pass, which also warms every method up (lazy imports, model loads, regex caches
    # would otherwise be charged to whichever method runs first). Speed: median of interleaved timed rounds,
    # so that a slow moment of the machine does not fall on one method only.
    rows = []
    for name, extract in methods.items():
        predictions = {key: extract(raw, url) for key, raw, url, _ in pages}
        rows.append([name, *(f"{v:.5f}" for v in aeb_scores(predictions, truth))])  # targets are ten-thousandths
    rates: dict[str, list[float]] = defaultdict(list)
    for _ in range(SPEED_ROUNDS):
        for name, extract in methods.items():
            started = time.process_time()
            for _, raw, url, _ in pages:
                extract(raw, url)
            rates[name].append(len(pages) / (time.process_time() - started))
    speed = {name: statistics.median(rounds) for name, rounds in rates.items()}
    print_table(f"article-extraction-benchmark ({len(pages)} pages): word 4-grams", ["method", "precision", "recall", "F1"], rows)
    return speed


def run_wcxb(limit):
    pages = wcxb(limit)
    sides = read_split()
    scores: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    paths: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    titles: dict[str, int] = Counter()
    dates: dict[str, int] = Counter()
    dated = 0
    for key, raw, url, truth, page_type in pages:
        part = sides[website_of(url, key)]
        record = ours(raw, url)
        score = wcxb_f1(record["content"], truth.get("main_content", ""))
        scores[("ours", part)][page_type].append(score)
        paths[record["extraction"]][part].append(score)
        scores[("trafilatura", part)][page_type].append(wcxb_f1(traf(raw, url), truth.get("main_content", "")))
        metadata = trafilatura.extract_metadata(raw.decode("utf-8", "replace"), default_url=url)
        titles["ours"] += normalized(record["title"]) == normalized(truth.get("title"))
        titles["trafilatura"] += normalized(metadata.title if metadata else None) == normalized(truth.get("title"))
        expected_date = (truth.get("publish_date") or "")[:10]
        if expected_date:
            dated += 1
            ours_date = record["published"] or record["date"]
            dates["ours"] += bool(ours_date) and ours_date.strftime("%Y-%m-%d") == expected_date
            dates["trafilatura"] += bool(metadata and metadata.date) and metadata.date[:10] == expected_date
    types = sorted({t for per in scores.values() for t in per})
    rows = []
    for part in (*PARTS, "all"):
        for method in ("ours", "trafilatura"):
            per = _merged_parts(scores, method, part)
            every = [s for values in per.values() for s in values]
            rows.append([part, method, len(every), *map(_fixed, [_mean(every)] + [_mean(per.get(t, [])) for t in types])])
    print_table(
        f"wcxb-dev ({len(pages)} pages, split by website): mean per-page word F1",
        ["part", "method", "pages", "overall", *types], rows,
    )
    print_table(
        "wcxb-dev: our pages per extraction path (mean F1)",
        ["extraction", *(f"{part} pages" for part in PARTS), *(f"{part} F1" for part in PARTS)],
        [
            [path, *(len(per[part]) for part in PARTS), *(_mean(per[part]) for part in PARTS)]
            for path, per in sorted(paths.items(), key=lambda item: -sum(map(len, item[1].values())))
        ],
    )
    print_table(
        "wcxb-dev metadata: exact match after normalization",
        ["method", "title accuracy", f"date accuracy ({dated} dated pages)"],
        [[m, titles[m] / len(pages), dates[m] / max(dated, 1)] for m in ("ours", "trafilatura")],
    )


def _merged_parts(scores, method: str, part: str) -> dict[str, list[float]]:
    """Scores per page type of one method on one part ("all": both parts)."""
    merged: dict[str, list[float]] = defaultdict(list)
    for side in PARTS if part == "all" else (part,):
        for page_type, values in scores[(method, side)].items():
            merged[page_type] += values
    return merged


def _mean(values: list[float]) -> float | str:
    return sum(values) / len(values) if values else "-"


def _fixed(value: float | str) -> str:
    """A mean with five decimals: the targets and the changes measured are ten-thousandths of F1."""
    return f"{value:.5f}" if isinstance(value, float) else value


# -- ablation ---------------------------------------------------------------------------------


def _wcxb_score(item: tuple[bytes, str, str, ExtractionSettings]) -> float:
    raw, url, expected, settings = item
    return wcxb_f1(ours(raw, url, settings=settings)["content"], expected)


def _article_text(item: tuple[bytes, str, str, ExtractionSettings]) -> str:
    raw, url, _, settings = item
    return ours(raw, url, settings=settings)["content"]


def run_ablation(limit, workers: int, every: int, only: list[str] | None = None) -> None:
    """Each rule off in turn: mean F1 change on wcxb-dev's tuning and validation parts and on the article benchmark.

    ``every``: one page in that many of each dataset (a subset spread over all page types and sites); ``only``: the
    rules whose names contain one of these strings (all when None).
    """
    ablations = {name: overrides for name, overrides in ABLATIONS.items() if not only or any(o in name for o in only)}
    pages = wcxb(limit)[::every]
    sides = read_split()
    parts = [sides[website_of(url, key)] for key, _, url, _, _ in pages]
    articles = article_benchmark(limit)[::every]
    truth = {key: body for key, _, _, body in articles}
    configs = {"(all rules on)": DEFAULT_SETTINGS} | {
        name: replace(DEFAULT_SETTINGS, **overrides) for name, overrides in ablations.items()
    }
    results = {}
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for name, settings in configs.items():
            items = [(raw, url, truth_.get("main_content", ""), settings) for _, raw, url, truth_, _ in pages]
            scores = list(pool.map(_wcxb_score, items, chunksize=8))
            texts = pool.map(_article_text, [(raw, url, "", settings) for _, raw, url, _ in articles], chunksize=8)
            per_part = {part: _mean([s for s, p in zip(scores, parts) if p == part]) for part in PARTS}
            results[name] = (scores, per_part, aeb_scores(dict(zip(truth, texts)), truth)[2])
            print(f"  ablation: {name} done", file=sys.stderr, flush=True)
    base_scores, base_parts, base_articles = results["(all rules on)"]
    rows = [["(all rules on)", *(f"{base_parts[part]:.5f}" for part in PARTS), f"{base_articles:.5f}", "-", "-"]]
    for name in ablations:
        scores, per_part, articles_f1 = results[name]
        changed = [(p, s - b) for s, b, p in zip(scores, base_scores, parts) if abs(s - b) > 1e-9]
        rows.append([
            name, *(f"{per_part[part] - base_parts[part]:+.5f}" for part in PARTS), f"{articles_f1 - base_articles:+.5f}",
            *(f"{sum(d > 0 for p, d in changed if p == part)}+/{sum(d < 0 for p, d in changed if p == part)}-" for part in PARTS),
        ])
    print_table(
        f"Ablation on wcxb-dev ({len(pages)} pages) and the article benchmark ({len(articles)}): each rule off, "
        "F1 change (negative: the rule earns its place)",
        ["rule switched off", *(f"{part} dF1" for part in PARTS), "articles dF1", *(f"{part} pages +/-" for part in PARTS)],
        rows,
    )


def run_python_docs(limit):
    paths = [p for p in python_doc_pages() if "/_" not in str(p)][:limit]
    # The URL keeps the page's folder: library/index.html and tutorial/index.html are different pages.
    pages = [(f"https://docs.python.org/3.11/{p.relative_to(PYTHON_DOCS).as_posix()}", p.read_bytes()) for p in paths]
    truth = {}
    for url, raw in pages:
        body = html.document_fromstring(raw).xpath("//div[@class='body']")
        truth[url] = body[0].text_content() if body else ""
    model = learn_boilerplate(((url, None, raw) for url, raw in pages), workers=2)
    rows = []
    for label, site in (("markup unset", website()), ('markup="body"', website(markup="body"))):
        for use_model in (False, True):
            f1 = [bag_f1(ours(raw, url, site, model if use_model else None)["content"], truth[url]) for url, raw in pages if truth[url]]
            rows.append([label, "yes" if use_model else "no", sum(f1) / len(f1)])
    print_table(f"python3.11-doc ({len(pages)} pages, truth div.body): mean word F1", ["markup", "boilerplate model", "F1"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="50 pages of each dataset")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--ablation", action="store_true", help="only the ablation table (each rule off in turn)")
    parser.add_argument("--workers", type=int, default=1, help="processes for the ablation")
    parser.add_argument("--every", type=int, default=1, help="ablation on one page in N of each dataset")
    parser.add_argument("--only", action="append", help="ablation of the rules whose names contain this (repeatable)")
    parser.add_argument("--write-split", action="store_true", help="recompute benchmarks/wcxb_split.json and stop")
    args = parser.parse_args()
    limit = 50 if args.quick else args.limit
    if args.write_split:
        write_split(wcxb(None))
        return
    if args.ablation:
        run_ablation(limit, args.workers, args.every, args.only)
        return
    speed = run_articles(limit)
    run_wcxb(limit)
    run_python_docs(limit or 200)
    print_table(
        "Speed on article-extraction-benchmark (one core)",
        ["method", "pages/s", "ratio to trafilatura"],
        [[name, rate, rate / speed["trafilatura"]] for name, rate in speed.items()],
    )


if __name__ == "__main__":
    main()
