"""The crawl journal on an object store: parts are objects, a re-run on another machine resumes from them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import ObjectWarehouse


def row(n: int) -> dict:
    fetched_at = datetime(2026, 11, 24, tzinfo=UTC)
    return {"website": "site", "url": f"http://site.test/{n}", "outcome": "fetched", "fetched_at": fetched_at, "body": b"x"}


def test_parts_written_on_one_machine_are_resumed_on_another(loopback_s3, bucket, tmp_path):
    uri = f"s3://{bucket}/w"
    first = ObjectWarehouse(uri, settings=loopback_s3.settings(), cache_dir=tmp_path / "a")
    checkpoint = first.checkpoint("raw_pages", "site", RAW_PAGES_SCHEMA)
    checkpoint.start()
    with pytest.raises(KeyboardInterrupt), checkpoint.appender(flush_rows=3) as journal:
        for n in range(7):
            journal.write(row(n))
        raise KeyboardInterrupt  # the run is stopped; what it fetched is flushed

    elsewhere = ObjectWarehouse(uri, settings=loopback_s3.settings(), cache_dir=tmp_path / "b")
    resumed = elsewhere.checkpoint("raw_pages", "site", RAW_PAGES_SCHEMA)
    assert len(resumed.parts()) == 3
    assert resumed.is_resumable(timedelta(hours=1))
    assert resumed.row_count() == 7
    assert [r["url"] for r in resumed.rows()] == [f"http://site.test/{n}" for n in range(7)]
    with resumed.appender(flush_rows=100) as journal:
        journal.write(row(7))
    assert resumed.parts()[-1].endswith("part-000004.parquet")
    assert resumed.row_count() == 8


def test_a_finished_run_clears_its_checkpoint(loopback_s3, bucket, tmp_path):
    warehouse = ObjectWarehouse(f"s3://{bucket}/w", settings=loopback_s3.settings(), cache_dir=tmp_path)
    checkpoint = warehouse.checkpoint("raw_pages", "site", RAW_PAGES_SCHEMA)
    checkpoint.start()
    with checkpoint.appender(flush_rows=2) as journal:
        for n in range(3):
            journal.write(row(n))
    checkpoint.clear()
    assert checkpoint.parts() == [] and checkpoint.started_at() is None
    assert warehouse.store.list("_checkpoints/raw_pages/website=site") == []
