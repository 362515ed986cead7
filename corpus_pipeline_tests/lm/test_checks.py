"""The checks that judge a new global corpus or export before it becomes current."""

import polars as pl

from corpus_pipeline.lm.checks import complete_export, unique_ids
from corpus_pipeline.lm.global_dedup import deduplicate_across_websites, kept_records
from corpus_pipeline_tests.lm.test_export import distinct_text, write_training_set
from corpus_pipeline_tests.lm.test_global_dedup import quality_frame


def test_unique_ids_fails_on_a_repeated_id(tmp_path):
    path = tmp_path / "global.parquet"
    pl.DataFrame({"id": ["a", "b", "a"]}).write_parquet(path)
    outcome = unique_ids(path)
    assert not outcome.passed and outcome.cause == "1 duplicate record ids"
    pl.DataFrame({"id": ["a", "b"]}).write_parquet(path)
    assert unique_ids(path).passed


def test_complete_export_passes_a_whole_export_and_names_what_is_missing(tmp_path):
    frame = quality_frame("alpha", [(f"page{i}", distinct_text(i), True) for i in range(4)])
    merged, _ = deduplicate_across_websites(kept_records([frame]))
    folder = tmp_path / "export"
    write_training_set(merged, folder, card="# card", shard_records=3)
    assert complete_export(folder, merged["id"]).passed
    outcome = complete_export(folder, pl.concat([merged["id"], pl.Series(["extra"])]))
    assert not outcome.passed
    assert "the Parquet shards hold 4 records (4 ids), not the 5 of global_corpus" in outcome.cause
    assert "the JSONL.gz shards hold 4 records, not 5" in outcome.cause
    (folder / "README.md").unlink()
    assert complete_export(folder, merged["id"]).cause == "the dataset card is missing"
