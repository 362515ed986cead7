import subprocess
import sys
from datetime import UTC, datetime

import pyarrow as pa
import pytest

from corpus_pipeline.core.arrow_values import (
    bool_scalar,
    string_array,
    string_scalar,
    table_from_rows,
    table_rows,
    value_reader,
)
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA, RECORD_SCHEMA

RECORD = {
    "website": "docs", "url": "https://a.example/x", "canonical_url": "https://a.example/x", "title": "Été",
    "date": datetime(2024, 1, 31, 12, 30, 5, 123456, tzinfo=UTC), "published": None, "excerpt": None,
    "content": "Une ligne\nDeux", "markdown": "# Titre\n\nUne ligne\nDeux", "h1": ["Titre"], "h2": [], "lang": "fr", "category": None, "kind": "html",
    "fetched_at": datetime(2025, 3, 1, tzinfo=UTC), "alternates": [{"lang": "en", "url": "https://a.example/en/x"}],
    "rel_canonical": None, "error": None, "in_sitemap": True, "inlinks": 7, "extraction": "trafilatura_fast",
    "page_kind": "document", "page_kind_evidence": "declares one article", "title_links": [], "title_inlinks": 2,
}
EMPTY_RECORD = {name: None for name in RECORD} | {"website": "docs", "url": "u", "canonical_url": "u"}
RAW_ROW = {
    "website": "docs", "url": "https://a.example/", "final_url": None, "outcome": "fetched", "kind": "html",
    "status": 200, "content_type": "text/html", "etag": None, "last_modified": None,
    "sitemap_lastmod": datetime(2020, 5, 6, tzinfo=UTC), "bytes": 2**40, "elapsed_s": 0.25, "attempts": 1,
    "error": None, "depth": 0, "referrer": None, "source": "start", "category": None, "hreflang": None,
    "indexable": True, "fetched_at": datetime(2025, 3, 1, tzinfo=UTC), "body": b"<html>\x00\xff</html>",
    "robots": "nofollow", "pace_wait_s": 1.5, "body_fetched_at": datetime(2025, 2, 1, tzinfo=UTC),
}


@pytest.mark.parametrize(("rows", "schema"), [
    ([RECORD, EMPTY_RECORD], RECORD_SCHEMA),
    ([RAW_ROW, RAW_ROW | {"body": None, "status": None, "indexable": None}], RAW_PAGES_SCHEMA),
    ([], RECORD_SCHEMA),
])
def test_table_from_rows_is_the_table_pyarrow_builds(rows, schema):
    table = table_from_rows(rows, schema)

    assert table.schema == schema
    assert table.equals(pa.Table.from_pylist(rows, schema=schema))
    assert table.to_pylist() == rows


def test_a_value_of_the_wrong_type_is_an_error_not_a_null():
    with pytest.raises(Exception):  # noqa: B017, PT011 - polars' own error type
        table_from_rows([RECORD | {"inlinks": "seven"}], RECORD_SCHEMA)


def test_constants_are_arrow_values():
    assert string_array(["a", "b"]).equals(pa.array(["a", "b"], type=pa.string()))
    assert string_scalar("html").equals(pa.scalar("html", type=pa.string()))
    assert bool_scalar(False).equals(pa.scalar(False))


@pytest.mark.parametrize("kind", [
    pa.timestamp("us", tz="UTC"), pa.timestamp("ms", tz="UTC"), pa.timestamp("s", tz="Europe/Paris"),
    pa.timestamp("us", tz="+02:00"), pa.timestamp("us", tz="-05:30"), pa.timestamp("us"), pa.string(), pa.large_binary(), pa.list_(pa.string()),
])
def test_value_reader_reads_what_as_py_reads(kind):
    values = {
        "timestamp": [datetime(2024, 7, 1, 9, 30, tzinfo=UTC), None, datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC)],
        "string": ["a", None, "é"], "large_binary": [b"\x00", None, b""], "list": [["a"], None, []],
    }[str(kind).split("[")[0].split("<")[0]]
    if pa.types.is_timestamp(kind) and kind.tz is None:
        values = [v.replace(tzinfo=None) if v else v for v in values]
    column = pa.chunked_array([pa.array(values[:1], type=kind), pa.array(values[1:], type=kind)])
    read = value_reader(column)

    for index in range(len(values)):
        expected = column[index].as_py()
        assert read(index) == expected
        assert repr(read(index)) == repr(expected)  # the same time zone object too


def test_table_rows_are_to_pylist():
    table = pa.Table.from_pylist([RAW_ROW, RAW_ROW | {"last_modified": datetime(2001, 2, 3, tzinfo=UTC), "body": None}],
                                 schema=RAW_PAGES_SCHEMA)

    assert table_rows(table) == table.to_pylist()
    assert table_rows(table.slice(0, 0)) == []


def test_building_tables_and_constants_leaves_pandas_unloaded():
    # A fresh interpreter: this test process has loaded pandas through pyarrow already.
    code = (
        "import sys\n"
        "from corpus_pipeline.core.arrow_values import table_from_rows, string_scalar, bool_scalar, value_reader\n"
        "from corpus_pipeline.core.schema import RECORD_SCHEMA\n"
        "import corpus_pipeline.core.raw_pages\n"
        "row = {f.name: None for f in RECORD_SCHEMA} | {'website': 'w', 'url': 'u', 'canonical_url': 'u', 'h1': ['a'],\n"
        "       'date': __import__('datetime').datetime(2024, 1, 1, tzinfo=__import__('datetime').UTC)}\n"
        "table_from_rows([row], RECORD_SCHEMA)\n"
        "string_scalar('x'); bool_scalar(True)\n"
        "import pyarrow as pa\n"
        "table = table_from_rows([row], RECORD_SCHEMA)\n"
        "value_reader(table.column('date'))(0)\n"
        "from corpus_pipeline.core.arrow_values import table_rows; table_rows(table)\n"
        "print('pandas' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
