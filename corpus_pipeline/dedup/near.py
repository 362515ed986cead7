"""Near duplicates anywhere in a corpus: MinHash/LSH candidates, verified with an edit-distance ratio.

Candidates come from banded MinHash signatures, computed on all cores and bucketed one band at a
time with numpy (memory: one signature matrix plus one band of keys), so duplicates are found
whatever their distance in URL order. Each candidate pair is then verified with the reference's
rule, a normalized Indel similarity >= threshold.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from itertools import islice
from multiprocessing import get_context

import numpy as np
from datasketch import MinHash
from rapidfuzz import fuzz, process

SHINGLE_WORDS = 5
BANDS, ROWS = 42, 3  # 126 permutations; a pair with shingle Jaccard 0.43 becomes a candidate 97 % of the time
NUM_PERM = BANDS * ROWS
MAX_BUCKET = 500  # a bucket bigger than this holds boilerplate-only pages: compare them by exact content instead
_WORD = re.compile(r"\w+")
_MIX = np.array([0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9], dtype=np.uint64)
_CHUNK = 512
# Below this many texts a pool costs more than it saves (the signatures of 2,000 texts take ~6 s of one core).
PARALLEL_FROM = 2000
_PAIRS_PER_JOB = 256  # candidate pairs per verification job: ~0.6 s of work (2.4 ms a pair, Debian handbook)
# Workers are fresh interpreters: a fork of the corpus step would map its memory again in each worker's RSS.
START_METHOD = "spawn"
_CUTOFF_MARGIN = 1e-6
_AGREEMENT_CHUNK = 32768  # candidate pairs whose signatures are compared at once
# datasketch's default MinHash (affine32): SHA-1's first 4 bytes, MurmurHash3's 32-bit finalizer, then
# h -> a * h + b mod 2**32 per permutation. minhash_values computes the same values with numpy over all
# shingles at once (datasketch hashes and converts them one Python call at a time: 2.4 ms a 3 KB text vs 1.4).
_A, _B = MinHash(num_perm=NUM_PERM).permutations
_A.flags.writeable = _B.flags.writeable = False
_FMIX_SHIFTS = (np.uint32(16), np.uint32(13), np.uint32(16))
_FMIX_MULTIPLIERS = (np.uint32(0x85EBCA6B), np.uint32(0xC2B2AE35))
_EMPTY_SIGNATURE = MinHash(num_perm=NUM_PERM).hashvalues.astype(np.uint64)
_EMPTY_SIGNATURE.flags.writeable = False
_SHA1_WORDS = 5  # a SHA-1 digest is five 32-bit words


def shingles(text: str) -> set[bytes]:
    """Word n-grams of a normalized text (short texts give one shingle per word)."""
    words = _WORD.findall(text)
    if len(words) < SHINGLE_WORDS:
        return {w.encode() for w in words}
    grams = zip(*(words[i:] for i in range(SHINGLE_WORDS)), strict=False)  # runs of SHINGLE_WORDS words
    return set(map(str.encode, set(map(" ".join, grams))))


def minhash_values(text: str) -> np.ndarray:
    """The MinHash values of a normalized text's shingles: datasketch's ``MinHash(num_perm=NUM_PERM)`` after
    ``update_batch`` of the shingles, bit for bit."""
    grams = shingles(text)
    if not grams:
        return _EMPTY_SIGNATURE.copy()
    sha1 = hashlib.sha1
    digests = b"".join([sha1(gram).digest() for gram in grams])
    hashes = np.frombuffer(digests, dtype="<u4")[::_SHA1_WORDS].astype(np.uint32)
    (s1, s2, s3), (m1, m2) = _FMIX_SHIFTS, _FMIX_MULTIPLIERS
    hashes ^= hashes >> s1
    hashes *= m1
    hashes ^= hashes >> s2
    hashes *= m2
    hashes ^= hashes >> s3
    return (hashes[:, None] * _A + _B).min(axis=0).astype(np.uint64)


def similarity(a: str, b: str, threshold: float = 0.0) -> float:
    """The reference's rule (normalized Indel similarity), or the same on aligned paragraphs when they were reordered.

    Texts are paragraphs separated by newlines. Paragraph alignment pairs each paragraph with its most similar
    counterpart, in both directions, and keeps the weaker direction, so a page that shares only half of its
    paragraphs with another stays well below any sensible threshold.

    A score of ``threshold`` or more is exact; one below it is only known to be below it (work is cut short:
    rapidfuzz stops an edit distance that cannot reach the threshold, and the second direction is not scored).
    """
    if not a or not b:
        return 0.0
    if 2 * min(len(a), len(b)) / (len(a) + len(b)) < 0.5:
        return 0.0
    # rapidfuzz returns 0 under its cutoff: the margin keeps a ratio of exactly threshold x 100 (90.0 for 0.9,
    # whose product is 90.00000000000001 in floating point) from being cut.
    direct = fuzz.ratio(a, b, score_cutoff=max(threshold * 100 - _CUTOFF_MARGIN, 0.0)) / 100
    lines_a, lines_b = a.split("\n"), b.split("\n")
    if len(lines_a) < 2 or len(lines_b) < 2:
        return direct
    forward = _aligned(lines_a, lines_b, threshold)
    if forward < threshold and direct < threshold:
        return max(direct, forward)  # the weaker direction can only be lower
    return max(direct, min(forward, _aligned(lines_b, lines_a, threshold)))


def _aligned(source: list[str], target: list[str], threshold: float = 0.0) -> float:
    """Length-weighted mean, over source paragraphs, of their best ratio against any target paragraph.

    Exact when it reaches ``threshold``; otherwise only known to be below it: the search stops once even perfect
    matches of the remaining paragraphs could not lift the mean to ``threshold`` (most candidate pairs that fail).
    """
    total = sum(len(line) for line in source) or 1
    verbatim = set(target)
    matched = 0.0
    remaining = sum(len(line) for line in source)
    for line in source:
        if matched + remaining < threshold * total - _CUTOFF_MARGIN:
            return (matched + remaining) / total  # an upper bound, below the threshold
        remaining -= len(line)
        # A paragraph found word for word scores 100, the best any could: no need to search (untranslated copies
        # of a page in 20 languages share most of their paragraphs; this search was most of the corpus stage).
        if line in verbatim:
            matched += len(line) * 1.0
            continue
        best = process.extractOne(line, target, scorer=fuzz.ratio)
        matched += len(line) * (best[1] / 100 if best else 0.0)
    return matched / total


def near_duplicate_pairs(
    texts: Sequence[str],
    threshold: float,
    workers: int = 1,
    prepare: Callable[[str], str] | None = None,
    *,
    min_estimated_jaccard: float = 0.0,
) -> list[tuple[int, int, float]]:
    """Pairs (i, j, score), i < j, of texts whose similarity is >= threshold, wherever they are.

    ``prepare`` normalizes a text before shingling and verification (a top-level function, so
    that worker processes can use it); it runs again on demand rather than keeping copies.
    Signatures and verifications run on ``workers`` processes from ``PARALLEL_FROM`` texts on.
    A pair that shares a band is verified only if its signatures agree on at least ``min_estimated_jaccard`` of
    their values (the MinHash estimate of its shingle Jaccard); 0 verifies every pair that shares a band.
    """
    if threshold >= 1.0 or len(texts) < 2:
        return []
    prepare = prepare or _identity
    parallel = workers > 1 and len(texts) > PARALLEL_FROM
    with ProcessPoolExecutor(workers, mp_context=get_context(START_METHOD)) if parallel else nullcontext() as pool:
        candidates = _candidates(_signature_matrix(texts, prepare, pool, workers), min_estimated_jaccard)
        if pool is None:
            return _verify_block((candidates, texts, prepare, threshold))
        jobs = _verification_jobs(texts, candidates, prepare, threshold)
        return [pair for block in _map_in_windows(pool, _verify_block, jobs, workers) for pair in block]


def _verification_jobs(
    texts: Sequence[str], candidates: list[tuple[int, int]], prepare: Callable[[str], str], threshold: float
) -> Iterator[tuple]:
    """Blocks of consecutive candidate pairs, each with the texts it needs (no more: the job is pickled)."""
    for start in range(0, len(candidates), _PAIRS_PER_JOB):
        block = candidates[start : start + _PAIRS_PER_JOB]
        needed = {index: texts[index] for pair in block for index in pair}
        yield block, needed, prepare, threshold


def _verify_block(job: tuple) -> list[tuple[int, int, float]]:
    """The candidate pairs of ``job`` whose similarity reaches the threshold, in the order given; its texts are
    a sequence or a dict, by index."""
    candidates, texts, prepare, threshold = job
    prepared: dict[int, str] = {}

    def text(index: int) -> str:
        if index not in prepared:
            prepared[index] = prepare(texts[index])
        return prepared[index]

    pairs = []
    for i, j in candidates:
        score = similarity(text(i), text(j), threshold)
        if score >= threshold:
            pairs.append((i, j, score))
    return pairs


def _map_in_windows(pool: ProcessPoolExecutor, function: Callable, jobs: Iterator, workers: int) -> Iterator:
    """``pool.map`` a few jobs at a time, so that the jobs' texts are not all pickled and held at once."""
    while window := list(islice(jobs, 2 * workers)):
        yield from pool.map(function, window)


def _identity(text: str) -> str:
    return text


def _signature_matrix(
    texts: Sequence[str], prepare: Callable[[str], str], pool: ProcessPoolExecutor | None, workers: int
) -> np.ndarray:
    matrix = np.empty((len(texts), NUM_PERM), dtype=np.uint64)
    if pool is not None:
        blocks = _map_in_windows(pool, _signature_block, _chunks(texts, prepare), workers)
        for start, block in zip(range(0, len(texts), _CHUNK), blocks, strict=True):
            matrix[start : start + len(block)] = block
    else:
        for start in range(0, len(texts), _CHUNK):
            block = _signature_block((list(texts[start : start + _CHUNK]), prepare))
            matrix[start : start + len(block)] = block
    return matrix


def _chunks(texts: Sequence[str], prepare) -> Iterator[tuple[list[str], Callable[[str], str]]]:
    iterator = iter(texts)
    while chunk := list(islice(iterator, _CHUNK)):
        yield chunk, prepare


def _signature_block(job: tuple[list[str], Callable[[str], str]]) -> np.ndarray:
    texts, prepare = job
    return np.stack([minhash_values(prepare(text)) for text in texts]) if texts else np.empty((0, NUM_PERM), np.uint64)


def _candidates(signatures: np.ndarray, min_estimated_jaccard: float = 0.0) -> list[tuple[int, int]]:
    """Index pairs (i, j), i < j, in order, that share at least one band and whose signatures agree on at least
    ``min_estimated_jaccard`` of their values.

    Pairs are numbered ``i * len(signatures) + j`` and gathered band by band with numpy: a band's buckets of a few
    hundred documents (pages sharing template lines) cost arrays, not Python tuples.
    """
    codes = np.empty(0, dtype=np.int64)
    for band in range(BANDS):
        codes = np.union1d(codes, _band_pairs(signatures, band))
    codes = _agreeing(signatures, codes, min_estimated_jaccard)
    first, second = np.divmod(codes, max(len(signatures), 1))
    return list(zip(first.tolist(), second.tolist(), strict=True))


def _band_pairs(signatures: np.ndarray, band: int) -> np.ndarray:
    """The numbers of the pairs of documents that fall in the same bucket of ``band`` (buckets of two documents up
    to ``MAX_BUCKET``), bucketed with a sort."""
    columns = signatures[:, band * ROWS : (band + 1) * ROWS]
    keys = np.bitwise_xor.reduce(columns * _MIX[:ROWS], axis=1)
    order = np.argsort(keys, kind="stable")
    change = np.flatnonzero(np.diff(keys[order])) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [len(keys)]))
    shared = ((ends - starts) > 1) & ((ends - starts) <= MAX_BUCKET)
    starts, ends = starts[shared], ends[shared]
    # Every position of those buckets in sort order, each paired with the positions after it in its bucket.
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


def _agreeing(signatures: np.ndarray, codes: np.ndarray, min_estimated_jaccard: float) -> np.ndarray:
    """The pairs among ``codes`` whose signatures agree on at least ``min_estimated_jaccard`` of their values."""
    if min_estimated_jaccard <= 0.0 or not len(codes):
        return codes
    needed = np.ceil(min_estimated_jaccard * NUM_PERM - _CUTOFF_MARGIN)
    kept = np.empty(len(codes), dtype=bool)
    for start in range(0, len(codes), _AGREEMENT_CHUNK):  # a chunk's two gathered signature blocks: ~64 MB
        first, second = np.divmod(codes[start : start + _AGREEMENT_CHUNK], len(signatures))
        kept[start : start + len(first)] = (signatures[first] == signatures[second]).sum(axis=1) >= needed
    return codes[kept]
