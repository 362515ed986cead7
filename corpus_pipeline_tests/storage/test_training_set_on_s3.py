"""The training-set stages with the warehouse on s3:// (moto's server on loopback): versioned like every asset."""

from __future__ import annotations

import dagster as dg
import polars as pl

from corpus_pipeline.core.storage import ObjectStoreSettings
from corpus_pipeline.core.warehouse import default_data_dir, open_warehouse


def test_global_corpus_and_the_export_are_published_on_s3_and_load_as_a_dataset(
    demo_site, loopback_s3, tmp_path, monkeypatch
):
    from corpus_pipeline.assets import ALL_ASSETS
    from corpus_pipeline.assets.corpus_quality import corpus_quality
    from corpus_pipeline.assets.global_corpus import global_corpus
    from corpus_pipeline.assets.training_export import training_export
    from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
    from corpus_pipeline.training_resources import TrainingSetPolicy

    uri = f"s3://{loopback_s3.new_bucket()}/corpora"
    resources = {
        "crawler_config": CrawlerConfig(min_delay_s=0.0, workers=1),
        "websites": WebsiteRegistry(),
        "warehouse": ParquetWarehouse(base_dir=uri, s3_endpoint_url=loopback_s3.endpoint_url),
        "training_policy": TrainingSetPolicy(shard_records=5),
    }
    assert dg.materialize([*ALL_ASSETS, corpus_quality], partition_key="demo", resources=resources).success
    for _ in range(2):  # the second run publishes a second version of each
        assert dg.materialize([global_corpus, training_export], resources=resources).success

    warehouse = open_warehouse(uri, endpoint_url=loopback_s3.endpoint_url)
    options = ObjectStoreSettings(endpoint_url=loopback_s3.endpoint_url).polars_options()
    merged = pl.read_parquet(f"{uri}/global_corpus/data.parquet", storage_options=options)
    assert merged.height > 0 and set(merged["website"]) == {"demo"}
    assert [v.state for v in warehouse.whole_asset_history("global_corpus").versions()] == ["published"] * 2

    history = warehouse.folder_history("training_export")
    assert [v.state for v in history.versions()] == ["published"] * 2
    names = [key.removeprefix("training_export/") for key in warehouse.store.list_tree("training_export")]
    assert "README.md" in names and any(n.startswith("jsonl/train-") for n in names)
    shards = [n for n in names if n.startswith("data/train-")]
    assert len(shards) == -(-merged.height // 5)
    exported = pl.read_parquet([f"{uri}/training_export/{n}" for n in shards], storage_options=options)
    assert sorted(exported["id"]) == sorted(merged["id"])

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    import datasets

    local = history.current_file()  # the current version, downloaded
    assert local is not None
    loaded = datasets.load_dataset(
        "parquet", data_files=str(local / "data" / "*.parquet"), split="train", cache_dir=str(tmp_path / "hf")
    )
    assert loaded.num_rows == merged.height
    assert not (default_data_dir() / "warehouse" / "global_corpus").exists(), "nothing went to a local warehouse"
