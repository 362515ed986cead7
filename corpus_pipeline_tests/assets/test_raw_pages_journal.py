"""assets/raw_pages: the crawl's journal leaves out the bodies the crawl took from the current version, and puts them
back when it becomes the new version or a resumed crawl reads it."""

from datetime import UTC, datetime

import pyarrow as pa
import pytest

from corpus_pipeline.assets.raw_pages import BODY_OF_CURRENT, JOURNAL_SCHEMA, _whole, journal_row, restore_bodies
from corpus_pipeline.core.arrow_values import table_from_rows
from corpus_pipeline.core.reuse import KeyedRows
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.crawl.previous import PreviousCrawl

WHEN = datetime(2026, 11, 29, tzinfo=UTC)


def row(path: str, outcome: str, body: bytes | None) -> dict:
    return {"website": "site", "url": f"http://site.test/{path}", "outcome": outcome, "kind": "html",
            "fetched_at": WHEN, "body": body}


def test_bodies_of_the_current_version_leave_the_journal_and_come_back(tmp_path):
    warehouse = Warehouse(tmp_path)
    with warehouse.writer("raw_pages", "site", RAW_PAGES_SCHEMA, row_group_size=2) as current:
        for path, body in [("a", b"A"), ("b", b"B"), ("c", b"C")]:
            current.write(row(path, "fetched", body))
    current_path = warehouse.path("raw_pages", "site")
    previous = PreviousCrawl.open(current_path)
    tonight = [row("c", "not_modified", b"C"), row("b", "fetched", b"B2"), row("d", "fetched", b"D"),
               row("a", "unchanged_lastmod", b"A")]
    journal = [journal_row(r, previous) for r in tonight]
    assert [r["body"] for r in journal] == [None, b"B2", b"D", None]
    assert [r.get(BODY_OF_CURRENT) for r in journal] == [True, None, None, True]
    assert journal_row(tonight[0], None) is tonight[0]  # a first crawl keeps every body

    table = table_from_rows([{**r, BODY_OF_CURRENT: r.get(BODY_OF_CURRENT)} for r in journal], JOURNAL_SCHEMA)
    bodies = KeyedRows(current_path, "url", columns=["body"])
    restored = restore_bodies(table, bodies)
    assert restored.column_names == RAW_PAGES_SCHEMA.names
    assert restored.column("body").to_pylist() == [b"C", b"B2", b"D", b"A"]
    assert [r["body"] for r in _whole([dict(r) for r in journal], previous.body)] == [b"C", b"B2", b"D", b"A"]
    unflagged = table.drop_columns([BODY_OF_CURRENT])
    assert restore_bodies(unflagged, bodies).equals(unflagged)  # a journal of every body (older runs)
    with pytest.raises(LookupError):
        restore_bodies(table, None)
    bodies.close()
    previous.close()


def test_the_journal_schema_is_raw_pages_and_the_flag():
    assert JOURNAL_SCHEMA.names == [*RAW_PAGES_SCHEMA.names, BODY_OF_CURRENT]
    assert JOURNAL_SCHEMA.field(BODY_OF_CURRENT).type == pa.bool_()
