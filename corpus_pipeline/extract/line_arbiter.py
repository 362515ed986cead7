"""The line arbiter: which of the second opinion's lines that a reading lacks are main content after all.

Resiliparse's reading (``second_opinion.py``) often holds lines the chosen reading left out: a table trafilatura
dropped between two paragraphs it kept, or a site's menus. The rules merge the whole second opinion or nothing; the
arbiter judges each missing line by where it sits, what it looks like and what the page's markup says of it
(``FEATURE_NAMES``). Its model, gradient-boosted trees trained on wcxb-dev's tuning part only by
``benchmarks/train_line_arbiter.py``, is ``models/line_arbiter.json``, which names the feature layout it was trained on.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass, field, replace
from functools import cache, cached_property, lru_cache
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Protocol

import numpy as np
from lxml import html

from corpus_pipeline.extract.html_tree import text_content
from corpus_pipeline.extract.text import WORD, line_key, reads_as_code, word_count

DEFAULT_MODEL_PATH = Path(__file__).with_name("models") / "line_arbiter.json"
FORMAT = "corpus_pipeline.line_arbiter/1"
PAGE_TYPES = ("article", "product", "forum", None)
PATHS = (
    "trafilatura_fast", "trafilatura_full", "trafilatura_precision", "second_opinion_merged", "card_grid_added",
    "resiliparse_only",
)
CHROME_TAGS = ("nav", "header", "footer", "aside", "form")
# Elements whose text is one line of a reading, rarely nested in each other: their share of text inside links.
LINE_TAGS = (
    "p", "li", "td", "th", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption", "caption", "blockquote",
)
HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
FEATURE_NAMES: tuple[str, ...] = (
    "log_words", "whole_link_text", "in_chrome", "capitalized_share", "digit_share", "ends_like_sentence",
    "commas_per_word", "between_kept", "after_kept_line", "before_kept_line", "log_distance_to_kept",
    "relative_position", "before_first_kept", "after_last_kept", "log_run_words", "reads_as_code",
    "in_figure", "heading_line", "block_link_share", "list_link_share", "link_neighbours", "log_link_run",
    "run_link_share",
    "log_reading_words", "log_second_words", "log_length_ratio",
    *(f"page_type_{t}" for t in PAGE_TYPES), *(f"path_{p}" for p in PATHS),
)

# The features read from the page's markup (``PageMarks``); the others come from the two readings' text alone.
MARK_FEATURES = tuple(FEATURE_NAMES.index(name) for name in (
    "whole_link_text", "in_chrome", "in_figure", "heading_line", "block_link_share", "list_link_share",
    "link_neighbours", "log_link_run", "run_link_share",
))
_TEXT_FEATURES = tuple(i for i in range(len(FEATURE_NAMES)) if i not in MARK_FEATURES)
# Those read from the page's link texts (``PageMarks.link_texts``, a pass over every link).
LINK_TEXT_FEATURES = tuple(FEATURE_NAMES.index(name) for name in (
    "whole_link_text", "link_neighbours", "log_link_run", "run_link_share",
))


# The most conditions of one tree on the features a bound does not leave free that a table of its best leaves (one
# entry per answer to them) is built for: the trainer's trees (depth 3) ask 7 at most.
_MOST_TABLE_BITS = 12


class LineArbiterError(RuntimeError):
    """The line arbiter's model file cannot be used (missing, corrupt, or trained on another feature layout)."""


@dataclass(frozen=True)
class PageMarks:
    """What the page's markup says of its lines (by line key): the whole texts of its links, the lines of its chrome
    elements, of its figures and of its headings, the share of a line element's text inside links and, for a list
    item, the mean of that share over its list's items (a list of links: related stories, a menu)."""

    link_texts: frozenset[str]
    chrome_lines: frozenset[str]
    figure_lines: frozenset[str] = frozenset()
    heading_lines: frozenset[str] = frozenset()
    link_shares: Mapping[str, float] = field(default_factory=dict)
    list_link_shares: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Candidates:
    """The second opinion's lines, which of them the reading holds, and the features of those it lacks."""

    lines: list[str]
    in_reading: list[bool]
    missing: list[int]
    features: np.ndarray
    keys: list[str] = field(default_factory=list)  # the lines' line keys


@dataclass(frozen=True)
class LineArbiter:
    """Gradient-boosted trees over ``FEATURE_NAMES``: the log-odds that a missing line is main content. A tree is a
    list of nodes, ``[feature, cut, left, right]`` (left when the value is <= cut) or a leaf's ``[value]``."""

    base: float
    trees: tuple[tuple[tuple[float, ...], ...], ...]

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Probability of main content for each row of ``features``."""
        feature, cut, left, right, value, depth = self._arrays
        rows = np.arange(features.shape[0])[:, None]
        trees = np.arange(len(self.trees))[None, :]
        node = np.zeros((features.shape[0], len(self.trees)), dtype=np.intp)
        for _ in range(depth):  # every tree at once: a leaf points to itself
            goes_left = features[rows, feature[trees, node]] <= cut[trees, node]
            node = np.where(goes_left, left[trees, node], right[trees, node])
        scores = self.base + value[trees, node].sum(axis=1)
        return 1.0 / (1.0 + np.exp(-np.clip(scores, -30.0, 30.0)))

    def upper_bounds(self, features: np.ndarray, free: tuple[int, ...] = MARK_FEATURES) -> np.ndarray:
        """For each row of ``features``, the highest probability it can have whatever the values of the ``free``
        features (the markup's, ``MARK_FEATURES``, or its link texts', ``LINK_TEXT_FEATURES``; their columns are not
        read): the sum of each tree's best leaf among those the other features let it reach."""
        tables = self._bound_tables if free == MARK_FEATURES else self._bound_tables_by_link_texts
        if tables is None:
            best = self._best_leaves(features, free)
        else:
            # Each tree's answers to its conditions on the other features, as bits: the code of its best leaf.
            feature, cut, weights, offsets, best_leaf = tables
            best = best_leaf[((features[:, feature] <= cut) @ weights) + offsets]
        scores = self.base + best.sum(axis=1)  # both (rows, trees) and C-ordered: summed in the same order
        return 1.0 / (1.0 + np.exp(-np.clip(scores, -30.0, 30.0)))

    def _best_leaves(self, features: np.ndarray, free: tuple[int, ...]) -> np.ndarray:
        """Each tree's best leaf for each row among those reached whatever the ``free`` features: by the conditions
        on the way to every leaf (any model; :attr:`_bound_tables` reads the same from a table)."""
        leaves = self._leaves if free == MARK_FEATURES else self._leaves_by_link_texts
        feature, cut, left, leaf_starts, value, tree_starts = leaves
        holds = (features[:, feature] <= cut) == left  # the walk goes left when a value is <= the cut
        reached = np.logical_and.reduceat(holds, leaf_starts, axis=1)
        return np.maximum.reduceat(np.where(reached, value, -np.inf), tree_starts, axis=1)

    @cached_property
    def _leaves(self) -> tuple[np.ndarray, ...]:
        return self._leaves_free(MARK_FEATURES)

    @cached_property
    def _leaves_by_link_texts(self) -> tuple[np.ndarray, ...]:
        return self._leaves_free(LINK_TEXT_FEATURES)

    @cached_property
    def _bound_tables(self) -> tuple[np.ndarray, ...] | None:
        return self._tables_free(MARK_FEATURES)

    @cached_property
    def _bound_tables_by_link_texts(self) -> tuple[np.ndarray, ...] | None:
        return self._tables_free(LINK_TEXT_FEATURES)

    def _tables_free(self, free: tuple[int, ...]) -> tuple[np.ndarray, ...] | None:
        """Each tree's best leaf for every answer to its conditions on features other than the ``free`` ones: the
        conditions (feature and cut per tree and bit; padding always holds and changes nothing), the bits' weights,
        where each tree's table starts and the tables, end to end; None when a tree has more than
        ``_MOST_TABLE_BITS`` such conditions (deeper trees than the trainer grows: read leaf by leaf)."""
        asked = [
            [n for n, node in enumerate(tree) if len(node) == 4 and int(node[0]) not in free] for tree in self.trees
        ]
        bits = max(map(len, asked), default=0)
        if bits > _MOST_TABLE_BITS:
            return None
        feature = np.zeros((len(self.trees), bits), dtype=np.intp)
        cut = np.full((len(self.trees), bits), np.inf)
        best_leaf = np.zeros((len(self.trees), 2**bits))
        for t, (tree, nodes) in enumerate(zip(self.trees, asked, strict=True)):
            for bit, n in enumerate(nodes):
                feature[t, bit], cut[t, bit] = tree[n][0], tree[n][1]  # the feature cast to an integer
            bit_of = {n: bit for bit, n in enumerate(nodes)}
            best_leaf[t] = [_best_leaf(tree, 0, bit_of, code) for code in range(2**bits)]
        return feature, cut, 1 << np.arange(bits), np.arange(len(self.trees)) * 2**bits, best_leaf.ravel()

    def _leaves_free(self, free: tuple[int, ...]) -> tuple[np.ndarray, ...]:
        """Every tree's leaves, tree by tree: the conditions on the way to each on features other than the ``free``
        ones (feature, cut, whether the walk goes left there; first one that always holds, on log_words, never
        infinite), where each leaf's conditions start, the leaves' values, and where each tree's leaves start."""
        conditions: list[tuple[int, float, bool]] = []
        leaf_starts: list[int] = []
        values: list[float] = []
        tree_starts: list[int] = []
        for tree in self.trees:
            tree_starts.append(len(values))
            paths: list[tuple[int, tuple[tuple[int, float, bool], ...]]] = [(0, ((0, np.inf, True),))]
            while paths:
                n, path = paths.pop()
                node = tree[n]
                if len(node) != 4:
                    leaf_starts.append(len(conditions))
                    conditions += path
                    values.append(node[0])
                    continue
                feature, cut = int(node[0]), node[1]
                either = feature in free  # either way, whatever the value
                paths.append((int(node[2]), path if either else (*path, (feature, cut, True))))
                paths.append((int(node[3]), path if either else (*path, (feature, cut, False))))
        features, cuts, lefts = (np.array(column) for column in zip(*conditions, strict=True))
        return features, cuts, lefts, np.array(leaf_starts), np.array(values), np.array(tree_starts)

    @cached_property
    def _arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        """The trees as padded arrays (feature, cut, left, right, leaf value per tree and node) and their depth."""
        width = max((len(tree) for tree in self.trees), default=1)
        shape = (len(self.trees), width)
        feature, left, right = (np.zeros(shape, dtype=np.intp) for _ in range(3))
        cut, value = np.zeros(shape), np.zeros(shape)
        for t, tree in enumerate(self.trees):
            for n, node in enumerate(tree):
                if len(node) == 4:
                    feature[t, n], cut[t, n], left[t, n], right[t, n] = node  # indices cast to integers
                else:  # a leaf sends every row to itself (any feature, cut +inf) and holds its value
                    cut[t, n], left[t, n], right[t, n], value[t, n] = np.inf, n, n, node[0]

        def below(tree: tuple[tuple[float, ...], ...], n: int) -> int:
            node = tree[n]
            return 0 if len(node) != 4 else 1 + max(below(tree, int(node[2])), below(tree, int(node[3])))

        depth = max((below(tree, 0) for tree in self.trees if tree), default=0)
        return feature, cut, left, right, value, depth


def _best_leaf(tree: tuple[tuple[float, ...], ...], n: int, bit_of: Mapping[int, int], code: int) -> float:
    """The best leaf under node ``n`` of ``tree`` reached when the conditions of the nodes in ``bit_of`` answer as
    the bits of ``code`` say (set: the value is <= the cut, the walk goes left); either way at the other nodes."""
    node = tree[n]
    if len(node) != 4:
        return node[0]
    if (bit := bit_of.get(n)) is None:
        return max(_best_leaf(tree, int(node[2]), bit_of, code), _best_leaf(tree, int(node[3]), bit_of, code))
    return _best_leaf(tree, int(node[2] if code >> bit & 1 else node[3]), bit_of, code)


def page_marks(document: html.HtmlElement, asked: Set[str] | None = None, links: bool = True) -> PageMarks:
    """What the page's markup says of its lines (``PageMarks``), keyed by ``line_key``; ``asked``: the keys of the
    only lines whose chrome, figure, heading and link-share marks will be read, when known (None: every line's);
    ``links``: whether to read the link texts (:func:`page_link_texts`; False: left empty)."""
    elements: dict[str, html.HtmlElement] = {}
    item_keys: dict[html.HtmlElement, str] = {}  # every list item's key, for its list's mean
    for element in document.iter(*LINE_TAGS):  # document order: an inner element of the same text overwrites
        key = line_key(_element_text(element))
        if element.tag == "li":
            item_keys[element] = key
        if key:
            elements[key] = element
    share = cache(lambda key: _link_share(elements[key]))  # read again for its list's mean
    link_shares = {key: share(key) for key in elements if asked is None or key in asked}
    list_link_shares: dict[str, float] = {}
    for listing in document.iter("ul", "ol"):
        items = [key for item in listing if item.tag == "li" if (key := item_keys[item])]
        if asked is not None and asked.isdisjoint(items):
            continue  # none of its items asked for: its mean is never read
        mean = sum(share(key) for key in items) / len(items) if items else 0.0
        list_link_shares.update((key, mean) for key in items)
    return PageMarks(
        page_link_texts(document) if links else frozenset(), _line_keys(document, CHROME_TAGS, asked),
        _line_keys(document, ("figure", "figcaption"), asked), _line_keys(document, HEADING_TAGS, asked),
        link_shares, list_link_shares,
    )


def page_link_texts(document: html.HtmlElement) -> frozenset[str]:
    """The line keys of the whole texts of the page's links (``PageMarks.link_texts``): a pass over every link."""
    return frozenset({line_key(_element_text(anchor)) for anchor in document.iter("a")} - {""})


@dataclass(frozen=True)
class DocumentMarks:
    """A page's marks read from its document as :func:`arbitrated` needs them (a :class:`MarkReader`)."""

    document: html.HtmlElement

    def of_lines(self, asked: Set[str]) -> PageMarks:
        return page_marks(self.document, asked, links=False)

    def link_texts(self) -> frozenset[str]:
        return page_link_texts(self.document)


def _element_text(element: html.HtmlElement) -> str:
    # An element without children (most links and many lines) holds its text alone: read without a call.
    return (element.text or "") if len(element) == 0 else text_content(element)


def _line_keys(document: html.HtmlElement, tags: tuple[str, ...], asked: Set[str] | None) -> frozenset[str]:
    """The line keys of every line of the text of the elements of these tags (those among ``asked``, when given)."""
    found: set[str] = set()
    for element in document.iter(*tags):
        # Each line keyed, most of them remembered (the second opinion's copies): cheaper than looking first for the
        # words of the lines asked for in the element's text, which reads it once for each.
        keys = map(line_key, _element_text(element).split("\n"))
        found.update(keys if asked is None else filter(asked.__contains__, keys))
    found.discard("")
    return frozenset(found)


def _link_share(element: html.HtmlElement) -> float:
    """The share of the element's characters (spaces aside) inside its links."""
    anchors = list(element.iter("a"))
    if not anchors:
        return 0.0  # most lines hold no link: their characters need no count
    total = _visible_length(_element_text(element))
    inside = sum(_visible_length(_element_text(anchor)) for anchor in anchors)
    return min(1.0, inside / total) if total else 0.0


def _visible_length(text: str) -> int:
    """The characters of ``text`` that are not whitespace."""
    return len("".join(text.split()))


def candidates(
    reading: str, second: str, marks: PageMarks, page_type: str | None, path: str, second_words: int | None = None,
    reading_words: int | None = None,
) -> Candidates:
    """The second opinion's lines that ``reading`` lacks, each with its features (``FEATURE_NAMES``);
    ``second_words``, ``reading_words``: the two texts' words (``\\w+``), when the caller counted them already."""
    return _marked(_unmarked_candidates(reading, second, page_type, path, second_words, reading_words), marks)


def _unmarked_candidates(
    reading: str, second: str, page_type: str | None, path: str, second_words: int | None, reading_words: int | None
) -> Candidates:
    """:func:`candidates`, the features of the page's markup (``MARK_FEATURES``) left at 0."""
    lines = [line for line in second.split("\n") if line.strip()]
    known = set(map(line_key, reading.split("\n")))
    keys = list(map(line_key, lines))
    in_reading = [key in known for key in keys]
    kept = [i for i, inside in enumerate(in_reading) if inside]
    # The words of the run of missing lines each line belongs to.
    run_words = _per_run([not held for held in in_reading], lambda start, end: sum(map(word_count, lines[start:end])))
    page = _page_features(reading, second, page_type, path, second_words, reading_words)
    missing = [i for i, key in enumerate(keys) if key and not in_reading[i]]
    features = np.zeros((len(missing), len(FEATURE_NAMES)))
    rows = [_line_features(i, lines[i], lines, in_reading, kept, run_words[i]) + page for i in missing]
    features[:, _TEXT_FEATURES] = np.array(rows, dtype=float).reshape(len(rows), len(_TEXT_FEATURES))
    return Candidates(lines, in_reading, missing, features, keys)


def _marked(found: Candidates, marks: PageMarks) -> Candidates:
    """``found`` with the features of the page's markup (``MARK_FEATURES``) filled in from ``marks``."""
    keys, count = found.keys, len(found.lines)
    is_link = [key in marks.link_texts for key in keys]
    link_runs = _per_run(is_link, lambda start, end: end - start)
    # The share of whole link texts in the run of missing lines each line belongs to.
    run_link_shares = _per_run(
        [not held for held in found.in_reading], lambda start, end: sum(is_link[start:end]) / (end - start)
    )
    features = found.features.copy()
    for row, i in enumerate(found.missing):
        key = keys[i]
        features[row, MARK_FEATURES] = [
            key in marks.link_texts, key in marks.chrome_lines, key in marks.figure_lines, key in marks.heading_lines,
            marks.link_shares.get(key, -1.0), marks.list_link_shares.get(key, -1.0),
            (i > 0 and is_link[i - 1]) + (i + 1 < count and is_link[i + 1]), math.log1p(link_runs[i]),
            run_link_shares[i],
        ]
    return Candidates(found.lines, found.in_reading, found.missing, features, keys)


def _per_run(flags: list[bool], value: Callable[[int, int], float]) -> list[float]:
    """For each of ``flags``, ``value(start, end)`` of the run of consecutive true flags it belongs to (0: false)."""
    values = [0.0] * len(flags)
    at = 0
    for flag, group in groupby(flags):
        end = at + sum(1 for _ in group)
        if flag:
            values[at:end] = [value(at, end)] * (end - at)
        at = end
    return values


def _line_features(
    i: int, line: str, lines: list[str], in_reading: list[bool], kept: list[int], run_words: float
) -> list[float]:
    words = WORD.findall(line)
    count = len(words)
    first, last = (kept[0], kept[-1]) if kept else (len(lines), -1)
    at = bisect_left(kept, i)  # the nearest kept lines are the two around it
    distance = min((abs(i - kept[j]) for j in (at - 1, at) if 0 <= j < len(kept)), default=len(lines))
    return [
        math.log1p(count), sum(map(str.isupper, map(itemgetter(0), words))) / count,
        sum(map(str.isdigit, words)) / count, line.rstrip()[-1:] in ".!?:;", line.count(",") / count,
        first < i < last, i > 0 and in_reading[i - 1], i + 1 < len(lines) and in_reading[i + 1], math.log1p(distance),
        i / len(lines), i < first, i > last, math.log1p(run_words), reads_as_code(line),
    ]


def _page_features(
    reading: str, second: str, page_type: str | None, path: str, second_words: int | None, reading_words: int | None
) -> list[float]:
    ours = word_count(reading) if reading_words is None else reading_words
    theirs = word_count(second) if second_words is None else second_words
    return [
        math.log1p(ours), math.log1p(theirs), math.log((ours + 1) / (theirs + 1)),
        *(page_type == t for t in PAGE_TYPES), *(path == p for p in PATHS),
    ]


def with_lines(reading: str, found: Candidates, added: Iterable[int]) -> str:
    """``reading`` with the second opinion's lines ``added`` (indices into ``found.lines``), each placed after the
    reading's copy of the nearest held line above it (at the top when there is none)."""
    reading_lines = reading.split("\n")
    position = {line_key(line): j for j, line in enumerate(reading_lines) if line.strip()}
    inserts: dict[int, list[str]] = {}
    for i in sorted(added):
        above = next((j for j in range(i - 1, -1, -1) if found.in_reading[j]), None)
        at = position.get(line_key(found.lines[above]), -1) if above is not None else -1
        inserts.setdefault(at, []).append(found.lines[i])
    out = list(inserts.get(-1, []))
    for j, line in enumerate(reading_lines):
        out.append(line)
        out += inserts.get(j, [])
    return "\n".join(out)


class MarkReader(Protocol):
    """How to read the page's marks when they are needed (:class:`DocumentMarks` reads its document's)."""

    def of_lines(self, asked: Set[str]) -> PageMarks:
        """:func:`page_marks` of the lines of these keys, the link texts left empty."""

    def link_texts(self) -> frozenset[str]:
        """:func:`page_link_texts`."""


def arbitrated(
    reading: str, second: str, marks: PageMarks | MarkReader, page_type: str | None, path: str,
    min_probability: float, model: LineArbiter, *, second_words: int | None = None, reading_words: int | None = None,
) -> str:
    """``reading`` with the second opinion's missing lines the model gives ``min_probability`` or more put back
    (``*_words``: see :func:`candidates`). ``marks``: the page's, or a reader of them, read only when a missing line
    could reach ``min_probability`` whatever they say of it: those of the missing lines, then the link texts, when it
    still could whatever those say."""
    found = _unmarked_candidates(reading, second, page_type, path, second_words, reading_words)
    if not found.missing:
        return reading
    if not isinstance(marks, PageMarks):
        # A margin under the threshold: the bound sums the trees' leaves in another order than the model does.
        if np.all(model.upper_bounds(found.features) < min_probability - 1e-9):
            return reading
        of_lines = marks.of_lines({found.keys[i] for i in found.missing})
        unlinked = _marked(found, of_lines)
        if np.all(model.upper_bounds(unlinked.features, LINK_TEXT_FEATURES) < min_probability - 1e-9):
            return reading
        marks = replace(of_lines, link_texts=marks.link_texts())  # the lines' marks read once
    found = _marked(found, marks)
    sure = model.probabilities(found.features) >= min_probability
    added = [i for i, keep in zip(found.missing, sure, strict=True) if keep]
    return with_lines(reading, found, added) if added else reading


def save_line_arbiter(model: LineArbiter, path: Path) -> None:
    """Write ``model`` as JSON (cuts and leaves rounded to 6 places, keys sorted: same model, same bytes)."""
    trees = [[_written(node) for node in tree] for tree in model.trees]
    document = {"format": FORMAT, "feature_names": list(FEATURE_NAMES), "base": round(model.base, 6), "trees": trees}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, sort_keys=True, separators=(",", ":")) + "\n")


def _written(node: tuple[float, ...]) -> list[float | int]:
    if len(node) == 4:
        return [int(node[0]), round(float(node[1]), 6), int(node[2]), int(node[3])]
    return [round(float(node[0]), 6)]


@lru_cache(maxsize=4)
def load_line_arbiter(path: Path = DEFAULT_MODEL_PATH) -> LineArbiter:
    """The model in ``path`` (cached per path); raises :class:`LineArbiterError` when it cannot be used."""
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise LineArbiterError(f"{path}: cannot read the line arbiter's model ({error})") from error
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise LineArbiterError(f"{path}: not a line arbiter model of format {FORMAT}")
    if tuple(document.get("feature_names", ())) != FEATURE_NAMES:
        raise LineArbiterError(f"{path}: trained on another feature layout; retrain with train_line_arbiter.py")
    try:
        trees = tuple(tuple(tuple(float(v) for v in node) for node in tree) for tree in document["trees"])
        return LineArbiter(float(document["base"]), trees)
    except (KeyError, TypeError, ValueError) as error:
        raise LineArbiterError(f"{path}: malformed line arbiter model ({error})") from error
