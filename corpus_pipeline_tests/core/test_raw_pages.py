"""Reading sitemaps back from raw_pages."""

from datetime import UTC, datetime

from corpus_pipeline.core.raw_pages import DocumentBodies, iter_documents, iter_sitemaps
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse

NOW = datetime(2026, 11, 24, tzinfo=UTC)


def row(url: str, kind: str, outcome: str, body: bytes | None) -> dict:
    return {"website": "s", "url": url, "kind": kind, "outcome": outcome, "fetched_at": NOW, "body": body}


def test_only_sitemaps_read_with_a_body_are_given_back_with_their_address(tmp_path):
    warehouse = Warehouse(tmp_path)
    with warehouse.writer("raw_pages", "s", RAW_PAGES_SCHEMA, row_group_size=2) as out:
        out.write(row("http://e.org/sitemap.xml", "sitemap", "fetched", b"<urlset/>"))
        out.write(row("http://e.org/a.html", "html", "fetched", b"<p>a</p>"))
        out.write(row("http://e.org/old.xml", "sitemap", "not_modified", b"<urlset>old</urlset>"))
        out.write(row("http://e.org/gone.xml", "sitemap", "http_error", None))
        out.write(row("http://e.org/other.xml", "sitemap", "error", b"partial"))
    sitemaps = list(iter_sitemaps(warehouse.path("raw_pages", "s")))
    assert sitemaps == [("http://e.org/sitemap.xml", b"<urlset/>"), ("http://e.org/old.xml", b"<urlset>old</urlset>")]


def test_a_sitemap_is_given_back_under_its_address_after_redirects(tmp_path):
    warehouse = Warehouse(tmp_path)
    with warehouse.writer("raw_pages", "s", RAW_PAGES_SCHEMA) as out:
        out.write(row("http://e.org/sitemap.xml", "sitemap", "fetched", b"<urlset/>") | {"final_url": "http://e.org/s/map.xml"})
    assert list(iter_sitemaps(warehouse.path("raw_pages", "s"))) == [("http://e.org/s/map.xml", b"<urlset/>")]


def test_documents_read_without_their_bodies_are_the_same_documents_and_find_their_bodies(tmp_path):
    warehouse = Warehouse(tmp_path)
    # Row groups of 3 and batches of 4: a batch spans groups, and its pages are sorted by URL within it.
    with warehouse.writer("raw_pages", "s", RAW_PAGES_SCHEMA, row_group_size=3) as out:
        for number in (9, 3, 7, 1, 8, 2, 6, 4, 5, 0):
            out.write(row(f"http://e.org/{number}.html", "html", "fetched", f"<p>{number}</p>".encode()) | {"indexable": True})
        out.write(row("http://e.org/sitemap.xml", "sitemap", "fetched", b"<urlset/>"))
        out.write(row("http://e.org/gone.html", "html", "http_error", None) | {"indexable": True})
    path = warehouse.path("raw_pages", "s")
    full = list(iter_documents(path, "html", batch_rows=4))
    light = list(iter_documents(path, "html", batch_rows=4, body=False))
    bodies = DocumentBodies(path, cached_groups=1)
    assert [page["url"] for page in full] == [page["url"] for page in light] and len(full) == 10
    assert [{k: v for k, v in page.items() if k != "row"} for page in light] == [
        {k: v for k, v in page.items() if k != "body"} for page in full
    ]
    assert [bodies.body(page["row"]) for page in light] == [page["body"] for page in full]


def test_documents_written_before_body_fetch_times_take_their_rows_fetch_times(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    older = RAW_PAGES_SCHEMA.remove(RAW_PAGES_SCHEMA.get_field_index("body_fetched_at"))
    page = row("http://e.org/a.html", "html", "fetched", b"<p>a</p>") | {"indexable": True}
    pq.write_table(pa.Table.from_pylist([page], schema=older), tmp_path / "old.parquet")  # a partition before it
    pq.write_table(pa.Table.from_pylist([page], schema=RAW_PAGES_SCHEMA), tmp_path / "journal.parquet")  # null
    earlier = datetime(2026, 10, 1, tzinfo=UTC)
    pq.write_table(pa.Table.from_pylist([page | {"body_fetched_at": earlier}], schema=RAW_PAGES_SCHEMA),
                   tmp_path / "new.parquet")
    for name, expected in (("old", NOW), ("journal", NOW), ("new", earlier)):
        (document,) = iter_documents(tmp_path / f"{name}.parquet", "html")
        assert document["body_fetched_at"] == expected, name
