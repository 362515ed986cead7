"""Versions that are folders (a dataset export) and assets across websites, in a local warehouse."""

from __future__ import annotations

import polars as pl
import pytest

from corpus_pipeline.core.versions import VersionState
from corpus_pipeline.core.warehouse import PartitionPathError, Warehouse
from corpus_pipeline.lm.schema import GLOBAL_CORPUS_SCHEMA
from corpus_pipeline_tests.support.folder_versions import write_folder


def test_readers_see_the_published_folder_and_a_refused_one_changes_nothing(tmp_path):
    warehouse = Warehouse(tmp_path)
    history = warehouse.folder_history("training_export")
    current = tmp_path / "training_export"
    with history.lock():
        history.publish(write_folder(history, {"data/a.parquet": "first", "README.md": "card 1"}))
        refused = write_folder(history, {"data/b.parquet": "second", "README.md": "card 2"})
        history.refuse(refused, "no records")
    assert sorted(p.relative_to(current).as_posix() for p in current.rglob("*") if p.is_file()) == [
        "README.md", "data/a.parquet",
    ]
    assert (current / "README.md").read_text() == "card 1"
    assert [v.state for v in history.versions()] == [VersionState.REFUSED, VersionState.PUBLISHED]
    assert (tmp_path / "_versions" / "training_export" / refused / "data" / "b.parquet").exists(), "kept to inspect"


def test_a_run_that_fails_while_writing_leaves_no_version_and_the_current_folder(tmp_path):
    history = Warehouse(tmp_path).folder_history("training_export")
    with history.lock():
        first = write_folder(history, {"README.md": "card 1"})
        history.publish(first)
        with pytest.raises(RuntimeError), history.new_folder() as version:
            (version.path / "README.md").write_text("half")
            raise RuntimeError("killed")
    assert [v.id for v in history.versions()] == [first]
    assert (tmp_path / "training_export" / "README.md").read_text() == "card 1"
    assert not list((tmp_path / "_versions" / "training_export").glob(".*.tmp"))


def test_only_the_last_kept_versions_stay_and_a_roll_back_restores_a_folder(tmp_path):
    history = Warehouse(tmp_path, keep_versions=2).folder_history("training_export")
    with history.lock():
        ids = []
        for n in range(3):
            ids.append(write_folder(history, {"README.md": f"card {n}"}))
            history.publish(ids[-1])
        history.roll_back()
    assert [v.id for v in history.versions()] == [ids[2], ids[1]]
    assert not (tmp_path / "_versions" / "training_export" / ids[0]).exists()
    assert (tmp_path / "training_export" / "README.md").read_text() == "card 1"


def test_an_asset_across_websites_keeps_its_website_column_and_is_versioned(tmp_path):
    warehouse = Warehouse(tmp_path)
    history = warehouse.whole_asset_history("global_corpus")
    frame = pl.DataFrame({"id": ["1", "2"], "website": ["a", "b"], "url": ["u1", "u2"], "canonical_url": ["u1", "u2"]})
    with history.lock():
        for rows in (frame, frame.head(1)):
            with history.new_version(GLOBAL_CORPUS_SCHEMA, drop_columns=()) as version:
                version.write_frame(rows)
            history.publish(version.version_id)
    assert warehouse.scan_whole_asset("global_corpus").collect()["website"].to_list() == ["a"]
    assert pl.read_parquet(tmp_path / "global_corpus" / "data.parquet")["website"].to_list() == ["a"]
    assert [v.rows for v in history.versions()] == [1, 2]
    with pytest.raises(PartitionPathError):
        warehouse.whole_asset_history("../escape")
