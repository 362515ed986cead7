"""Train the line arbiter on wcxb-dev's tuning part and write ``corpus_pipeline/extract/models/line_arbiter.json``.

Usage: python benchmarks/train_line_arbiter.py [--output PATH]

Every tuning page is read by the pipeline with the arbiter off; each line of Resiliparse's reading that the
reading lacks is one example (``line_arbiter.candidates``), labelled main content when half or more of its words
are among the truth's words the reading has not already matched, weighted by its words. The model is
gradient-boosted trees (logistic loss, depth 3, cuts at the features' quantiles) written here in numpy. Same
data and code, same bytes.
"""

from __future__ import annotations

import argparse
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
    LineArbiter,
    candidates,
    page_marks,
    save_line_arbiter,
)
from corpus_pipeline.extract.page_type import declared_page_type  # noqa: E402
from corpus_pipeline.extract.second_opinion import resiliparse_main_text  # noqa: E402
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS  # noqa: E402

OFF = replace(DEFAULT_SETTINGS, min_arbiter_probability=2.0)
TREES, DEPTH, LEARNING_RATE, L2, MIN_LEAF_HESSIAN, CUTS = 60, 3, 0.15, 1.0, 20.0, 16
MIN_TRUTH_SHARE = 0.5


def page_examples(item: tuple[bytes, str, str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and weights of one page's candidate lines."""
    raw, url, truth = item
    seen: list[tuple[str, str, str, str | None, object]] = []
    original = page_module.extract_main_content

    def spy(document, fresh_document, text, url, skipped, settings):  # type: ignore[no-untyped-def]
        page_type = declared_page_type(document, settings)
        main = original(document, fresh_document, text, url, skipped, settings)
        seen.append((main.text, main.extraction.value, resiliparse_main_text(text, skipped), page_type,
                     page_marks(document)))
        return main

    page_module.extract_main_content = spy
    try:
        bench.ours(raw, url, settings=OFF)
    finally:
        page_module.extract_main_content = original
    empty = (np.zeros((0, 0)), np.zeros(0), np.zeros(0))
    if not seen or not seen[0][0].strip() or not seen[0][2].strip():
        return empty
    reading, path, second, page_type, marks = seen[0]
    found = candidates(reading, second, marks, page_type, path)  # type: ignore[arg-type]
    left = Counter(WORD.findall(truth.lower())) - Counter(WORD.findall(reading.lower()))
    labels, weights = [], []
    for i in found.missing:
        words = Counter(WORD.findall(found.lines[i].lower()))
        total = sum(words.values())
        labels.append(sum(min(n, left[w]) for w, n in words.items()) / total >= MIN_TRUTH_SHARE)
        weights.append(total)
    return found.features, np.array(labels, dtype=float), np.array(weights, dtype=float)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, default=DEFAULT_MODEL_PATH)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    sides = read_split()
    items = [
        (raw, url, truth.get("main_content", ""))
        for key, raw, url, truth, _ in bench.wcxb(None)
        if sides[website_of(url, key)] == TUNING
    ]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        examples = [e for e in pool.map(page_examples, items, chunksize=8) if len(e[1])]
    x = np.vstack([e[0] for e in examples])
    y = np.concatenate([e[1] for e in examples])
    w = np.concatenate([e[2] for e in examples])
    model = fit_trees(x, y, w)
    save_line_arbiter(model, args.output)
    print(f"{len(items)} tuning pages, {len(y)} lines ({y.mean():.3f} main content): wrote {args.output}")


if __name__ == "__main__":
    main()
