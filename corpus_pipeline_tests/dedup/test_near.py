"""Near-duplicate similarity: a threshold cuts work short without changing any decision or kept score."""

import random
import re

import numpy as np
from datasketch import MinHash
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz
from rapidfuzz.distance.Indel import distance as Indel_distance

from corpus_pipeline.dedup.near import (
    _CHUNK,
    NUM_PERM,
    PARALLEL_FROM,
    SHINGLE_WORDS,
    _aligned,
    _characters,
    _Distances,
    _guided_sizes,
    _Paragraphs,
    _paragraphs_of,
    _ratio,
    _ratio_bound,
    _reads_texts,
    _similarity,
    _verify_block,
    connected_components,
    content_keys_signatures_and_forms,
    map_text_blocks,
    minhash_values,
    near_duplicate_pairs,
    worker_pool,
)
from corpus_pipeline.dedup.normalize import content_key, normalize_paragraphs

WORDS = st.sampled_from("apt cache policy package install debian the a of to".split())
PARAGRAPHS = st.lists(st.lists(WORDS, min_size=1, max_size=12).map(" ".join), min_size=1, max_size=6)


def similarity(a: str, b: str, threshold: float = 0.0) -> float:
    """The near-duplicate rule on two texts, bounded by their characters as a verification block bounds it."""
    bound = _ratio_bound(_characters(a), _characters(b), len(a) + len(b)) if threshold > 0 else 1.0
    return _similarity(a, b, threshold, bound, _paragraphs_of, _ratio)


def shingles(text: str) -> set[bytes]:
    """The shingles, spelt out: a normalized text's runs of SHINGLE_WORDS words (a short text's words), encoded."""
    words = re.findall(r"\w+", text)
    if len(words) < SHINGLE_WORDS:
        return {word.encode() for word in words}
    return {" ".join(words[k : k + SHINGLE_WORDS]).encode() for k in range(len(words) - SHINGLE_WORDS + 1)}


def content_key_signature_and_form(text: str) -> tuple[str, np.ndarray, bytes]:
    """One text's key, signature and form, without the block's memo of lines."""
    paragraphs = normalize_paragraphs(text)
    return content_key(text), minhash_values(paragraphs), paragraphs.encode("utf-8", "surrogatepass")


def upper_each(texts: list[str]) -> list[str]:
    """A block function for the workers (top-level, so that they can import it)."""
    return [text.upper() for text in texts]


@settings(deadline=None)
@given(PARAGRAPHS, PARAGRAPHS, st.sampled_from([0.5, 0.8, 0.9, 0.95]))
def test_a_threshold_keeps_every_score_at_or_above_it_exact(first, second, threshold):
    a, b = "\n".join(first), "\n".join(second)
    exact, cut = similarity(a, b), similarity(a, b, threshold)
    assert (exact >= threshold) == (cut >= threshold)
    if exact >= threshold:
        assert cut == exact


def _best_alignment(source: list[str], target: list[str]) -> float:
    """Length-weighted mean of each source paragraph's best ratio against the target's: the rule, spelt out."""
    total = sum(map(len, source)) or 1
    return sum(len(line) * (max(fuzz.ratio(line, other) for other in target) / 100) for line in source) / total


@settings(deadline=None)
@given(PARAGRAPHS, PARAGRAPHS, st.sampled_from([0.0, 0.5, 0.9]))
def test_similarity_is_the_direct_ratio_or_the_weaker_alignment_whichever_is_higher(first, second, threshold):
    a, b = "\n".join(first), "\n".join(second)
    if 2 * min(len(a), len(b)) / (len(a) + len(b)) < 0.5:
        return  # too different in length to compare
    expected = fuzz.ratio(a, b) / 100
    if len(first) > 1 and len(second) > 1:
        expected = max(expected, min(_best_alignment(first, second), _best_alignment(second, first)))
    score = similarity(a, b, threshold)
    assert score == expected if expected >= threshold else score < threshold


@settings(deadline=None)
@given(st.lists(PARAGRAPHS, min_size=2, max_size=6), PARAGRAPHS, st.lists(st.sampled_from([0.0, 0.5, 0.8, 0.9]), min_size=6, max_size=6))
def test_searches_kept_for_a_target_across_pairs_align_as_fresh_searches_do(sources, target, thresholds):
    kept = _Paragraphs(target)  # one target's searches, reused by every source at every threshold, as a block does
    for source, threshold in zip(sources + sources[::-1], thresholds * 2, strict=False):
        fresh = _aligned(source, _Paragraphs(target), threshold)
        reused = _aligned(source, kept, threshold)
        assert (reused >= threshold) == (fresh >= threshold)
        if fresh >= threshold:
            assert reused == fresh == _aligned(source, _Paragraphs(target))


def _edited(text: str, rng: random.Random, edits: int) -> str:
    """``text`` with ``edits`` words replaced by random ones."""
    words = text.split(" ")
    for _ in range(edits):
        words[rng.randrange(len(words))] = rng.choice(["zork", "quux", "blib", "frob", "nerp", "tanq"])
    return " ".join(words)


def test_a_measured_distance_shows_a_near_copys_pair_below_the_threshold_without_computing_it():
    rng = random.Random(4)
    page = " ".join(rng.choice("apt cache policy package install debian the a of to".split()) for _ in range(400))
    copy, translation = _edited(page, rng, 3), _edited(page, rng, 90)
    texts = {0: page, 1: copy, 2: translation}
    joined = {1: 0}  # the page and its copy are joined already, as a block joins them before their translation
    distances = _Distances(texts.__getitem__, lambda index: joined.get(index, index), {0: [2], 1: [2], 2: [0, 1]})
    assert 80 < fuzz.ratio(page, translation) < 90 and 80 < fuzz.ratio(copy, translation) < 90
    first = distances.ratio(0, 2, 0.9)(page, translation, 0.9, 1.0)
    assert first < 0.9 and distances.far[2] == {0: Indel_distance(page, translation)}
    second = distances.ratio(1, 2, 0.9)(copy, translation, 0.9, 1.0)
    assert second < 0.9
    assert distances.near == {(0, 1): (Indel_distance(page, copy), True)}  # shown through the copy's distance


@settings(deadline=None)
@given(st.integers(0, 10_000), st.lists(st.integers(0, 60), min_size=3, max_size=7), st.sampled_from([0.8, 0.9]))
def test_a_block_decides_and_scores_every_pair_as_a_pair_alone_does(seed, edits, threshold):
    rng = random.Random(seed)
    page = "\n".join(" ".join(rng.choice("apt cache policy of to".split()) for _ in range(40)) for _ in range(4))
    texts = [_edited(page, rng, count) for count in edits]
    candidates = [(i, j) for i in range(len(texts)) for j in range(i + 1, len(texts))]
    alone = [(i, j, similarity(texts[i], texts[j], threshold)) for i, j in candidates]
    expected = [pair for pair in alone if pair[2] >= threshold]
    verified = _verify_block((candidates, texts, str, threshold, {}))
    connecting = [pair for pair in verified if pair[2] >= threshold]
    assert connected_components(len(texts), connecting) == connected_components(len(texts), expected)
    assert set(connecting) <= set(expected)
    # Some pairs' scores known from an earlier verification (last night's): the same pairs are verified and pass,
    # with the same scores; a block whose every pair is known reads no text.
    known = {(i, j): score for i, j, score in verified if rng.random() < 0.5}
    again = _verify_block((candidates, dict(enumerate(texts)), str, threshold, known))
    assert [(i, j) for i, j, _ in again] == [(i, j) for i, j, _ in verified]
    assert [pair for pair in again if pair[2] >= threshold] == connecting
    everything = {(i, j): score for i, j, score in verified}
    assert _verify_block((candidates, {}, str, threshold, everything)) == verified
    # The pairs it skips need no score for the block to go without its texts; one pair it verifies does.
    assert not _reads_texts(candidates, everything, threshold)
    assert _reads_texts(candidates, dict(list(everything.items())[1:]), threshold)


def test_a_ratio_of_exactly_the_threshold_is_kept():
    assert similarity("aaaaaaaaab", "aaaaaaaaac", 0.9) == 0.9


def test_reordered_paragraphs_are_near_duplicates_and_half_shared_pages_are_not():
    paragraphs = [f"paragraph number {n} of the page, with words of its own" for n in range(6)]
    assert similarity("\n".join(paragraphs), "\n".join(reversed(paragraphs)), 0.9) == 1.0
    other = [f"another text entirely, line {n}, about something else" for n in range(3)]
    assert similarity("\n".join(paragraphs), "\n".join(paragraphs[:3] + other), 0.9) < 0.9


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "délta", "ε", "日本", "x1", "_"]), max_size=40))
def test_minhash_values_are_datasketchs_minhash_of_the_shingles_bit_for_bit(words):
    text = " ".join(words)
    reference = MinHash(num_perm=NUM_PERM)
    grams = shingles(text)
    if grams:
        reference.update_batch(list(grams))
    assert np.array_equal(minhash_values(text), reference.hashvalues.astype(np.uint64))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab cé\n\t_1-,.!ΣσЖж日本\u0301\u00a0x\r😀٣", max_size=120))
def test_minhash_values_of_any_text_are_datasketchs_bit_for_bit(text):
    # Words found by bytes on ASCII lines and by the regex on the others, punctuation, marks and line breaks among
    # them: the same shingles as the regex over the whole text.
    reference = MinHash(num_perm=NUM_PERM)
    grams = shingles(text)
    if grams:
        reference.update_batch(list(grams))
    assert np.array_equal(minhash_values(text), reference.hashvalues.astype(np.uint64))


LINES = st.text(alphabet="ab cé \t_1-,.!ΣσЖж日本\u0301\u00a0xY\r😀٣", max_size=50)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=8), st.lists(st.lists(st.integers(0, 7), max_size=9), max_size=6))
def test_a_block_keys_and_signs_each_text_as_alone(lines, picks):
    # Texts made of lines drawn from a few, so that they share lines (the memo's hits), in any order, short ones and
    # blank ones among them: every key, signature and form is the text's own, and the signature datasketch's.
    texts = ["\n".join(lines[k % len(lines)] for k in pick) for pick in picks] + ["\n".join(lines)]
    block = content_keys_signatures_and_forms(texts)
    for text, (key, signature, form) in zip(texts, block, strict=True):
        alone = content_key_signature_and_form(text)
        assert key == alone[0] == content_key(text) and form == alone[2]
        assert np.array_equal(signature, alone[1])
        reference = MinHash(num_perm=NUM_PERM)
        grams = shingles(normalize_paragraphs(text))
        if grams:
            reference.update_batch(list(grams))
        assert np.array_equal(signature, reference.hashvalues.astype(np.uint64))


def test_shingles_are_five_word_runs_and_short_texts_give_their_words():
    assert shingles("one two three four five six") == {b"one two three four five", b"two three four five six"}
    assert shingles("one, two!") == {b"one", b"two"}


def test_pairs_found_on_worker_processes_are_the_pairs_found_in_this_one():
    rng = random.Random(3)
    words = [f"word{k}" for k in range(2000)]
    texts = ["\n".join(" ".join(rng.choices(words, k=12)) for _ in range(3)) for _ in range(PARALLEL_FROM + 40)]
    for n in range(0, 40, 4):  # near copies far apart, and exact ones
        texts[n] = texts[PARALLEL_FROM + n].replace("word", "Word", 1)
        texts[n + 1] = texts[PARALLEL_FROM + n + 1]
    serial = near_duplicate_pairs(texts, 0.9, prepare=str, workers=1)
    assert {(n, PARALLEL_FROM + n) for n in range(0, 40, 4)} <= {(i, j) for i, j, _ in serial}
    assert {(n + 1, PARALLEL_FROM + n + 1, 1.0) for n in range(0, 40, 4)} <= set(serial)
    assert near_duplicate_pairs(texts, 0.9, prepare=str, workers=2) == serial


def test_a_shared_pool_maps_texts_in_order_and_finds_the_pairs_of_one_process():
    rng = random.Random(5)
    words = [f"term{k}" for k in range(3000)]
    texts = [" ".join(rng.choices(words, k=15)) for _ in range(PARALLEL_FROM + 10)]
    texts[3] = texts[PARALLEL_FROM + 5] + " extra"
    with worker_pool(2, len(texts)) as pool:
        assert pool is not None
        assert map_text_blocks(upper_each, texts, pool, 2) == [text.upper() for text in texts]
        shared = near_duplicate_pairs(texts, 0.9, 2, prepare=str, pool=pool)
    assert shared == near_duplicate_pairs(texts, 0.9, prepare=str, workers=1)
    assert (3, PARALLEL_FROM + 5) in {pair[:2] for pair in shared}
    with worker_pool(2, PARALLEL_FROM) as pool:  # too few texts for workers
        assert pool is None
        assert map_text_blocks(upper_each, ["ab", "c"], pool, 2) == ["AB", "C"]


def test_guided_blocks_cover_every_text_in_order_and_shrink_towards_the_end():
    rng = random.Random(8)
    costs = [rng.randint(200, 20_000) for _ in range(3000)]
    sizes = _guided_sizes(costs, 2)
    assert sum(sizes) == len(costs) and all(1 <= size <= _CHUNK for size in sizes)
    ends = np.cumsum(sizes)
    block_costs = [sum(costs[end - size : end]) for size, end in zip(sizes, ends, strict=True)]
    assert max(block_costs[-4:]) < min(block_costs[:4]) / 4  # the last blocks are short
    assert _guided_sizes([5, 0, 0], 2) == [1, 2] and _guided_sizes([], 2) == []
    texts = [f"text {n} " * (cost % 7) for n, cost in enumerate(costs[: PARALLEL_FROM + 50])]
    with worker_pool(2, len(texts)) as pool:
        assert map_text_blocks(upper_each, texts, pool, 2, costs=[len(text) for text in texts]) == [t.upper() for t in texts]


def test_connected_components_join_every_chain_of_pairs():
    assert connected_components(6, [(4, 1, 0.9), (1, 3, 0.95), (0, 5, 1.0)]) == [[0, 5], [1, 3, 4], [2]]
    assert connected_components(3, [(2, 0)]) == [[0, 2], [1]]


def test_a_minimum_estimated_jaccard_verifies_only_pairs_whose_signatures_agree_enough():
    text = "\n".join(f"line {n} of a long manual page about installing packages with apt and dpkg" for n in range(40))
    edited = text.replace("line 7 of", "row 7 of")  # a few shingles differ: Jaccard ~0.97, not 1
    other = "\n".join(f"entry {n} of an unrelated glossary listing terms and their meanings" for n in range(40))
    texts = [text, other, edited]
    assert [pair[:2] for pair in near_duplicate_pairs(texts, 0.9, prepare=str)] == [(0, 2)]
    assert [pair[:2] for pair in near_duplicate_pairs(texts, 0.9, prepare=str, min_estimated_jaccard=0.5)] == [(0, 2)]
    # Only identical signatures would pass 1.0: the edited copy is not even verified.
    assert near_duplicate_pairs(texts, 0.9, prepare=str, min_estimated_jaccard=1.0) == []


def test_only_the_pairs_that_join_groups_are_verified_and_the_groups_are_those_of_every_pair():
    base = "\n".join(f"paragraph {n} of a page about installing the system, step by step" for n in range(12))
    copies = [base + f"\nfooter {n}" for n in range(6)]  # six near copies: 15 passing pairs
    texts = [*copies, "an unrelated text about cooking pasta\nwith tomatoes and basil"]
    every = [(i, j) for i in range(len(texts)) for j in range(i + 1, len(texts)) if similarity(texts[i], texts[j]) >= 0.9]
    joining = near_duplicate_pairs(texts, 0.9, prepare=str)
    assert len(every) == 15
    assert len(joining) == 5  # a spanning tree of the six copies
    assert connected_components(len(texts), joining) == connected_components(len(texts), every)
    assert all(score >= 0.9 for *_, score in joining)
    assert near_duplicate_pairs(texts, 0.9, prepare=str, workers=2) == joining


@given(st.text())
def test_a_texts_characters_are_its_distinct_utf16_units_with_their_counts(text):
    units, counts = _characters(text)
    expected_units, expected_counts = np.unique(np.frombuffer(text.encode("utf-16-le"), "<u2"), return_counts=True)
    assert units.tolist() == expected_units.tolist()
    assert counts.tolist() == expected_counts.tolist()


def test_one_normalization_gives_the_content_key_and_the_signature_of_the_paragraphs():
    text = "Installer le Système\n\n  avec APT  et dpkg, pas à pas\nune étape après l'autre"
    key, signature, _ = content_key_signature_and_form(text)
    assert key == content_key(text)
    assert signature.tolist() == minhash_values(normalize_paragraphs(text)).tolist()
    # Another text with the same content key (its words broken into other lines) has the same signature.
    rewrapped = "installer le systeme avec apt\net dpkg, pas a pas une etape\napres l'autre"
    other_key, other_signature, _ = content_key_signature_and_form(rewrapped)
    assert other_key == key
    assert other_signature.tolist() == signature.tolist()
