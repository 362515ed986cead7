from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_pipeline.lm.policy import QualityPolicy
from corpus_pipeline.lm.signals import RecordScorer
from corpus_pipeline_tests.lm.texts import FRENCH_PROSE, GOOD_PROSE, MENU_PAGE


def test_prose_passes_every_fineweb_filter():
    signals = RecordScorer(QualityPolicy()).score(GOOD_PROSE, "en")
    assert signals.keep and signals.drop_reason is None
    assert set(signals.verdicts) == {"language", "gopher_repetition", "gopher_quality", "c4", "fineweb"}
    assert signals.lang_detected == "en" and signals.lang_score > 0.9
    assert signals.words == 100 and signals.chars == len(GOOD_PROSE)
    assert signals.measures["stop_words"] >= 2 and signals.measures["dup_line_frac"] == 0.0


def test_a_menu_is_removed_by_the_first_rule_it_fails_in_fineweb_order():
    signals = RecordScorer(QualityPolicy(languages=(), min_language_score=0.0)).score(MENU_PAGE, "en")
    assert not signals.keep
    assert signals.verdicts["language"] is None
    assert signals.drop_reason == "gopher_repetition:dup_line_frac"
    assert signals.verdicts["gopher_quality"] == "gopher_short_doc"
    assert signals.measures["dup_line_frac"] > 0.5


def test_french_is_removed_by_the_default_english_policy_and_kept_when_the_policy_lists_it():
    assert RecordScorer(QualityPolicy()).score(FRENCH_PROSE, "fr").drop_reason == "language:not_in_policy_languages"
    widened = RecordScorer(QualityPolicy(languages=("en", "fr"), min_doc_words=20, c4_min_num_sentences=4)).score(FRENCH_PROSE, "fr")
    # English stop words are not asked of French text.
    assert widened.keep, widened.verdicts


def test_disabled_filters_give_no_verdict():
    signals = RecordScorer(QualityPolicy(enabled=("c4",))).score(MENU_PAGE, "en")
    assert set(signals.verdicts) == {"c4"}


def test_an_empty_text_is_not_kept():
    signals = RecordScorer(QualityPolicy()).score("", "en")
    assert not signals.keep and signals.words == 0 and signals.measures is None


@settings(max_examples=40)  # each draw runs five filters and a tokenizer
@given(st.text(max_size=400))
def test_any_text_gets_a_verdict_and_keep_means_no_failure(text):
    signals = RecordScorer(QualityPolicy(languages=())).score(text, "en")
    assert signals.keep == (signals.drop_reason is None and signals.error is None)
    assert signals.chars == len(text)
