"""Train the line arbiter on wcxb-dev's tuning part and write ``corpus_pipeline/extract/models/line_arbiter.json``.

Usage: python benchmarks/train_line_arbiter.py [--output PATH] [--cache PATH] [--cv]

Every tuning page is read by the pipeline with the arbiter off; each line of Resiliparse's reading that the
reading lacks is one example (``line_arbiter.candidates``), labelled main content when half or more of its words
are among the truth's words the reading has not already matched, weighted by its words. The model is
gradient-boosted trees (logistic loss, depth 3, cuts at the features' quantiles) written here in numpy. Same
data and code, same bytes.

--cv: no file is written; 5-fold cross-validation by website within the tuning part (each fold's websites held out
from training) prints the mean F1 change the arbiter makes at each threshold, on every tuning page and on its
articles, from the readings scored as they are (before the page's last clean-up). --cache keeps the readings of
the tuning pages in a pickle, so that a second run (another feature or threshold) skips the extraction.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import extraction_bench as bench  # noqa: E402
from benchmarks.common import WORD  # noqa: E402
from benchmarks.wcxb_split import TUNING, read_split, website_of  # noqa: E402
from corpus_pipeline.extract import page as page_module  # noqa: E402
from corpus_pipeline.extract.line_arbiter import (  # noqa: E402
    DEFAULT_MODEL_PATH,
    FEATURE_NAMES,
    Candidates,
    LineArbiter,
    candidates,
    page_marks,
    save_line_arbiter,
    with_lines,
)
from corpus_pipeline.extract.page_type import declared_page_type  # noqa: E402
from corpus_pipeline.extract.second_opinion import resiliparse_main_text  # noqa: E402
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS  # noqa: E402

OFF = replace(DEFAULT_SETTINGS, min_arbiter_probability=2.0)
TREES, DEPTH, LEARNING_RATE, L2, MIN_LEAF_HESSIAN, CUTS = 60, 3, 0.15, 1.0, 20.0, 16
MIN_TRUTH_SHARE = 0.5


Reading = tuple[str, str, str, str | None, object, str]  # reading, path, second opinion, page type, marks, truth


def page_reading(item: tuple[bytes, str, str]) -> Reading | None:
    """The pipeline's reading of one page with the arbiter off, what it needs to judge lines, and the truth."""
    raw, url, truth = item
    seen: list[tuple[str, str, str, str | None, object]] = []
    original = page_module.extract_main_content

    def spy(document, fresh_document, text, url, skipped, settings, *more, **options):  # type: ignore[no-untyped-def]
        page_type = declared_page_type(document, options["structured"].types, settings)
        main = original(document, fresh_document, text, url, skipped, settings, *more, **options)
        seen.append((main.text, main.extraction.value, resiliparse_main_text(text, skipped), page_type,
                     page_marks(document)))
        return main

    page_module.extract_main_content = spy
    try:
        bench.ours(raw, url, settings=OFF)
    finally:
        page_module.extract_main_content = original
    if not seen or not seen[0][0].strip() or not seen[0][2].strip():
        return None
    return (*seen[0], truth)


def page_examples(reading_: Reading | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, Candidates | None]:
    """Features, labels and weights of one page's candidate lines, and the candidates."""
    if reading_ is None:
        return np.zeros((0, len(FEATURE_NAMES))), np.zeros(0), np.zeros(0), None
    reading, path, second, page_type, marks, truth = reading_
    found = candidates(reading, second, marks, page_type, path)  # type: ignore[arg-type]
    left = Counter(WORD.findall(truth.lower())) - Counter(WORD.findall(reading.lower()))
    labels, weights = [], []
    for i in found.missing:
        words = Counter(WORD.findall(found.lines[i].lower()))
        total = sum(words.values())
        labels.append(sum(min(n, left[w]) for w, n in words.items()) / total >= MIN_TRUTH_SHARE)
        weights.append(total)
    return found.features, np.array(labels, dtype=float), np.array(weights, dtype=float), found


def fit_trees(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> LineArbiter:
    """Gradient-boosted trees (logistic loss, Newton leaves) on weighted examples."""
    cuts = [np.unique(np.quantile(x[:, j], np.linspace(0.05, 0.95, CUTS))) for j in range(x.shape[1])]
    share = float(np.average(y, weights=w))
    base = float(np.log(share / (1 - share)))
    scores = np.full(len(y), base)
    trees = []
    for _ in range(TREES):
        p = 1 / (1 + np.exp(-scores))
        gradient, hessian = w * (p - y), w * p * (1 - p)
        nodes: list[list[float]] = []
        _grow(x, gradient, hessian, np.arange(len(y)), cuts, 0, nodes)
        trees.append(tuple(tuple(node) for node in nodes))
        scores += _tree_scores(nodes, x)
    return LineArbiter(base, tuple(trees))


def _grow(x, gradient, hessian, rows, cuts, depth: int, nodes: list[list[float]]) -> int:  # type: ignore[no-untyped-def]
    """Append the subtree over ``rows`` to ``nodes`` (depth first) and return its root's index."""
    g, h = gradient[rows], hessian[rows]
    split = _best_split(x[rows], g, h, cuts) if depth < DEPTH else None
    at = len(nodes)
    if split is None:
        nodes.append([-LEARNING_RATE * g.sum() / (h.sum() + L2)])
        return at
    feature, cut = split
    nodes.append([])
    goes_left = x[rows, feature] <= cut
    left = _grow(x, gradient, hessian, rows[goes_left], cuts, depth + 1, nodes)
    right = _grow(x, gradient, hessian, rows[~goes_left], cuts, depth + 1, nodes)
    nodes[at] = [float(feature), float(cut), float(left), float(right)]
    return at


def _best_split(x, g, h, cuts) -> tuple[int, float] | None:  # type: ignore[no-untyped-def]
    total_g, total_h = g.sum(), h.sum()
    best, found = 0.0, None
    for j, column_cuts in enumerate(cuts):
        for cut in column_cuts:
            left = x[:, j] <= cut
            hl = h[left].sum()
            if hl < MIN_LEAF_HESSIAN or total_h - hl < MIN_LEAF_HESSIAN:
                continue
            gl = g[left].sum()
            gain = gl * gl / (hl + L2) + (total_g - gl) ** 2 / (total_h - hl + L2) - total_g**2 / (total_h + L2)
            if gain > best + 1e-12:
                best, found = gain, (j, float(cut))
    return found


def _tree_scores(nodes: list[list[float]], x: np.ndarray) -> np.ndarray:
    scores = np.zeros(len(x))
    for row, values in enumerate(x):
        node = nodes[0]
        while len(node) == 4:
            node = nodes[int(node[2] if values[int(node[0])] <= node[1] else node[3])]
        scores[row] = node[0]
    return scores


def tuning_readings(workers: int, cache: Path | None) -> list[tuple[str, str, Reading | None]]:
    """Website, declared wcxb page type and reading of every tuning page (from ``cache`` when it is there)."""
    if cache is not None and cache.exists():
        return pickle.loads(cache.read_bytes())  # type: ignore[no-any-return]
    sides = read_split()
    pages = [(website_of(url, key), kind, (raw, url, truth.get("main_content", "")))
             for key, raw, url, truth, kind in bench.wcxb(None) if sides[website_of(url, key)] == TUNING]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        readings = list(pool.map(page_reading, [item for _, _, item in pages], chunksize=8))
    result = [(site, kind, reading) for (site, kind, _), reading in zip(pages, readings, strict=True)]
    if cache is not None:
        cache.write_bytes(pickle.dumps(result))
    return result


def stacked(examples: list[tuple[np.ndarray, np.ndarray, np.ndarray, Candidates | None]]) -> tuple[np.ndarray, ...]:
    """The examples of several pages as one feature matrix, labels and weights."""
    kept = [e for e in examples if len(e[1])]
    return (np.vstack([e[0] for e in kept]), np.concatenate([e[1] for e in kept]), np.concatenate([e[2] for e in kept]))


THRESHOLDS = (0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)


def cross_validate(pages: list[tuple[str, str, Reading | None]], dropped: list[str], folds: int = 5) -> None:
    """Print the mean F1 change per threshold, each page judged by a model trained without its website (the
    features named in ``dropped`` set to 0, to compare feature sets)."""
    examples = [page_examples(reading) for _, _, reading in pages]
    columns = [FEATURE_NAMES.index(name) for name in dropped]
    for features, *_ in examples:
        features[:, columns] = 0.0
    sites = sorted({site for site, _, _ in pages})
    fold_of = dict(zip(sites, np.random.default_rng(21).permutation(len(sites)) % folds, strict=True))
    probabilities: list[np.ndarray | None] = [None] * len(pages)
    for fold in range(folds):
        inside = [i for i, (site, _, _) in enumerate(pages) if fold_of[site] == fold]
        model = fit_trees(*stacked([e for e, (site, _, _) in zip(examples, pages, strict=True) if fold_of[site] != fold]))
        for i in inside:
            if len(examples[i][1]):
                probabilities[i] = model.probabilities(examples[i][0])
    for threshold in THRESHOLDS:
        gains: dict[str, list[float]] = {"all": [], "article": [], "declared article": [], "not declared": []}
        for (_, kind, reading), (_, _, _, found), p in zip(pages, examples, probabilities, strict=True):
            gain = 0.0
            if reading is not None and found is not None and p is not None:
                added = [i for i, sure in zip(found.missing, p >= threshold, strict=True) if sure]
                if added:
                    truth = reading[5]
                    gain = bench.wcxb_f1(with_lines(reading[0], found, added), truth) - bench.wcxb_f1(reading[0], truth)
            gains["all"].append(gain)
            if kind == "article":
                gains["article"].append(gain)
            declared = reading is not None and reading[3] == "article"
            gains["declared article" if declared else "not declared"].append(gain)
            gains.setdefault(f"path {reading[1] if reading else None}", []).append(gain)
        print(
            f"threshold {threshold}: tuning {np.mean(gains['all']):+.5f} "
            f"({sum(g > 1e-9 for g in gains['all'])}+/{sum(g < -1e-9 for g in gains['all'])}-), "
            f"articles {np.mean(gains['article']):+.5f} "
            f"({sum(g > 1e-9 for g in gains['article'])}+/{sum(g < -1e-9 for g in gains['article'])}-, "
            f"gained {sum(g for g in gains['article'] if g > 0):+.3f} lost {sum(g for g in gains['article'] if g < 0):+.3f}); "
            f"sum over pages declared articles {np.sum(gains['declared article']):+.3f} "
            f"({len(gains['declared article'])} pages), others {np.sum(gains['not declared']):+.3f}; "
            + ", ".join(f"{name} {np.sum(values):+.3f} ({len(values)})" for name, values in sorted(gains.items())
                        if name.startswith("path")),
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, default=DEFAULT_MODEL_PATH)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=None, help="pickle of the tuning pages' readings")
    parser.add_argument("--cv", action="store_true", help="cross-validate by website within tuning; write nothing")
    parser.add_argument("--drop", action="append", default=[], help="with --cv: a feature set to 0 (repeatable)")
    args = parser.parse_args()
    pages = tuning_readings(args.workers, args.cache)
    if args.cv:
        cross_validate(pages, args.drop)
        return
    x, y, w = stacked([page_examples(reading) for _, _, reading in pages])
    model = fit_trees(x, y, w)
    save_line_arbiter(model, args.output)
    print(f"{len(pages)} tuning pages, {len(y)} lines ({y.mean():.3f} main content): wrote {args.output}")


if __name__ == "__main__":
    main()
