"""The training-set stages end to end through Dagster, on the demo website served on 127.0.0.1."""

import polars as pl

from corpus_pipeline.lm.global_dedup import global_corpus_path


def test_corpus_quality_scores_every_corpus_record_and_reports_the_removals(training_set_run):
    assert training_set_run.per_website.success
    corpus = training_set_run.warehouse.scan("corpus", "demo").collect()
    quality = training_set_run.warehouse.scan("corpus_quality", "demo").collect()
    assert sorted(quality["url"]) == sorted(corpus["url"])
    assert quality["keep"].sum() > 0 and (~quality["keep"]).sum() > 0
    assert quality.filter(pl.col("keep"))["drop_reason"].null_count() == quality["keep"].sum()
    # The demo's French pages are out under the default (English-only) policy.
    assert (quality.filter(pl.col("lang_detected") == "fr")["drop_reason"] == "language:not_in_policy_languages").all()
    (materialization,) = training_set_run.per_website.asset_materializations_for_node("corpus_quality")
    metadata = materialization.metadata
    removed = sum(value.value for key, value in metadata.items() if key.startswith("removed_by_"))
    assert removed == quality.height - quality["keep"].sum()
    checks = training_set_run.per_website.get_asset_check_evaluations()
    assert {c.check_name for c in checks if c.asset_key.to_user_string() == "corpus_quality" and c.passed} >= {
        "not_empty", "row_count_vs_current", "kept_share_vs_current",
    }


def test_global_corpus_holds_the_kept_records_once_with_their_website(training_set_run):
    assert training_set_run.training_set.success
    kept = training_set_run.warehouse.scan("corpus_quality", "demo").filter(pl.col("keep")).collect()
    merged = pl.read_parquet(global_corpus_path(training_set_run.warehouse.root))
    assert merged["id"].is_unique().all()
    assert set(merged["website"]) == {"demo"}
    absorbed = {source["url"] for sources in merged["merged_from"].to_list() for source in sources}
    assert set(merged["canonical_url"]) | absorbed == set(kept["canonical_url"])


def test_the_export_loads_with_datasets_and_has_its_card(training_set_run, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    import datasets

    export = training_set_run.export_dir
    merged = pl.read_parquet(global_corpus_path(training_set_run.warehouse.root))
    loaded = datasets.load_dataset(
        "parquet", data_files=str(export / "data" / "*.parquet"), split="train", cache_dir=str(tmp_path)
    )
    assert loaded.num_rows == merged.height
    assert sorted(loaded["id"]) == sorted(merged["id"])
    card = (export / "README.md").read_text()
    assert "| demo |" in card and "## Filters and their effects" in card
    assert len(list((export / "jsonl").glob("train-*.jsonl.gz"))) == len(list((export / "data").glob("*.parquet")))
