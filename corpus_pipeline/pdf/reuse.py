"""An incremental night for PDFs: a PDF whose body and reading settings are unchanged keeps last night's records.

A memo beside pdf_documents (``pdf_memo``) holds each PDF's key (:func:`pdf_key`), how many records it gave, and the
pdf_documents version holding them. A PDF with an error on any record (a timeout, the OCR budget) is read again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from corpus_pipeline.core.reuse import KeyedRows, digest

PDF_MEMO = "pdf_memo"
PDF_MEMO_SCHEMA = pa.schema(
    [
        pa.field("url", pa.string()),
        pa.field("pdf_key", pa.binary()),  # null: the records are not kept (one had an error)
        pa.field("records", pa.int64()),
        pa.field("records_version", pa.string()),  # the pdf_documents version holding them
    ]
)


def pdf_key(row: dict[str, Any], reading_inputs: str) -> bytes:
    """Everything a PDF's records depend on: the raw_pages row's URL, body and facts, and ``reading_inputs`` (code
    version, settings, the website's name and default language)."""
    dates = (row["sitemap_lastmod"], row["last_modified"], row["body_fetched_at"])
    return digest(
        reading_inputs,
        row["final_url"] or row["url"],
        digest(row["body"] or b""),
        row["category"],
        *(moment.isoformat() if moment is not None else None for moment in dates),
    )


@dataclass
class LastPdfs:
    """The PDFs of the current pdf_documents version whose memo says how they were read (none on a full night)."""

    memo: KeyedRows | None = None
    records: KeyedRows | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)  # this night's memo rows
    reused: int = 0
    read: int = 0

    @classmethod
    def open(cls, memo_path: Path | None, records_path: Path | None, records_version: str | None) -> LastPdfs:
        """Last night's memo and records, when the memo describes the current version ``records_version``."""
        if memo_path is None or records_path is None or records_version is None:
            return cls()
        described = pl.read_parquet(memo_path, columns=["records_version"])["records_version"].unique().to_list()
        if described != [records_version]:
            return cls()
        # A record's PDF is its URL without the section's ``#page=N``.
        return cls(KeyedRows(memo_path, "url"), KeyedRows(records_path, "url", key_of=lambda url: url.split("#", 1)[0]))

    def kept(self, url: str, key: bytes) -> Callable[[], list[dict[str, Any]]] | None:
        """A loader of the PDF's records kept from last night, or None when it must be read."""
        if self.memo is None or self.records is None:
            return None
        row = self.memo.get(url)
        # Two raw rows of one PDF URL (two requests redirected to it) would mix their records: read again.
        if row is None or row["pdf_key"] != key or self.records.count(url) != row["records"] or not row["records"]:
            return None
        return partial(self.records.get_all, url)

    def remember(self, url: str, key: bytes, records: list[dict[str, Any]], kept: bool) -> None:
        """This night's records of a PDF, kept or read, for the memo (not kept next night when one has an error)."""
        clean = all(record.get("error") is None for record in records)
        self.rows.append({"url": url, "pdf_key": key if clean else None, "records": len(records)})
        if kept:
            self.reused += 1
        else:
            self.read += 1

    def counts(self, seconds: float) -> dict[str, int | float]:
        """The materialization's counts: PDFs kept and read again, and PDFs read per second."""
        rate = self.read / seconds if seconds > 0 else 0.0
        return {"pdfs_reused": self.reused, "pdfs_read": self.read, "pdfs_read_per_s": round(rate, 2)}

    def close(self) -> None:
        for rows in (self.memo, self.records):
            if rows is not None:
                rows.close()
