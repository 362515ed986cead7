import polars as pl
import pytest

from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.warehouse import PartitionPathError, Warehouse


def record(url: str) -> dict:
    return {"website": "site", "url": url, "canonical_url": url, "content": "text", "h1": ["Title"], "h2": []}


def test_partitions_use_a_hive_layout_readable_in_one_line(tmp_path):
    warehouse = Warehouse(tmp_path)
    for website in ("alpha", "beta"):
        with warehouse.writer("parsed_pages", website, RECORD_SCHEMA, row_group_size=2) as out:
            for i in range(5):
                out.write(record(f"http://{website}.test/{i}"))
    assert warehouse.path("parsed_pages", "alpha") == tmp_path / "parsed_pages" / "website=alpha" / "data.parquet"
    frame = pl.scan_parquet(str(tmp_path / "parsed_pages" / "**" / "*.parquet"), hive_partitioning=True).collect()
    assert frame.height == 10
    assert sorted(frame["website"].unique()) == ["alpha", "beta"]
    assert warehouse.scan("parsed_pages", "beta").collect()["website"].unique().to_list() == ["beta"]


def test_a_failed_write_keeps_the_previous_partition(tmp_path):
    warehouse = Warehouse(tmp_path)
    with warehouse.writer("parsed_pages", "site", RECORD_SCHEMA) as out:
        out.write(record("http://site.test/old"))
    with pytest.raises(RuntimeError):
        with warehouse.writer("parsed_pages", "site", RECORD_SCHEMA, row_group_size=1) as out:
            out.write(record("http://site.test/new-1"))
            out.write(record("http://site.test/new-2"))
            raise RuntimeError("killed mid-way")
    folder = warehouse.path("parsed_pages", "site").parent
    assert [p.name for p in folder.iterdir()] == ["data.parquet"]
    assert warehouse.scan("parsed_pages", "site").collect()["url"].to_list() == ["http://site.test/old"]


@pytest.mark.parametrize("website", ["../escape", "a/b", "..", "/abs"])
def test_partition_keys_cannot_escape_the_warehouse(tmp_path, website):
    with pytest.raises(PartitionPathError):
        Warehouse(tmp_path).path("corpus", website)


def test_scanning_a_missing_partition_says_what_to_do(tmp_path):
    with pytest.raises(FileNotFoundError, match="materialize it first"):
        Warehouse(tmp_path).scan("corpus", "site")
