"""Versions of a partition on a real S3-compatible server: write, judge, publish, refuse, keep N, roll back."""

from __future__ import annotations

import polars as pl
import pytest

from corpus_pipeline.core.schema import CORPUS_SCHEMA, RECORD_SCHEMA
from corpus_pipeline.core.versions import UnknownVersionError, VersionState
from corpus_pipeline.core.warehouse import ObjectWarehouse, open_warehouse


def record(url: str) -> dict:
    return {"website": "site", "url": url, "canonical_url": url, "content": "text", "h1": [], "h2": []}


def write_candidate(history, *urls: str):
    with history.new_version(RECORD_SCHEMA, run_id="run") as version:
        for url in urls:
            version.write(record(url))
    return version


@pytest.fixture
def warehouse(loopback_s3, bucket, tmp_path) -> ObjectWarehouse:
    return ObjectWarehouse(f"s3://{bucket}/corpora", settings=loopback_s3.settings(), cache_dir=tmp_path / "cache")


def published_urls(warehouse: ObjectWarehouse) -> list[str]:
    """What a notebook reads: the hive object, straight from the server."""
    uri = warehouse.partition_uri("corpus", "site")
    return pl.read_parquet(uri, storage_options=warehouse.storage_options())["url"].to_list()


def test_an_s3_uri_opens_an_object_store_warehouse(loopback_s3, bucket):
    opened = open_warehouse(f"s3://{bucket}/corpora/", endpoint_url=loopback_s3.endpoint_url)
    assert isinstance(opened, ObjectWarehouse)
    assert opened.uri == f"s3://{bucket}/corpora"
    assert opened.asset_glob("corpus") == f"s3://{bucket}/corpora/corpus/**/*.parquet"


def test_a_candidate_is_its_own_object_and_invisible_until_published(warehouse):
    history = warehouse.history("corpus", "site")
    with history.lock():
        version = write_candidate(history, "http://site.test/a")
        assert warehouse.store.exists(f"_versions/corpus/website=site/{version.version_id}.parquet")
        assert not warehouse.exists("corpus", "site")
        assert history.current() is None
        history.publish(version.version_id)
    assert published_urls(warehouse) == ["http://site.test/a"]
    assert warehouse.scan("corpus", "site").collect()["url"].to_list() == ["http://site.test/a"]
    assert history.current().id == version.version_id and history.current().rows == 1


def test_a_refused_version_leaves_the_current_object_byte_identical(warehouse):
    warehouse.write_frame("corpus", "site", pl.DataFrame([record("http://site.test/good")]), RECORD_SCHEMA)
    before = warehouse.store.read_bytes("corpus/website=site/data.parquet")
    history = warehouse.history("corpus", "site")
    with history.lock():
        bad = write_candidate(history)
        history.refuse(bad.version_id, "no records")
    assert warehouse.store.read_bytes("corpus/website=site/data.parquet") == before
    newest = history.versions()[0]
    assert (newest.state, newest.cause) == (VersionState.REFUSED, "no records")
    assert warehouse.store.exists(f"_versions/corpus/website=site/{bad.version_id}.parquet"), "kept for inspection"
    with pytest.raises(UnknownVersionError):
        history.publish(bad.version_id)


def test_only_the_last_versions_are_kept_on_the_server(loopback_s3, bucket, tmp_path):
    warehouse = ObjectWarehouse(f"s3://{bucket}/w", keep_versions=2, settings=loopback_s3.settings(), cache_dir=tmp_path)
    for n in range(4):
        warehouse.write_frame("corpus", "site", pl.DataFrame([record(f"http://site.test/{n}")]), RECORD_SCHEMA)
    kept = warehouse.history("corpus", "site").versions()
    assert len(kept) == 2
    objects = [key for key in warehouse.store.list("_versions/corpus/website=site") if key.endswith(".parquet")]
    assert sorted(objects) == sorted(f"_versions/corpus/website=site/{v.id}.parquet" for v in kept)
    uri = warehouse.partition_uri("corpus", "site")
    assert pl.read_parquet(uri, storage_options=warehouse.storage_options())["url"].to_list() == ["http://site.test/3"]


def test_rolling_back_puts_the_previous_version_in_place(warehouse):
    for name in ("old", "new"):
        warehouse.write_frame("corpus", "site", pl.DataFrame([record(f"http://site.test/{name}")]), RECORD_SCHEMA)
    history = warehouse.history("corpus", "site")
    old, new = sorted(history.versions(), key=lambda v: v.id)
    with history.lock():
        assert history.roll_back().id == old.id
    assert published_urls(warehouse) == ["http://site.test/old"]
    assert warehouse.scan("corpus", "site").collect()["url"].to_list() == ["http://site.test/old"]
    with history.lock():
        history.roll_back(to=new.id)
    assert published_urls(warehouse) == ["http://site.test/new"]
    with history.lock(), pytest.raises(UnknownVersionError, match=f"of {warehouse.uri}/_versions/corpus/website=site"):
        history.roll_back(to="no-such-version")


def test_another_machine_reads_the_current_version_through_its_own_cache(warehouse, loopback_s3, tmp_path):
    warehouse.write_frame("corpus", "site", pl.DataFrame([record("http://site.test/shared")]), RECORD_SCHEMA)
    elsewhere = ObjectWarehouse(warehouse.uri, settings=loopback_s3.settings(), cache_dir=tmp_path / "other machine")
    local = elsewhere.local_file("corpus", "site")
    assert (tmp_path / "other machine") in local.parents
    assert pl.read_parquet(local)["url"].to_list() == ["http://site.test/shared"]


def test_leftovers_of_a_dead_run_are_removed_when_the_next_run_starts(warehouse):
    history = warehouse.history("corpus", "site")
    with history.lock():
        unjudged = write_candidate(history, "http://site.test/a")  # the run died before judging it
    orphan = "_versions/corpus/website=site/20200101T000000000000Z-orphan.parquet"
    warehouse.store.write_bytes(orphan, b"uploaded by a run that died before its ledger write")
    with history.lock():
        assert not warehouse.store.exists(orphan)
        assert not warehouse.store.exists(f"_versions/corpus/website=site/{unjudged.version_id}.parquet")
        assert history.versions() == []


def test_a_copy_left_ahead_of_the_pointer_is_put_back(warehouse):
    """A run that died between copying its version to data.parquet and writing the ledger."""
    warehouse.write_frame("corpus", "site", pl.DataFrame([record("http://site.test/current")]), RECORD_SCHEMA)
    history = warehouse.history("corpus", "site")
    with history.lock():
        dying = write_candidate(history, "http://site.test/unrecorded")
    warehouse.store.copy(f"_versions/corpus/website=site/{dying.version_id}.parquet", "corpus/website=site/data.parquet")
    assert published_urls(warehouse) == ["http://site.test/unrecorded"]
    with history.lock():
        pass
    assert published_urls(warehouse) == ["http://site.test/current"]


def test_a_partition_uploaded_without_versions_is_adopted_as_current(warehouse, tmp_path):
    legacy = tmp_path / "legacy.parquet"
    pl.DataFrame([record("http://site.test/legacy")]).drop("website").write_parquet(legacy)
    warehouse.store.upload(legacy, "corpus/website=site/data.parquet")
    history = warehouse.history("corpus", "site")
    with history.lock():
        pass
    (adopted,) = history.versions()
    assert adopted.state == VersionState.PUBLISHED and history.current().id == adopted.id and adopted.rows == 1
    warehouse.write_frame("corpus", "site", pl.DataFrame([record("http://site.test/new")]), RECORD_SCHEMA)
    with history.lock():
        history.roll_back()
    assert published_urls(warehouse) == ["http://site.test/legacy"]


def test_the_history_command_lists_and_rolls_back_an_s3_partition(warehouse, loopback_s3, monkeypatch, capsys):
    from corpus_pipeline import history

    for name in ("old", "new"):
        warehouse.write_frame("corpus", "site", pl.DataFrame([record(f"http://site.test/{name}")]), RECORD_SCHEMA)
    monkeypatch.setenv("AWS_ENDPOINT_URL", loopback_s3.endpoint_url)
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    assert history.main(["site", "--warehouse", warehouse.uri, "--roll-back", "corpus"]) == 0
    assert "is current again (1 rows)" in capsys.readouterr().out
    assert published_urls(warehouse) == ["http://site.test/old"]


def test_the_summary_counts_an_s3_partition(warehouse):
    from corpus_pipeline.summary import summarize_website

    rows = [record(f"http://site.test/{n}") for n in range(3)]
    warehouse.write_frame("corpus", "site", pl.DataFrame(rows), CORPUS_SCHEMA)
    summary = summarize_website(warehouse, "site")
    assert summary["corpus records"] == 3 and summary["pages fetched"] == 0


def test_the_published_object_names_the_version_it_copies(warehouse):
    warehouse.write_frame("corpus", "site", pl.DataFrame([record("http://site.test/a")]), RECORD_SCHEMA)
    current = warehouse.history("corpus", "site").current()
    assert warehouse.store.metadata("corpus/website=site/data.parquet") == {"corpus-version": current.id}
