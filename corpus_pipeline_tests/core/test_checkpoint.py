from datetime import UTC, datetime, timedelta

import pytest

from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse


def row(n: int) -> dict:
    return {"website": "site", "url": f"http://site.test/{n}", "outcome": "fetched", "fetched_at": datetime(2026, 11, 24, tzinfo=UTC), "body": b"x"}


def test_rows_are_on_disk_in_parts_before_the_run_ends(tmp_path):
    checkpoint = Warehouse(tmp_path).checkpoint("raw_pages", "site", RAW_PAGES_SCHEMA)
    checkpoint.start()
    with pytest.raises(KeyboardInterrupt):
        with checkpoint.appender(flush_rows=3) as journal:
            for n in range(7):
                journal.write(row(n))
                if n == 4:
                    # What a second process would see if this one were killed now: the full parts only.
                    assert [r["url"] for r in checkpoint.rows()] == [f"http://site.test/{i}" for i in range(3)]
            raise KeyboardInterrupt  # an interrupted run still flushes what it buffered
    assert [r["url"] for r in checkpoint.rows()] == [f"http://site.test/{i}" for i in range(7)]
    assert checkpoint.row_count() == 7
    assert len(checkpoint.parts()) == 3


def test_a_resumed_run_reads_only_the_parts_that_existed_when_it_began(tmp_path):
    checkpoint = Warehouse(tmp_path).checkpoint("raw_pages", "site", RAW_PAGES_SCHEMA)
    checkpoint.start()
    with checkpoint.appender(flush_rows=2) as journal:
        for n in range(4):
            journal.write(row(n))
    past = checkpoint.rows(extra={"website": "site"})
    with checkpoint.appender(flush_rows=1) as journal:
        journal.write(row(10))
        seen = [r["url"] for r in past]
    assert seen == [f"http://site.test/{i}" for i in range(4)]
    assert checkpoint.row_count() == 5


def test_an_old_or_empty_checkpoint_is_not_resumed(tmp_path):
    checkpoint = Warehouse(tmp_path).checkpoint("raw_pages", "site", RAW_PAGES_SCHEMA)
    assert not checkpoint.is_resumable(timedelta(hours=24))
    checkpoint.start()
    assert not checkpoint.is_resumable(timedelta(hours=24)), "no rows yet: nothing to resume"
    with checkpoint.appender() as journal:
        journal.write(row(1))
    assert checkpoint.is_resumable(timedelta(hours=24))
    assert not checkpoint.is_resumable(timedelta(0))
    checkpoint.clear()
    assert checkpoint.parts() == [] and checkpoint.started_at() is None


def test_parts_written_before_a_column_was_added_are_read_with_it_null(tmp_path):
    warehouse = Warehouse(tmp_path)
    old_schema = RAW_PAGES_SCHEMA.remove(RAW_PAGES_SCHEMA.get_field_index("robots"))
    old = warehouse.checkpoint("raw_pages", "site", old_schema)
    old.start()
    with old.appender(flush_rows=2) as journal:
        for n in range(3):
            journal.write(row(n))
    resumed = warehouse.checkpoint("raw_pages", "site", RAW_PAGES_SCHEMA)  # the run resumed after an upgrade
    assert [r["robots"] for r in resumed.rows()] == [None] * 3
    with warehouse.writer("raw_pages", "site", RAW_PAGES_SCHEMA) as out:
        for table in resumed.tables():
            out.write_table(table)
    assert warehouse.scan("raw_pages", "site").collect()["robots"].to_list() == [None] * 3


def test_a_run_notes_what_its_rows_need_when_it_starts(tmp_path):
    checkpoint = Warehouse(tmp_path).checkpoint("raw_pages", "site", RAW_PAGES_SCHEMA)
    assert checkpoint.note("bodies_of") is None
    checkpoint.start({"bodies_of": "v1"})
    assert checkpoint.note("bodies_of") == "v1" and checkpoint.started_at() is not None
    checkpoint.start()
    assert checkpoint.note("bodies_of") is None
