"""PDF documents to records: outline sections, OCR, bad input."""

import re
from dataclasses import replace
from datetime import UTC, datetime
from io import BytesIO

import pytest
from pypdf import PdfReader, PdfWriter

from corpus_pipeline.pdf.document import PdfError, read_pdf, repair_text
from corpus_pipeline_tests.pdf.conftest import scan_pdf, scanned_pages_pdf, text_pdf

NOW = datetime(2026, 11, 22, tzinfo=UTC)
URL = "http://127.0.0.1:8000/files/doc.pdf"


def read(data, settings, url=URL):
    return read_pdf(data, url=url, website="site", fetched_at=NOW, category=None, default_lang="en", settings=settings)


def pages(n):
    return [f"Text of page {i} about gardens and rivers." for i in range(1, n + 1)]


def test_outline_sections_start_on_their_pages_and_lose_nothing(pdf_settings):
    data = text_pdf(
        pages(6),
        outline=[("Intro", 2, 0), ("Part A", 3, 0), ("Detail", 3, 1), ("Part B", 4, 0), ("Annex", 6, 0)],
    )
    records = read(data, pdf_settings)
    urls = [r["url"] for r in records]
    assert urls == [f"{URL}#page={n}" for n in (1, 2, 3, 4, 6)]
    contents = [r["content"] for r in records]
    assert "page 1 " in contents[0], "text before the first entry is kept"
    assert "page 3 " in contents[2] and "page 4 " not in contents[2], "sections are disjoint"
    assert "page 4 " in contents[3] and "page 5 " in contents[3]
    assert "page 6 " in contents[4], "the last section and the last page are kept"
    joined = "\n".join(contents)
    assert all(f"page {n} " in joined for n in range(1, 7))
    assert records[2]["title"] == "Test document | Part A / Part A | Detail", "entries on one page share the section"
    assert all(r["kind"] == "pdf" and r["canonical_url"].endswith(r["url"][-7:]) for r in records)
    # The markdown column: the outline entry as a heading over the section's text, page by page as the content.
    assert records[1]["markdown"] == f"# Intro\n\n{records[1]['content']}"
    assert records[0]["markdown"] == records[0]["content"], "no entry above the first one: no heading"


def test_a_pdf_without_outline_is_one_record_with_metadata(pdf_settings):
    records = read(text_pdf(pages(2)), pdf_settings)
    assert len(records) == 1 and records[0]["url"] == URL
    assert records[0]["title"] == "Test document" and records[0]["lang"] == "en"
    untitled = read(text_pdf(pages(1), title=None), pdf_settings)
    assert untitled[0]["title"] == "Text of page 1 about gardens and rivers."


def test_hyphenation_at_line_ends_is_repaired():
    assert repair_text("a garden-\ning club and a well-\nknown\nfact") == "a gardening club and a wellknown\nfact"


def test_scanned_pages_are_ocred_in_english_and_french(pdf_settings):
    data = scan_pdf(["The orchard needs volunteers", "Le verger attend des bénévoles"])
    records = read(data, pdf_settings)
    assert records[0]["kind"] == "pdf_ocr"
    text = records[0]["content"].lower()
    for word in ("orchard", "volunteers", "verger", "bénévoles"):
        assert word in text


@pytest.mark.parametrize("angle", [4, -4])
def test_skewed_scans_are_straightened_before_ocr(pdf_settings, angle):
    # Tesseract alone misreads these lines when turned 4 degrees ("bam", "pénévoles", "NOurrissent").
    lines = [
        "The orchard needs volunteers every spring",
        "Le verger attend des bénévoles au printemps",
        "Ladders and baskets are kept in the barn",
        "Les pommes tombées nourrissent les oiseaux",
    ]
    records = read(scan_pdf(lines, angle=angle), pdf_settings)
    assert records[0]["content"].split() == " ".join(lines).split()


def test_straight_pages_are_left_as_they_are():
    from pdf2image import convert_from_bytes

    from corpus_pipeline.pdf.skew import skew_angle, straighten

    straight = convert_from_bytes(scan_pdf(["Straight lines of text", "More lines of text"]), dpi=100, grayscale=True)[0]
    assert straighten(straight, skew_angle(straight)) is straight


def test_ocr_mode_zero_never_ocrs(pdf_settings):
    from dataclasses import replace

    records = read(scan_pdf(["Nothing will be read"]), replace(pdf_settings, ocr=0))
    assert records[0]["kind"] == "pdf" and records[0]["error"]


def encrypted_pdf() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    writer.encrypt("secret")
    buffer = BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (encrypted_pdf, "encrypted"),
        (lambda: text_pdf(pages(3))[:700], "corrupt or truncated"),
        (lambda: b"%PDF-1.4\n" + b"\x00garbage" * 200, "corrupt or truncated"),
        (lambda: b"<!doctype html><html><body>Not found</body></html>", "not a PDF"),
        (lambda: b"", "not a PDF"),
    ],
)
def test_bad_pdfs_raise_a_clear_error(make, reason, pdf_settings):
    with pytest.raises(PdfError, match=reason):
        read(make(), pdf_settings)


def test_zero_page_and_oversized_pdfs_are_refused(pdf_settings):
    from dataclasses import replace

    writer = PdfWriter()
    buffer = BytesIO()
    writer.write(buffer)
    with pytest.raises(PdfError):
        read(buffer.getvalue(), pdf_settings)
    with pytest.raises(PdfError, match="cap"):
        read(text_pdf(pages(1)), replace(pdf_settings, max_bytes=100))
    with pytest.raises(PdfError, match="page cap"):
        read(text_pdf(pages(3)), replace(pdf_settings, max_pages=2))


def test_a_missing_tesseract_language_is_named():
    from corpus_pipeline.pdf.ocr import OcrLanguageError, check_ocr_languages

    check_ocr_languages("eng+fra")
    with pytest.raises(OcrLanguageError, match="equ"):
        check_ocr_languages("eng+equ")


GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "sigma")
NUMBERS = [f"{tens}{unit}" for tens in GREEK for unit in ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")]


def test_a_document_over_its_ocr_budget_keeps_the_pages_read_and_says_how_many(pdf_settings):
    # 120 pages of real Tesseract work (0.15 s each on an idle core, seconds under load) cannot fit in a 5 s budget
    # on two workers, however quiet the machine: thirty pages once did, on an idle one.
    data = scanned_pages_pdf([[f"Chapter {word} of the orchard diary", "Apples were picked today"] for word in NUMBERS])
    [record] = read(data, replace(pdf_settings, ocr_budget_s=5))
    match = re.fullmatch(
        rf"OCR budget exceeded: 5 s; (\d+) of {len(NUMBERS)} scanned pages read, (\d+) left unread from page (\d+)",
        record["error"],
    )
    assert match, record["error"]
    read_count, unread_count, first_unread = map(int, match.groups())
    assert read_count + unread_count == len(NUMBERS) and unread_count > 0 and 1 <= first_unread <= len(NUMBERS)
    found = [word for word in NUMBERS if f"chapter {word} of" in record["content"].lower()]
    assert len(found) == read_count, "the content holds exactly the pages the message counts as read"
    assert NUMBERS[first_unread - 1] not in found


def test_sections_read_in_full_stay_clean_when_the_ocr_budget_runs_out(pdf_settings):
    text_part = PdfReader(BytesIO(text_pdf(pages(2), outline=[("Typed", 1, 0)])))
    scan_part = PdfReader(BytesIO(scan_pdf(["The orchard needs volunteers"])))
    writer = PdfWriter()
    for page in [*text_part.pages, *scan_part.pages]:
        writer.add_page(page)
    writer.add_outline_item(title="Typed", page_number=0)
    writer.add_outline_item(title="Scanned", page_number=2)
    buffer = BytesIO()
    writer.write(buffer)

    typed, scanned = read(buffer.getvalue(), replace(pdf_settings, ocr_budget_s=0))
    assert typed["error"] is None and "page 2 " in typed["content"], "a section needing no OCR is whole"
    assert scanned["url"].endswith("#page=3") and scanned["content"] == ""
    assert scanned["error"] == "OCR budget exceeded: 0 s; 0 of 1 scanned pages read, 1 left unread from page 3"
