"""Folder versions (a dataset export) and assets across websites on a real S3-compatible server."""

from __future__ import annotations

import polars as pl

from corpus_pipeline.core.warehouse import ObjectWarehouse
from corpus_pipeline.lm.schema import GLOBAL_CORPUS_SCHEMA
from corpus_pipeline_tests.support.folder_versions import write_folder


def warehouse_at(loopback_s3, bucket, cache) -> ObjectWarehouse:
    return ObjectWarehouse(f"s3://{bucket}/corpora", settings=loopback_s3.settings(), cache_dir=cache)


def test_the_readers_folder_holds_exactly_the_published_version(loopback_s3, bucket, tmp_path):
    warehouse = warehouse_at(loopback_s3, bucket, tmp_path / "cache")
    history = warehouse.folder_history("training_export")
    with history.lock():
        history.publish(write_folder(history, {"data/a.parquet": "a1", "README.md": "card 1"}))
        history.publish(write_folder(history, {"data/b.parquet": "b2", "README.md": "card 2"}))
        refused = write_folder(history, {"data/c.parquet": "c3", "README.md": "card 3"})
        history.refuse(refused, "no records")
    store = warehouse.store
    assert store.list_tree("training_export") == ["training_export/README.md", "training_export/data/b.parquet"]
    assert store.read_bytes("training_export/README.md") == b"card 2"
    assert store.list_tree(f"_versions/training_export/{refused}") != [], "the refused version is kept to inspect"
    assert not store.exists("_versions/training_export/.lease")
    # Another machine, with an empty cache, reads the current version through the ledger.
    other = warehouse_at(loopback_s3, bucket, tmp_path / "other_cache").folder_history("training_export")
    local = other.current_file()
    assert local is not None and (local / "README.md").read_text() == "card 2"


def test_a_readers_folder_left_half_replaced_by_a_dead_run_is_put_back(loopback_s3, bucket, tmp_path):
    warehouse = warehouse_at(loopback_s3, bucket, tmp_path / "cache")
    history = warehouse.folder_history("training_export")
    with history.lock():
        history.publish(write_folder(history, {"data/a.parquet": "a1", "README.md": "card 1"}))
    warehouse.store.write_bytes("training_export/README.md", b"half of another run")
    warehouse.store.write_bytes("training_export/data/z.parquet", b"stray")
    warehouse.store.write_bytes("_versions/training_export/20990101T000000000000Z-dead00/README.md", b"orphan")
    with history.lock():
        pass
    assert warehouse.store.read_bytes("training_export/README.md") == b"card 1"
    assert warehouse.store.list_tree("training_export") == ["training_export/README.md", "training_export/data/a.parquet"]
    assert warehouse.store.list_tree("_versions/training_export/20990101T000000000000Z-dead00") == []


def test_an_asset_across_websites_is_versioned_on_s3(loopback_s3, bucket, tmp_path):
    warehouse = warehouse_at(loopback_s3, bucket, tmp_path / "cache")
    history = warehouse.whole_asset_history("global_corpus")
    frame = pl.DataFrame({"id": ["1", "2"], "website": ["a", "b"], "url": ["u1", "u2"], "canonical_url": ["u1", "u2"]})
    with history.lock():
        with history.new_version(GLOBAL_CORPUS_SCHEMA, drop_columns=()) as version:
            version.write_frame(frame)
        history.publish(version.version_id)
    read = pl.read_parquet(warehouse.store.uri_of("global_corpus/data.parquet"), storage_options=warehouse.storage_options())
    assert read["website"].to_list() == ["a", "b"]
    assert warehouse.scan_whole_asset("global_corpus").collect()["id"].to_list() == ["1", "2"]
