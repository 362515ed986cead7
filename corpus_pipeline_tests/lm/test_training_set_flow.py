"""The training-set stages end to end through Dagster, on the demo website served on 127.0.0.1."""

import shutil

import polars as pl


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
    merged = training_set_run.warehouse.scan_whole_asset("global_corpus").collect()
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
    merged = training_set_run.warehouse.scan_whole_asset("global_corpus").collect()
    loaded = datasets.load_dataset(
        "parquet", data_files=str(export / "data" / "*.parquet"), split="train", cache_dir=str(tmp_path)
    )
    assert loaded.num_rows == merged.height
    assert sorted(loaded["id"]) == sorted(merged["id"])
    card = (export / "README.md").read_text()
    assert "| demo |" in card and "## Filters and their effects" in card
    assert len(list((export / "jsonl").glob("train-*.jsonl.gz"))) == len(list((export / "data").glob("*.parquet")))


def test_global_corpus_and_the_export_are_published_versions_with_their_checks(training_set_run):
    warehouse = training_set_run.warehouse
    for history in (warehouse.whole_asset_history("global_corpus"), warehouse.folder_history("training_export")):
        (version,) = history.versions()
        assert version.state == "published" and version.rows > 0
    assert (warehouse.root / "global_corpus" / "data.parquet").exists(), "where notebooks read it"
    checks = training_set_run.training_set.get_asset_check_evaluations()
    passed = {(c.asset_key.to_user_string(), c.check_name) for c in checks if c.passed}
    assert passed == {
        ("global_corpus", "not_empty"), ("global_corpus", "row_count_vs_current"), ("global_corpus", "unique_ids"),
        ("training_export", "not_empty"), ("training_export", "row_count_vs_current"),
        ("training_export", "complete_export"),
    }
    mirrored = sorted(p.relative_to(training_set_run.mirror_dir) for p in training_set_run.mirror_dir.rglob("*"))
    assert mirrored == sorted(p.relative_to(training_set_run.export_dir) for p in training_set_run.export_dir.rglob("*"))


def test_a_global_corpus_that_collapses_is_refused_and_the_published_versions_stay(training_set_run, tmp_path):
    import dagster as dg

    from corpus_pipeline.assets.global_corpus import global_corpus
    from corpus_pipeline.assets.training_export import training_export
    from corpus_pipeline.core.warehouse import Warehouse
    from corpus_pipeline.lm.schema import CORPUS_QUALITY_SCHEMA
    from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
    from corpus_pipeline.training_resources import TrainingSetPolicy

    root = tmp_path / "warehouse"
    shutil.copytree(training_set_run.warehouse.root, root, symlinks=True)
    warehouse = Warehouse(root)
    quality = warehouse.scan("corpus_quality", "demo").collect()
    first_kept = quality["keep"].arg_true()[0]
    collapsed = quality.with_columns(pl.int_range(pl.len()).eq(first_kept).alias("keep"))
    warehouse.write_frame("corpus_quality", "demo", collapsed, CORPUS_QUALITY_SCHEMA)  # a night gone wrong upstream
    published = (root / "global_corpus" / "data.parquet").read_bytes()
    card = (root / "training_export" / "README.md").read_text()

    result = dg.materialize(
        [global_corpus, training_export],
        resources={
            "crawler_config": CrawlerConfig(min_delay_s=0.0, workers=1),
            "websites": WebsiteRegistry(),
            "warehouse": ParquetWarehouse(base_dir=str(root)),
            "training_policy": TrainingSetPolicy(shard_records=5),
        },
        raise_on_error=False,
    )
    assert not result.success
    (failure,) = [e for e in result.all_events if e.is_step_failure]
    assert "global_corpus: 1 records, down" in failure.step_failure_data.error.message
    assert (root / "global_corpus" / "data.parquet").read_bytes() == published
    assert (root / "training_export" / "README.md").read_text() == card, "the export did not run on a refused version"
    states = [v.state for v in warehouse.whole_asset_history("global_corpus").versions()]
    assert states == ["refused", "published"]
