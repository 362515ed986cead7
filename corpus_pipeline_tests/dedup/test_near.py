"""Near-duplicate similarity: a threshold cuts work short without changing any decision or kept score."""

from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_pipeline.dedup.near import similarity

WORDS = st.sampled_from("apt cache policy package install debian the a of to".split())
PARAGRAPHS = st.lists(st.lists(WORDS, min_size=1, max_size=12).map(" ".join), min_size=1, max_size=6)


@settings(deadline=None)
@given(PARAGRAPHS, PARAGRAPHS, st.sampled_from([0.5, 0.8, 0.9, 0.95]))
def test_a_threshold_keeps_every_score_at_or_above_it_exact(first, second, threshold):
    a, b = "\n".join(first), "\n".join(second)
    exact, cut = similarity(a, b), similarity(a, b, threshold)
    assert (exact >= threshold) == (cut >= threshold)
    if exact >= threshold:
        assert cut == exact


def test_a_ratio_of_exactly_the_threshold_is_kept():
    assert similarity("aaaaaaaaab", "aaaaaaaaac", 0.9) == 0.9


def test_reordered_paragraphs_are_near_duplicates_and_half_shared_pages_are_not():
    paragraphs = [f"paragraph number {n} of the page, with words of its own" for n in range(6)]
    assert similarity("\n".join(paragraphs), "\n".join(reversed(paragraphs)), 0.9) == 1.0
    other = [f"another text entirely, line {n}, about something else" for n in range(3)]
    assert similarity("\n".join(paragraphs), "\n".join(paragraphs[:3] + other), 0.9) < 0.9
