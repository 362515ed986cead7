"""Near duplicates anywhere in a corpus: MinHash/LSH candidates, verified with an edit-distance ratio."""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from datasketch import LeanMinHash, MinHash, MinHashLSH
from rapidfuzz import fuzz, process

SHINGLE_WORDS = 5
NUM_PERM = 128
LSH_THRESHOLD = 0.3  # generous: candidates are cheap to verify, misses are not recoverable
_WORD = re.compile(r"\w+")


def shingles(text: str) -> set[bytes]:
    """Word n-grams of a normalized text (short texts give one shingle per word)."""
    words = _WORD.findall(text)
    if len(words) < SHINGLE_WORDS:
        return {w.encode() for w in words}
    return {" ".join(words[i : i + SHINGLE_WORDS]).encode() for i in range(len(words) - SHINGLE_WORDS + 1)}


def minhash_signature(text: str) -> LeanMinHash:
    """MinHash of a text's shingles (the lean form: small to send between processes)."""
    signature = MinHash(num_perm=NUM_PERM)
    grams = shingles(text)
    if grams:
        signature.update_batch(list(grams))
    return LeanMinHash(signature)


def similarity(a: str, b: str) -> float:
    """The reference's rule (normalized Indel similarity), or the same on aligned paragraphs when they were reordered.

    Texts are paragraphs separated by newlines. Paragraph alignment pairs each paragraph with its most similar
    counterpart, in both directions, and keeps the weaker direction, so a page that shares only half of its
    paragraphs with another stays well below any sensible threshold.
    """
    if not a or not b:
        return 0.0
    if 2 * min(len(a), len(b)) / (len(a) + len(b)) < 0.5:
        return 0.0
    direct = fuzz.ratio(a, b) / 100
    lines_a, lines_b = a.split("\n"), b.split("\n")
    if len(lines_a) < 2 or len(lines_b) < 2:
        return direct
    return max(direct, min(_aligned(lines_a, lines_b), _aligned(lines_b, lines_a)))


def _aligned(source: list[str], target: list[str]) -> float:
    """Length-weighted mean, over source paragraphs, of their best ratio against any target paragraph."""
    total = sum(len(line) for line in source) or 1
    matched = 0.0
    for line in source:
        best = process.extractOne(line, target, scorer=fuzz.ratio)
        matched += len(line) * (best[1] / 100 if best else 0.0)
    return matched / total


def near_duplicate_pairs(texts: Sequence[str], threshold: float, workers: int = 1) -> list[tuple[int, int, float]]:
    """Pairs (i, j, score) of texts with similarity >= threshold, found wherever they are in the sequence."""
    if threshold >= 1.0 or len(texts) < 2:
        return []
    if workers > 1 and len(texts) > 2000:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            signatures = list(pool.map(minhash_signature, texts, chunksize=256))
    else:
        signatures = [minhash_signature(t) for t in texts]
    lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM)
    pairs = []
    for index, signature in enumerate(signatures):
        for other in lsh.query(signature):
            score = similarity(texts[other], texts[index])
            if score >= threshold:
                pairs.append((other, index, score))
        lsh.insert(index, signature)
    return pairs
