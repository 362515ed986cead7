import pytest

from corpus_pipeline.quality.checks import GatePolicy, error_share, not_empty, refusal_cause, row_count_vs_current


@pytest.mark.parametrize(
    ("rows", "current", "passed"),
    [(50, 100, True), (49, 100, False), (0, 100, False), (150, 100, True), (0, None, True), (3, 0, True)],
)
def test_a_version_may_lose_up_to_half_of_the_current_rows(rows, current, passed):
    assert row_count_vs_current(rows, current, GatePolicy()).passed is passed


def test_a_collapse_says_how_much_was_lost_in_one_line():
    outcome = row_count_vs_current(12, 37, GatePolicy(), what="documents fetched")
    assert outcome.cause == "12 documents fetched, down 68% from 37 in the current version (max_row_drop_share 50%)"
    assert refusal_cause([outcome]) == outcome.cause


def test_any_drop_is_accepted_when_the_policy_says_so():
    assert row_count_vs_current(0, 1000, GatePolicy(max_row_drop_share=1.0)).passed


def test_an_empty_input_may_give_an_empty_version():
    assert not_empty(0, inputs=0).passed
    assert not not_empty(0, inputs=4).passed
    assert not_empty(0, inputs=4).cause == "no records out of 4 input documents"


def test_a_warning_never_refuses_a_version():
    warning = error_share(9, 10, GatePolicy())
    assert not warning.passed and not warning.spec.blocking
    assert refusal_cause([warning]) is None
