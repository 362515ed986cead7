"""pdf/reuse: a PDF keeps its records while its key and the version they are in hold; one with an error is read again."""

from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.pdf.reuse import PDF_MEMO_SCHEMA, LastPdfs, pdf_key

ROW = {"url": "http://site.test/a.pdf", "final_url": None, "body": b"%PDF-1.7 ...", "category": None,
       "sitemap_lastmod": None, "last_modified": datetime(2026, 1, 1, tzinfo=UTC),
       "body_fetched_at": datetime(2026, 2, 1, tzinfo=UTC)}
URL = ROW["url"]


def files(tmp_path: Path, records: list[str], key: bytes | None, version: str = "v1") -> tuple[Path, Path]:
    memo, current = tmp_path / "memo.parquet", tmp_path / "current.parquet"
    table = pa.table({"url": [URL], "pdf_key": [key], "records": [len(records)], "records_version": [version]})
    pq.write_table(table.cast(PDF_MEMO_SCHEMA), memo)
    pq.write_table(pa.table({"url": records, "content": [f"text of {r}" for r in records]}), current)
    return memo, current


def test_an_unchanged_pdf_keeps_its_sections(tmp_path: Path):
    key = pdf_key(ROW, "code v1")
    memo, current = files(tmp_path, [f"{URL}#page=1", f"{URL}#page=3"], key)
    kept = LastPdfs.open(memo, current, "v1").kept(URL, key)
    assert kept is not None and [r["url"] for r in kept()] == [f"{URL}#page=1", f"{URL}#page=3"]


def test_a_changed_body_other_settings_or_another_current_version_read_it_again(tmp_path: Path):
    key = pdf_key(ROW, "code v1")
    memo, current = files(tmp_path, [URL], key)
    assert pdf_key(ROW | {"body": b"%PDF-1.7 other"}, "code v1") != key
    assert pdf_key(ROW, "code v2") != key
    assert LastPdfs.open(memo, current, "v1").kept(URL, pdf_key(ROW, "code v2")) is None
    assert LastPdfs.open(memo, current, "v2").kept(URL, key) is None  # rolled back, or refused: not its records


def test_a_pdf_with_an_error_on_a_record_is_not_kept_next_night(tmp_path: Path):
    night = LastPdfs()
    night.remember(URL, b"key", [{"url": URL, "error": "OCR budget exceeded: 60 s"}], kept=False)
    night.remember("http://site.test/b.pdf", b"key", [{"url": "http://site.test/b.pdf", "error": None}], kept=False)
    assert [row["pdf_key"] for row in night.rows] == [None, b"key"]
    assert night.counts(2.0) == {"pdfs_reused": 0, "pdfs_read": 2, "pdfs_read_per_s": 1.0}
