import polars as pl

from corpus_pipeline.lm.policy import QualityPolicy
from corpus_pipeline.lm.schema import CORPUS_QUALITY_SCHEMA
from corpus_pipeline.lm.scoring import score_corpus
from corpus_pipeline_tests.lm.texts import FRENCH_PROSE, GOOD_PROSE, MENU_PAGE


def corpus(texts: list[tuple[str, str]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "website": ["demo"] * len(texts),
            "url": [f"http://a.test/{i}" for i in range(len(texts))],
            "canonical_url": [f"http://a.test/{i}" for i in range(len(texts))],
            "content": [text for text, _ in texts],
            "lang": [lang for _, lang in texts],
        }
    )


def test_every_record_gets_the_quality_columns_and_removals_add_up():
    frame = corpus([(GOOD_PROSE, "en"), (MENU_PAGE, "en"), (FRENCH_PROSE, "fr"), (GOOD_PROSE + "\n\nmail me: a@b.org", "en")])
    scored, counts = score_corpus(frame, QualityPolicy())
    assert scored.columns == CORPUS_QUALITY_SCHEMA.names
    assert scored["keep"].to_list() == [True, False, False, True]
    assert scored["pii_emails"].to_list() == [0, 0, 0, 1]
    assert counts["records"] == 4 and counts["kept"] == 2 and counts["kept_share"] == 0.5
    removed = sum(n for key, n in counts.items() if key.startswith("removed_by_"))
    assert removed == 2
    # The French page is removed by the language filter; the menu fails it too (short, not clearly English).
    assert scored["drop_reason"][2] == "language:not_in_policy_languages"
    assert counts["failed_language"] == scored["filter_language"].is_not_null().sum() >= 1


def test_an_empty_corpus_scores_to_an_empty_frame():
    scored, counts = score_corpus(corpus([]), QualityPolicy())
    assert scored.height == 0 and counts["kept_share"] == 0.0
