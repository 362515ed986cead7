import multiprocessing

import polars as pl
import pytest

from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.versions import PartitionBusyError, UnknownVersionError, VersionState
from corpus_pipeline.core.warehouse import Warehouse


def record(url: str) -> dict:
    return {"website": "site", "url": url, "canonical_url": url, "content": "text", "h1": [], "h2": []}


def write_candidate(history, *urls: str):
    with history.new_version(RECORD_SCHEMA, run_id="run") as version:
        for url in urls:
            version.write(record(url))
    return version


def urls(path) -> list[str]:
    return pl.read_parquet(path)["url"].to_list()


def test_a_candidate_is_invisible_until_published(tmp_path):
    warehouse = Warehouse(tmp_path)
    history = warehouse.history("corpus", "site")
    with history.lock():
        version = write_candidate(history, "http://site.test/a")
        assert not warehouse.exists("corpus", "site")
        assert history.current() is None
        history.publish(version.version_id)
    assert urls(warehouse.path("corpus", "site")) == ["http://site.test/a"]
    assert history.current().id == version.version_id
    assert history.current().rows == 1


def test_a_refused_version_leaves_the_current_one_byte_identical(tmp_path):
    warehouse = Warehouse(tmp_path)
    warehouse.write_frame("corpus", "site", pl.DataFrame([record("http://site.test/good")]), RECORD_SCHEMA)
    before = warehouse.path("corpus", "site").read_bytes()
    history = warehouse.history("corpus", "site")
    with history.lock():
        bad = write_candidate(history)
        history.refuse(bad.version_id, "no records")
    assert warehouse.path("corpus", "site").read_bytes() == before
    newest = history.versions()[0]
    assert (newest.state, newest.cause) == (VersionState.REFUSED, "no records")
    with pytest.raises(UnknownVersionError):
        history.publish(bad.version_id)


def test_only_the_last_versions_are_kept(tmp_path):
    warehouse = Warehouse(tmp_path, keep_versions=2)
    for n in range(4):
        warehouse.write_frame("corpus", "site", pl.DataFrame([record(f"http://site.test/{n}")]), RECORD_SCHEMA)
    history = warehouse.history("corpus", "site")
    kept = history.versions()
    assert len(kept) == 2
    assert sorted(p.name for p in history.folder.glob("*.parquet")) == sorted(f"{v.id}.parquet" for v in kept)
    assert urls(warehouse.path("corpus", "site")) == ["http://site.test/3"]


def test_rolling_back_puts_the_previous_version_in_place(tmp_path):
    warehouse = Warehouse(tmp_path)
    for name in ("old", "new"):
        warehouse.write_frame("corpus", "site", pl.DataFrame([record(f"http://site.test/{name}")]), RECORD_SCHEMA)
    history = warehouse.history("corpus", "site")
    old, new = sorted(history.versions(), key=lambda v: v.id)
    with history.lock():
        restored = history.roll_back()
    assert restored.id == old.id
    assert urls(warehouse.path("corpus", "site")) == ["http://site.test/old"]
    with history.lock():
        history.roll_back(to=new.id)
    assert urls(warehouse.path("corpus", "site")) == ["http://site.test/new"]
    with history.lock(), pytest.raises(UnknownVersionError):
        history.roll_back(to="no-such-version")


def test_a_partition_written_before_versions_is_adopted_as_current(tmp_path):
    warehouse = Warehouse(tmp_path)
    legacy = warehouse.path("corpus", "site")
    legacy.parent.mkdir(parents=True)
    pl.DataFrame([record("http://site.test/legacy")]).drop("website").write_parquet(legacy)
    history = warehouse.history("corpus", "site")
    with history.lock():
        pass
    (adopted,) = history.versions()
    assert adopted.state == VersionState.PUBLISHED and history.current().id == adopted.id
    warehouse.write_frame("corpus", "site", pl.DataFrame([record("http://site.test/new")]), RECORD_SCHEMA)
    with history.lock():
        history.roll_back()
    assert urls(legacy) == ["http://site.test/legacy"]


def test_leftovers_of_a_dead_run_are_removed_when_the_next_run_starts(tmp_path):
    warehouse = Warehouse(tmp_path)
    history = warehouse.history("corpus", "site")
    with history.lock():
        unjudged = write_candidate(history, "http://site.test/a")  # the run died before judging it
    stale_tmp = history.folder / ".0001.parquet.dead.tmp"
    stale_tmp.write_bytes(b"half a file")
    with history.lock():
        assert not stale_tmp.exists()
        assert not history.path_of(unjudged.version_id).exists()
        assert history.versions() == []


def _hold_lock(folder, current, ready, release):
    from corpus_pipeline.core.versions import PartitionHistory

    with PartitionHistory(folder, current).lock():
        ready.set()
        release.wait(30)


def test_two_runs_cannot_write_one_partition_at_once(tmp_path):
    history = Warehouse(tmp_path).history("corpus", "site")
    context = multiprocessing.get_context("spawn")
    ready, release = context.Event(), context.Event()
    holder = context.Process(target=_hold_lock, args=(history.folder, history.current_path, ready, release))
    holder.start()
    try:
        assert ready.wait(60)
        with pytest.raises(PartitionBusyError), history.lock():
            pass
    finally:
        release.set()
        holder.join(30)
    with history.lock():  # released with its holder
        pass


def test_facts_of_a_version_are_kept_while_it_is(tmp_path):
    import json

    history = Warehouse(tmp_path, keep_versions=1).history("corpus", "site")
    with history.lock():
        first = write_candidate(history, "http://site.test/a")
        history.record_facts(first.version_id, "distinctness", {"measures": [1, 2]})
        history.publish(first.version_id)
        assert history.facts(first.version_id, "distinctness") == {"measures": [1, 2]}
        assert history.facts(first.version_id, "other") is None
        with pytest.raises(UnknownVersionError):
            history.record_facts("no-such-version", "distinctness", 1)
        second = write_candidate(history, "http://site.test/b")
        history.publish(second.version_id)  # the first one is pruned (keep=1), and its facts with it
    assert history.facts(first.version_id, "distinctness") is None
    ledger = json.loads((history.folder / "versions.json").read_text())
    assert "facts" not in ledger and [v["id"] for v in ledger["versions"]] == [second.version_id]
