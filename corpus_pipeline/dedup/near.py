"""Near duplicates anywhere in a corpus: banded MinHash/LSH candidates (one band at a time with numpy), each
verified with the reference's rule, a normalized Indel similarity >= threshold.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import cache, partial
from itertools import accumulate, chain, groupby, islice, repeat
from typing import Any, TypeVar

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel

from corpus_pipeline.core.budget import WorkerPool
from corpus_pipeline.core.progress import Progress
from corpus_pipeline.dedup.normalize import content_key_of_paragraphs, normalize_content

Result = TypeVar("Result")
Score = TypeVar("Score", float, float | None)

SHINGLE_WORDS = 5
BANDS, ROWS = 42, 3  # 126 permutations; a pair with shingle Jaccard 0.43 becomes a candidate 97 % of the time
NUM_PERM = BANDS * ROWS
MAX_BUCKET = 500  # a bucket bigger than this holds boilerplate-only pages: compare them by exact content instead
_WORD = re.compile(r"\w+")
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], dtype=np.uint64)
_CHUNK = 128  # texts per signature job: no worker idles at the end, and a job's ~1 ms overhead stays small
PARALLEL_FROM = 2000  # below this many texts a pool costs more than it saves
# Guided blocks: at most this share of a worker's part of the work left, at least this fraction of the whole.
_GUIDED_SHARE = 1 / 3
_GUIDED_FLOOR = 256
_PAIRS_PER_JOB = 256  # candidate pairs per verification job
_CUTOFF_MARGIN = 1e-6
# _Distances measures this much past the most that passes: failing pairs mostly score just below the threshold.
_MEASURED_WIDTH = 1.5
_AGREEMENT_CHUNK = 32768  # candidate pairs whose signatures are compared at once
# datasketch's default MinHash (affine32, seed 1), its parameters drawn as datasketch draws them, so that worker
# processes do not import datasketch (and scipy with it). As columns: a permutation a row.
_PERMUTATIONS = np.random.RandomState(1)
_A = (_PERMUTATIONS.randint(0, 1 << 31, NUM_PERM, dtype=np.uint32) * np.uint32(2) + np.uint32(1))[:, None]
_B = _PERMUTATIONS.randint(0, 1 << 32, NUM_PERM, dtype=np.uint32)[:, None]
del _PERMUTATIONS
_A.flags.writeable = _B.flags.writeable = False
_FMIX_SHIFTS = (np.uint32(16), np.uint32(13), np.uint32(16))
_FMIX_MULTIPLIERS = (np.uint32(0x85EBCA6B), np.uint32(0xC2B2AE35))
_SHA1_WORDS = 5  # a SHA-1 digest is five 32-bit words
_SPACE = ord(" ")
# A byte that ``\w`` matches in ASCII as itself, any other byte as a space.
_ASCII_WORD_BYTES = bytes(code if chr(code).isalnum() or chr(code) == "_" else _SPACE for code in range(128)) + bytes(
    [_SPACE] * 128
)


def minhash_values(text: str) -> np.ndarray:
    """datasketch's ``MinHash(num_perm=NUM_PERM)`` values, bit for bit, of a normalized text's shingles: its runs of
    ``SHINGLE_WORDS`` ``\\w+`` words joined by spaces, UTF-8 encoded (a shorter text's words)."""
    return _minhash_of(_shingle_hashes(text))


def _minhash_of(hashes: np.ndarray) -> np.ndarray:
    """:func:`minhash_values` from the shingles' hashes, in any order."""
    if not len(hashes):
        return np.full(NUM_PERM, (1 << 32) - 1, dtype=np.uint64)  # datasketch's empty MinHash
    (s1, s2, s3), (m1, m2) = _FMIX_SHIFTS, _FMIX_MULTIPLIERS
    hashes ^= hashes >> s1
    hashes *= m1
    hashes ^= hashes >> s2
    hashes *= m2
    hashes ^= hashes >> s3
    # permutation by shingle: each permutation's row is contiguous, so its minimum is one vectorized pass
    values = _A * hashes
    values += _B
    return values.min(axis=1).astype(np.uint64)


def _shingle_hashes(text: str) -> np.ndarray:
    """The first word of each shingle's SHA-1, repeats included. The words' bounds are the spaces of the joined
    words, found with numpy (no space occurs within a word nor within a multi-byte UTF-8 character)."""
    joined = b" ".join(line for line in _line_words(text) if line)
    if not joined:
        return np.empty(0, dtype=np.uint32)
    spaces = np.flatnonzero(np.frombuffer(joined, dtype=np.uint8) == _SPACE)
    starts = np.concatenate(([0], spaces + 1)).tolist()
    ends = np.concatenate((spaces, [len(joined)])).tolist()
    if len(starts) >= SHINGLE_WORDS:  # else a short text's shingles are its words
        starts, ends = starts[: len(starts) - SHINGLE_WORDS + 1], ends[SHINGLE_WORDS - 1 :]
    sha1 = hashlib.sha1
    return _first_words(b"".join([sha1(joined[start:end]).digest() for start, end in zip(starts, ends, strict=True)]))


def _shingle_digests(words: list[bytes]) -> bytes:
    """The SHA-1 digests of the runs of ``SHINGLE_WORDS`` words joined by spaces, concatenated (none for fewer)."""
    joined = b" ".join(words)
    starts = list(accumulate([len(word) + 1 for word in words], initial=0))
    sha1, n = hashlib.sha1, SHINGLE_WORDS
    return b"".join([sha1(joined[starts[k] : starts[k + n] - 1]).digest() for k in range(len(words) - n + 1)])


def _first_words(digests: bytes) -> np.ndarray:
    """The first 32-bit word of each SHA-1 digest of ``digests``, little-endian (as datasketch reads it)."""
    return np.frombuffer(digests, dtype="<u4")[::_SHA1_WORDS].astype(np.uint32)


def _line_words(text: str) -> Iterator[bytes]:
    """Each line's ``" ".join(_WORD.findall(line)).encode()``, an ASCII line's by a faster byte translation."""
    for line in text.split("\n"):
        if line.isascii():
            yield b" ".join(line.encode().translate(_ASCII_WORD_BYTES).split())
        else:
            yield " ".join(_WORD.findall(line)).encode()


def _similarity(
    a: str, b: str, threshold: float, ratio_bound: float, paragraphs: Callable[[str], _Paragraphs],
    ratio: Callable[[str, str, float, float], float],
) -> float:
    """The reference's rule (normalized Indel similarity), or the same on the newline-separated paragraphs aligned
    with their most similar counterparts in both directions, the weaker direction kept (a page sharing half its
    paragraphs with another stays well below the threshold). Exact from ``threshold`` up, else only known below;
    ``ratio_bound`` bounds it from above; ``paragraphs`` and ``ratio`` are the block's, shared by its pairs."""
    if not a or not b or 2 * min(len(a), len(b)) / (len(a) + len(b)) < 0.5:
        return 0.0
    if a.count("\n") < 1 or b.count("\n") < 1:
        return ratio(a, b, threshold, ratio_bound)
    forward = _aligned(paragraphs(a).lines, paragraphs(b), threshold)
    aligned = min(forward, _aligned(paragraphs(b).lines, paragraphs(a), threshold)) if forward >= threshold else forward
    # With the alignment as its cutoff, rapidfuzz computes the direct ratio only near the diagonal.
    return max(aligned, ratio(a, b, max(threshold, aligned), ratio_bound))


def _paragraphs_of(text: str) -> _Paragraphs:
    return _Paragraphs(text.split("\n"))


def _ratio(a: str, b: str, cutoff: float, bound: float) -> float:
    """The normalized Indel similarity of two texts when it reaches ``cutoff``; below it, a value below it."""
    if bound < cutoff:
        return bound  # the texts' characters show it cannot reach the cutoff (most pairs that fail)
    # rapidfuzz returns 0 under its cutoff: the margin keeps a ratio of exactly threshold x 100 (90.00000000000001).
    return fuzz.ratio(a, b, score_cutoff=max(cutoff * 100 - _CUTOFF_MARGIN, 0.0)) / 100


def _characters(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The distinct UTF-16 code units of a text and how often each occurs (an astral character counts as its two
    surrogates, which only loosens :func:`_ratio_bound`)."""
    units = np.frombuffer(text.encode("utf-16-le"), dtype="<u2")
    counts = np.bincount(units)
    present = np.flatnonzero(counts)
    return present.astype(np.uint16), counts[present]


def _ratio_bound(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray], length: int) -> float:
    """An upper bound of two texts' normalized Indel similarity from their :func:`_characters` and summed
    ``length``: a common subsequence holds each character at most as often as either text."""
    if not length:
        return 1.0
    _, in_a, in_b = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
    return 2 * int(np.minimum(a[1][in_a], b[1][in_b]).sum()) / length


class _Paragraphs:
    """A text's paragraphs as an alignment's target, with the searches against them (shared by a block's pairs)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.choices = list(dict.fromkeys(lines))
        self.verbatim = set(self.choices)
        self.best: dict[str, float] = {}  # a searched paragraph's best score (0 to 100) against these, exact
        self.below: dict[str, float] = {}  # a paragraph searched without a result: its best is below this cutoff

    def best_score(self, line: str, cutoff: float) -> float | None:
        """The best score of ``line`` against these paragraphs when it reaches ``cutoff``, else None."""
        score = self.best.get(line)
        if score is not None:
            return score if score >= cutoff else None
        below = self.below.get(line)
        if below is not None and below <= cutoff:  # below a lower cutoff already
            return None
        best = process.extractOne(line, self.choices, scorer=fuzz.ratio, score_cutoff=cutoff)
        if best is None:
            self.below[line] = cutoff  # lower than any kept before, else this search would not have run
            return None
        self.best[line] = best[1]
        return best[1]


def _aligned(source: list[str], paragraphs: _Paragraphs, threshold: float = 0.0) -> float:
    """Length-weighted mean, over source paragraphs, of their best ratio against any target paragraph: exact when it
    reaches ``threshold``, else a value below it (the search stops once the mean cannot reach it)."""
    remaining = sum(map(len, source))
    total = remaining or 1
    matched = 0.0
    for line in source:
        remaining -= len(line)
        if line in paragraphs.verbatim:  # 100, the best any could score
            matched += len(line) * 1.0
            continue
        # The least this paragraph must score for the mean to reach the threshold (rapidfuzz skips targets below it).
        needed = (threshold * total - matched - remaining) / len(line) if line else 0.0
        cutoff = max(needed * 100 - _CUTOFF_MARGIN, 0.0)
        score = paragraphs.best_score(line, cutoff)
        if score is None:
            if cutoff > 0:
                return (matched + remaining) / total  # below the threshold
            score = 0.0
        matched += len(line) * (score / 100)
    return matched / total


def near_duplicate_pairs(
    texts: Sequence[str] | Sequence[bytes],
    threshold: float,
    workers: int = 1,
    *,
    prepare: Callable[[Any], str],
    min_estimated_jaccard: float = 0.0,
    pool: WorkerPool | None = None,
    signatures: np.ndarray | None = None,
    log: Callable[[str], None] | None = None,
    known: Callable[[int, int], float | None] | None = None,
    lengths: Sequence[int] | None = None,
    verified: list[tuple[int, int, float]] | None = None,
) -> list[tuple[int, int, float]]:
    """Pairs (i, j, score), i < j, of texts whose similarity is >= threshold, wherever they are, that join groups:
    pairs whose texts verified pairs join already are skipped, so the groups (:func:`connected_components`) are
    those of every pair, whatever ``workers``.

    ``prepare`` (top-level, for the workers) normalizes a text on demand; texts are bytes when it takes bytes
    (:func:`decoded`). Work runs on ``pool`` (:func:`worker_pool`), else on ``workers`` processes from
    ``PARALLEL_FROM`` texts on. A band-sharing pair is verified only if its signatures agree on at least
    ``min_estimated_jaccard`` of their values. ``signatures`` (a row of :func:`minhash_values` per prepared text)
    spare computing them; ``log`` hears the progress. ``known(i, j)``: a pair's score from an earlier verification
    at the same threshold, or None. Every pair verified or known goes to ``verified`` with its score. ``lengths`` (a
    cost per text) order the blocks without reading texts.
    """
    if threshold >= 1.0 or len(texts) < 2:
        return []
    with nullcontext(pool) if pool is not None else worker_pool(workers, len(texts)) as pool:
        if signatures is None:
            signatures = _signature_matrix(texts, prepare, pool)
        candidates, agreement = _candidates(signatures, min_estimated_jaccard)
        del signatures
        jobs = _verification_jobs(texts, candidates, prepare, threshold, agreement, known, lengths)
        blocks = pool.map_unordered(_verify_counted, jobs) if pool else map(_verify_counted, jobs)
        progress = Progress("dedup: near-duplicate candidates verified", len(candidates), log, unit="pairs")
        pairs: list[tuple[int, int, float]] = []
        for block, size in blocks:
            pairs.extend(pair for pair in block if pair[2] >= threshold)
            if verified is not None:
                verified.extend(block)
            progress.advance(size)
        return sorted(pairs)


def worker_pool(workers: int, size: int) -> AbstractContextManager[WorkerPool | None]:
    """The processes that :func:`near_duplicate_pairs` and :func:`map_text_blocks` share for ``size`` texts: None
    (work in this process) below ``PARALLEL_FROM`` texts or with one worker."""
    # Fresh interpreters: a fork of the corpus step would map its memory again in each worker's RSS.
    return WorkerPool(workers) if workers > 1 and size > PARALLEL_FROM else nullcontext()


def map_text_blocks(
    function: Callable[[list[str]], list[Result]],
    texts: Iterable[str],
    pool: WorkerPool | None,
    workers: int,
    costs: Sequence[int] | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[Result]:
    """``function`` (top-level) of blocks of texts, a result per text, in order: on ``pool``'s workers, else one
    block of every text in this process. ``progress(count)`` hears each block's count. With ``costs`` (each text's
    expected work), blocks shrink with the work left, so that no worker idles while another finishes a long one.
    """
    if pool is None:
        blocks: Iterable[list[Result]] = [function(list(texts))]
    else:
        sizes = _guided_sizes(costs, workers) if costs is not None else None
        blocks = pool.map(_map_block, _text_jobs(function, texts, sizes))
    results: list[Result] = []
    for block in blocks:
        results.extend(block)
        if progress is not None:
            progress(len(block))
    return results


def _guided_sizes(costs: Sequence[int], workers: int) -> list[int]:
    """How many texts each block takes, in order: at most ``_CHUNK``, and texts up to a ``_GUIDED_SHARE`` of a
    worker's part of the cost left, but never less than a ``_GUIDED_FLOOR``th of the whole (at least one text)."""
    total = sum(costs)
    left, floor = total, total / _GUIDED_FLOOR
    sizes: list[int] = []
    start = 0
    while start < len(costs):
        target = max(left * _GUIDED_SHARE / max(workers, 1), floor)
        end, cost = start + 1, costs[start]
        while end < len(costs) and end - start < _CHUNK and cost + costs[end] <= target:
            cost += costs[end]
            end += 1
        sizes.append(end - start)
        left -= cost
        start = end
    return sizes


def _text_jobs(
    function: Callable[[list], Any], texts: Iterable, sizes: Sequence[int] | None = None
) -> Iterator[tuple[Callable[[list], Any], list]]:
    """Blocks of ``sizes`` texts (else of ``_CHUNK``), read only as each is sent."""
    iterator = iter(texts)
    for size in chain(sizes or (), repeat(_CHUNK)):
        chunk = list(islice(iterator, size))
        if not chunk:
            return
        yield function, chunk


def content_keys_signatures_and_forms(texts: list[str]) -> list[tuple[str, np.ndarray, bytes]]:
    """Each text's :func:`~corpus_pipeline.dedup.normalize.content_key`, the :func:`minhash_values` of its
    :func:`~corpus_pipeline.dedup.normalize.normalize_paragraphs` and those paragraphs UTF-8 encoded (less memory
    than the string; see :func:`decoded`). Each distinct line of the block is normalized and hashed once: copies
    and translations of a page share many lines.
    """
    memo: dict[str, _Line] = {}
    return [_keyed(text, memo) for text in texts]


class _Line:
    """A line as the keys and signatures see it: normalized, its UTF-8 words, its own shingles' SHA-1 digests."""

    __slots__ = ("normalized", "words", "digests")

    def __init__(self, line: str) -> None:
        self.normalized = normalize_content(line)
        self.words = next(_line_words(self.normalized)).split()
        self.digests = _shingle_digests(self.words)


def _keyed(text: str, memo: dict[str, _Line]) -> tuple[str, np.ndarray, bytes]:
    """:func:`content_keys_signatures_and_forms` of one text, its lines from (and added to) ``memo``."""
    # Blank lines skipped, as normalize_paragraphs skips them.
    lines = [memo[raw] if raw in memo else memo.setdefault(raw, _Line(raw)) for raw in text.split("\n") if raw.strip()]
    paragraphs = "\n".join([line.normalized for line in lines])
    key = content_key_of_paragraphs(paragraphs)
    if sum(len(line.words) for line in lines) < SHINGLE_WORDS:  # a short text's shingles are its words
        return key, minhash_values(paragraphs), paragraphs.encode("utf-8", "surrogatepass")
    digests: list[bytes] = []
    before: list[bytes] = []  # the text's last SHINGLE_WORDS - 1 words before this line
    for line in lines:
        words = line.words
        if not words:
            continue
        digests.append(line.digests)
        # The shingles that start before the line and end within it.
        around = before + words[: SHINGLE_WORDS - 1]
        digests.append(_shingle_digests(around))
        before = around[-(SHINGLE_WORDS - 1) :] if len(words) < SHINGLE_WORDS - 1 else words[-(SHINGLE_WORDS - 1) :]
    return key, _minhash_of(_first_words(b"".join(digests))), paragraphs.encode("utf-8", "surrogatepass")


def decoded(form: bytes) -> str:
    """A form that :func:`content_keys_signatures_and_forms` encoded, as the text it was."""
    return form.decode("utf-8", "surrogatepass")


def _map_block(job: tuple[Callable[[list], Result], list]) -> Result:
    function, texts = job
    return function(texts)


def _verification_jobs(
    texts: Sequence[str] | Sequence[bytes], candidates: list[tuple[int, int]], prepare: Callable[[Any], str],
    threshold: float,
    agreement: np.ndarray,
    known: Callable[[int, int], float | None] | None = None,
    lengths: Sequence[int] | None = None,
) -> Iterator[tuple]:
    """Blocks of candidate pairs with only the texts they need (a job is pickled) and the scores ``known`` gives: whole
    components of the candidate graph (a big one alone), each's pairs from the most alike (``agreement``) down."""
    blocks = list(_blocks(_by_component(candidates, len(texts), agreement)))
    # The costliest blocks first, so that the last ones, which a worker may run while the others idle, are short.
    costs = lengths if lengths is not None else [len(text) for text in texts]
    blocks.sort(key=lambda block: -sum(costs[i] + costs[j] for i, j in block))
    for block in blocks:
        scores = {pair: score for pair in block if (score := known(*pair)) is not None} if known is not None else {}
        needed = {i: texts[i] for pair in block for i in pair} if _reads_texts(block, scores, threshold) else {}
        yield block, needed, prepare, threshold, scores


def _blocks(ordered: list[tuple[int, tuple[int, int]]]) -> Iterator[list[tuple[int, int]]]:
    """The pairs, ordered by component, in blocks of about ``_PAIRS_PER_JOB`` cut between components only."""
    block: list[tuple[int, int]] = []
    for _, pairs in groupby(ordered, key=lambda item: item[0]):
        members = [pair for _, pair in pairs]
        if block and len(block) + len(members) > _PAIRS_PER_JOB:
            yield block
            block = []
        block.extend(members)
    if block:
        yield block


def _reads_texts(block: list[tuple[int, int]], scores: dict[tuple[int, int], float], threshold: float) -> bool:
    """Whether :func:`_verify_block` will verify a pair of ``block`` that ``scores`` does not score."""
    return any(score is None for *_, score in _joining(block, lambda i, j: scores.get((i, j)), threshold, _Joined()))


class _Joined(dict[int, int]):
    """Union-find over texts, by text: the text it was joined to (a group's root, its smallest text, has none)."""

    def root(self, node: int) -> int:
        """The smallest text of ``node``'s group."""
        while self.get(node, node) != node:
            self[node] = self.get(self[node], self[node])  # path halving
            node = self[node]
        return node

    def join(self, a: int, b: int) -> None:
        """Make one group of the groups of ``a`` and ``b``."""
        a, b = self.root(a), self.root(b)
        if a != b:
            self[max(a, b)] = min(a, b)


def _joining(
    block: list[tuple[int, int]], score: Callable[[int, int], Score], threshold: float, joined: _Joined
) -> Iterator[tuple[int, int, Score]]:
    """The pairs of ``block`` in order with ``score(i, j)``, but those whose texts the pairs before that reach the
    threshold join already (in ``joined``)."""
    for i, j in block:
        if joined.root(i) != joined.root(j):
            value = score(i, j)
            yield i, j, value
            if value is not None and value >= threshold:
                joined.join(i, j)


def _by_component(
    candidates: list[tuple[int, int]], size: int, agreement: np.ndarray
) -> list[tuple[int, tuple[int, int]]]:
    """The candidate pairs with their component's number (components in the order of their smallest text index),
    ordered by component, then by decreasing ``agreement``, then by pair."""
    component = {}
    for number, members in enumerate(connected_components(size, candidates)):
        component.update(dict.fromkeys(members, number))
    alike = agreement.tolist()
    keyed = sorted(zip(candidates, alike, strict=True), key=lambda item: (component[item[0][0]], -item[1], item[0]))
    return [(component[pair[0]], pair) for pair, _ in keyed]


def connected_components(size: int, pairs: Iterable[tuple[int, int] | tuple[int, int, float]]) -> list[list[int]]:
    """Connected components of the graph of ``size`` nodes whose edges are the pairs' first two items (union-find);
    each component's nodes in order, components in the order of their smallest node."""
    joined = _Joined()
    for i, j, *_ in pairs:
        joined.join(i, j)
    components: dict[int, list[int]] = {}
    for node in range(size):
        components.setdefault(joined.root(node), []).append(node)
    return list(components.values())


class _Distances:
    """The Indel distances a verification block has measured, to show some pairs' direct ratios below the threshold
    without computing them: ``d(x, y) >= d(z, y) - d(z, x)``, so a copy near one measured far from a translation is
    far too, shown by the cheap distance between the copies. ``text`` gives a block text's prepared form, ``root``
    its group of joined texts so far, ``partners`` its candidates in the block."""

    def __init__(self, text: Callable[[int], str], root: Callable[[int], int], partners: dict[int, list[int]]):
        self.text, self.root, self.partners = text, root, partners
        self.far: dict[int, dict[int, int]] = {}  # by text, by other text: a lower bound of their distance
        self.near: dict[tuple[int, int], tuple[int, bool]] = {}  # by pair: its distance, or a lower bound (False)

    def ratio(self, i: int, j: int, threshold: float) -> Callable[[str, str, float, float], float]:
        """:func:`_ratio` for the pair of texts ``i`` and ``j`` (prepared as ``a`` and ``b``)."""

        def ratio(a: str, b: str, cutoff: float, bound: float) -> float:
            if bound < cutoff or cutoff > threshold or threshold <= 0:
                return _ratio(a, b, cutoff, bound)  # decided by the bound, or the alignment passed already
            length = len(a) + len(b)
            # The ratio 1 - d / length fails when d > limit: shown with two units to spare for floating point.
            limit = (1 - threshold) * length
            shown = self._shown_far(i, j, limit) or self._shown_far(j, i, limit)
            if shown is not None:
                return 1 - shown / length
            if self._has_siblings(i, j):
                # Measured wider than the threshold needs, to show its siblings' pairs far.
                measured = Indel.distance(a, b, score_cutoff=math.ceil(_MEASURED_WIDTH * limit))
                self.far.setdefault(i, {})[j] = self.far.setdefault(j, {})[i] = measured
                if measured > limit + 2:
                    return 1 - measured / length
            return _ratio(a, b, cutoff, bound)

        return ratio

    def _shown_far(self, x: int, y: int, limit: float) -> int | None:
        """A lower bound of ``d(x, y)`` above ``limit + 2`` through a text joined to ``x`` whose distance to
        ``y`` was measured, or None."""
        for z, far in self.far.get(y, {}).items():
            spare = math.floor(far - limit) - 3  # d(z, x) up to this shows d(x, y) >= far - spare > limit + 2
            if z == x or spare < 0 or self.root(z) != self.root(x):
                continue
            near = self._distance_up_to(z, x, spare)
            if near is not None:
                return far - near
        return None

    def _distance_up_to(self, x: int, y: int, most: int) -> int | None:
        """``d(x, y)`` when it is at most ``most``, else None."""
        key = (min(x, y), max(x, y))
        known = self.near.get(key)
        if known is not None and (known[1] or known[0] > most):
            return known[0] if known[0] <= most else None
        distance = Indel.distance(self.text(x), self.text(y), score_cutoff=most)
        self.near[key] = (distance, True) if distance <= most else (most + 1, False)
        return distance if distance <= most else None

    def _has_siblings(self, i: int, j: int) -> bool:
        """Whether another candidate of ``j`` is joined to ``i`` already, or another of ``i`` to ``j``."""
        return any(k != i and self.root(k) == self.root(i) for k in self.partners.get(j, ())) or any(
            k != j and self.root(k) == self.root(j) for k in self.partners.get(i, ())
        )


def _verify_counted(job: tuple) -> tuple[list[tuple[int, int, float]], int]:
    """:func:`_verify_block`, and how many candidate pairs the job held (for the progress of the search)."""
    return _verify_block(job), len(job[0])


def _verify_block(job: tuple) -> list[tuple[int, int, float]]:
    """The candidate pairs of ``job`` with their similarity (exact when it reaches the threshold, else a value below
    it), in order, but those whose texts the block's passed pairs join already; a pair it scores keeps its score."""
    candidates, texts, prepare, threshold, scores = job
    joined = _Joined()
    paragraphs_of = cache(_paragraphs_of)

    @cache
    def text(index: int) -> tuple[str, tuple[np.ndarray, np.ndarray]]:
        normalized = prepare(texts[index])
        return normalized, _characters(normalized)

    partners: dict[int, list[int]] = {}
    for i, j in candidates:
        partners.setdefault(i, []).append(j)
        partners.setdefault(j, []).append(i)
    distances = _Distances(lambda index: text(index)[0], joined.root, partners)

    def score(i: int, j: int) -> float:
        known = scores.get((i, j))
        if known is not None:
            return known
        (a, characters_a), (b, characters_b) = text(i), text(j)
        bound = _ratio_bound(characters_a, characters_b, len(a) + len(b)) if threshold > 0 else 1.0
        return _similarity(a, b, threshold, bound, paragraphs_of, distances.ratio(i, j, threshold))

    return list(_joining(candidates, score, threshold, joined))


def _signature_matrix(
    texts: Sequence[str] | Sequence[bytes], prepare: Callable[[Any], str], pool: WorkerPool | None
) -> np.ndarray:
    matrix = np.empty((len(texts), NUM_PERM), dtype=np.uint64)
    jobs = _text_jobs(partial(_signatures, prepare), texts)
    blocks = pool.map(_map_block, jobs) if pool is not None else map(_map_block, jobs)
    for start, block in zip(range(0, len(texts), _CHUNK), blocks, strict=True):
        matrix[start : start + len(block)] = block
    return matrix


def _signatures(prepare: Callable[[Any], str], texts: list) -> np.ndarray:
    return np.stack([minhash_values(prepare(text)) for text in texts])


def _candidates(signatures: np.ndarray, min_estimated_jaccard: float) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Index pairs (i, j), i < j, in order, that share a band and whose signatures agree on at least
    ``min_estimated_jaccard`` of their values, and how many values each pair's signatures share."""
    codes = np.empty(0, dtype=np.int64)
    for band in range(BANDS):
        codes = np.union1d(codes, _band_pairs(signatures, band))
    first, second = np.divmod(codes, len(signatures))
    agreement = _shared_values(signatures, first, second)
    agreeing = agreement >= np.ceil(min_estimated_jaccard * NUM_PERM - _CUTOFF_MARGIN)
    return list(zip(first[agreeing].tolist(), second[agreeing].tolist(), strict=True)), agreement[agreeing]


def _band_pairs(signatures: np.ndarray, band: int) -> np.ndarray:
    """The numbers (``i * len(signatures) + j``) of the pairs of documents that share a bucket of ``band`` (buckets
    of two to ``MAX_BUCKET`` documents)."""
    columns = signatures[:, band * ROWS : (band + 1) * ROWS]
    keys = np.bitwise_xor.reduce(columns * _MIX[:ROWS], axis=1)
    order = np.argsort(keys, kind="stable")
    change = np.flatnonzero(np.diff(keys[order])) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [len(keys)]))
    shared = ((ends - starts) > 1) & ((ends - starts) <= MAX_BUCKET)
    starts, ends = starts[shared], ends[shared]
    # Each position of those buckets in sort order, paired with the positions after it in its bucket.
    sizes = ends - starts
    positions = np.repeat(starts, sizes) + _offsets(sizes)
    later = np.repeat(ends, sizes) - positions - 1
    left = np.repeat(positions, later)
    right = left + 1 + _offsets(later)
    a, b = order[left].astype(np.int64), order[right].astype(np.int64)
    return np.minimum(a, b) * len(keys) + np.maximum(a, b)


def _offsets(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., count - 1 for each count, concatenated."""
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def _shared_values(signatures: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """How many values the signatures of rows ``first[k]`` and ``second[k]`` share, for each k."""
    counts = np.empty(len(first), dtype=np.int64)
    for start in range(0, len(first), _AGREEMENT_CHUNK):  # a chunk's two gathered signature blocks: ~64 MB
        end = start + _AGREEMENT_CHUNK
        counts[start:end] = (signatures[first[start:end]] == signatures[second[start:end]]).sum(axis=1)
    return counts
