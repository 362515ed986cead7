import gzip
import json
import os
import random

import polars as pl
import pytest

from corpus_pipeline.lm.card import facts_from, render_card
from corpus_pipeline.lm.export import DEFAULT_SHARD_RECORDS, mirror_export, training_records, write_export_records
from corpus_pipeline.lm.global_dedup import deduplicate_across_websites, kept_records
from corpus_pipeline.lm.pii import EMAIL_PLACEHOLDER
from corpus_pipeline.lm.policy import QualityPolicy
from corpus_pipeline_tests.lm.test_global_dedup import quality_frame
from corpus_pipeline_tests.lm.texts import FRENCH_PROSE, GOOD_PROSE


def write_training_set(
    global_corpus: pl.DataFrame, folder, card: str | None = None, shard_records: int = DEFAULT_SHARD_RECORDS,
    scrub_pii: bool = True,
):
    """What the training_export asset writes into a new version's folder."""
    return write_export_records(training_records(global_corpus, scrub_pii)[0], folder, card, shard_records)


def distinct_text(seed: int) -> str:
    words = GOOD_PROSE.split()
    random.Random(seed).shuffle(words)
    return " ".join(words) + f"\n\nWrite to page{seed}@mail.example."


@pytest.fixture
def global_corpus() -> pl.DataFrame:
    records = [(f"page{i}", distinct_text(i), True) for i in range(5)]
    frames = [quality_frame("alpha", records), quality_frame("beta", [("fr", FRENCH_PROSE, True), ("copy", records[0][1], True)])]
    merged, _ = deduplicate_across_websites(kept_records(frames))
    return merged.with_columns(pl.lit(120, dtype=pl.Int32).alias("words"))


@pytest.fixture
def offline_datasets(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    import datasets

    return datasets


def test_hugging_face_datasets_loads_the_parquet_shards_offline(global_corpus, tmp_path, offline_datasets):
    summary = write_training_set(global_corpus, tmp_path / "export", shard_records=2)
    assert summary.records == 6 and len(summary.parquet_files) == 3 == len(summary.jsonl_files)
    data_files = sorted(str(tmp_path / "export" / name) for name in summary.parquet_files)
    loaded = offline_datasets.load_dataset(
        "parquet", data_files=data_files, split="train", cache_dir=str(tmp_path / "cache")
    )
    assert loaded.num_rows == 6
    assert set(loaded.column_names) >= {"id", "text", "website", "url", "lang", "words", "duplicates"}
    assert all(EMAIL_PLACEHOLDER in text and "@mail.example" not in text for text in loaded["text"] if "Write to" in text)
    assert sorted(loaded["duplicates"]) == [0, 0, 0, 0, 0, 1]


def test_the_jsonl_shards_hold_the_same_records(global_corpus, tmp_path):
    summary = write_training_set(global_corpus, tmp_path / "export", shard_records=4, scrub_pii=False)
    rows = []
    for name in summary.jsonl_files:
        with gzip.open(tmp_path / "export" / name, "rt", encoding="utf-8") as handle:
            rows += [json.loads(line) for line in handle]
    assert sorted(row["id"] for row in rows) == sorted(global_corpus["id"])
    assert any("@mail.example" in row["text"] for row in rows)  # scrub_pii off leaves the addresses


def test_a_new_mirror_replaces_the_previous_one_whole(global_corpus, tmp_path):
    write_training_set(global_corpus, tmp_path / "versions" / "1", shard_records=1)
    write_training_set(global_corpus.head(2), tmp_path / "versions" / "2", shard_records=10)
    mirror_export(tmp_path / "versions" / "1", tmp_path / "export")
    mirror_export(tmp_path / "versions" / "2", tmp_path / "export")
    assert sorted(os.listdir(tmp_path / "export" / "data")) == ["train-00000-of-00001.parquet"]
    assert [p for p in os.listdir(tmp_path) if p.startswith(".")] == []


def test_the_card_reports_websites_languages_filters_and_loads_as_a_dataset_folder(global_corpus, tmp_path, offline_datasets):
    quality = pl.DataFrame({"drop_reason": [None] * 7 + ["gopher_quality:gopher_short_doc"] * 2 + ["language:not_in_policy_languages"]})
    exported = global_corpus.select("website", "lang", "words")
    dedup = {"kept by the quality filters": 7, "merged: same content": 1, "exported": 6}
    card = render_card(facts_from("demo set", QualityPolicy(), quality, exported, dedup, {"scrubbed": True, "emails": 5, "ips": 0}))
    assert "| alpha | 5 | 600 |" in card and "| beta | 1 | 120 |" in card
    assert "| gopher_quality:gopher_short_doc | 2 |" in card
    assert "5 e-mail addresses" in card and "10 records were scored" in card
    write_training_set(global_corpus, tmp_path / "export", card=card)
    loaded = offline_datasets.load_dataset(str(tmp_path / "export"), split="train", cache_dir=str(tmp_path / "cache"))
    assert loaded.num_rows == 6


def test_the_card_counts_records_that_could_not_be_scored_as_removed(global_corpus):
    quality = pl.DataFrame(
        {"drop_reason": [None, None, "c4:too_few_sentences"], "quality_error": [None, "ValueError: bad text", None]}
    )
    exported = global_corpus.select("website", "lang", "words")
    facts = facts_from("demo set", QualityPolicy(), quality, exported, {}, {"scrubbed": False})
    assert facts.removed_by == {"c4:too_few_sentences": 1, "scoring_error": 1}
    assert "| scoring_error | 1 |" in render_card(facts)


def test_text_format_markdown_exports_the_markdown_column(global_corpus):
    marked = global_corpus.with_columns(
        pl.when(pl.col("url").str.contains("page1")).then(None).otherwise(pl.lit("## Heading\n\n- item")).alias(
            "markdown"
        )
    )
    plain, _, _ = training_records(marked, scrub_pii=False)
    markdown, _, _ = training_records(marked, scrub_pii=False, text_format="markdown")
    assert plain["text"].to_list() == marked["content"].to_list()
    for text, content, url in zip(markdown["text"], marked["content"], marked["url"], strict=True):
        # A record written before the markdown column existed exports its content.
        assert text == (content if "page1" in url else "## Heading\n\n- item")
    with pytest.raises(ValueError, match="text_format"):
        training_records(marked, text_format="html")  # type: ignore[arg-type]
