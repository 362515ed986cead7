"""OCR of scanned PDF pages with Tesseract: render, choose the best reading, pages in parallel."""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path

import pytesseract
from pdf2image import convert_from_path, pdfinfo_from_path
from PIL import Image

from corpus_pipeline.core.budget import Budget, Unfinished, map_within_budget
from corpus_pipeline.core.progress import Progress
from corpus_pipeline.pdf.ocr_reading import PageReading, read_page
from corpus_pipeline.pdf.settings import PdfSettings


class OcrLanguageError(RuntimeError):
    """A Tesseract language asked for in the configuration is not installed."""


class OcrError(RuntimeError):
    """A page could not be OCR'd (timeout, rendering failure...)."""


def check_ocr_languages(languages: str) -> None:
    """Fail early, naming each missing language, rather than OCR'ing nothing silently."""
    try:
        installed = set(pytesseract.get_languages(config=""))
    except (pytesseract.TesseractNotFoundError, OSError) as exc:
        raise OcrLanguageError(f"Tesseract is not installed or not on PATH: {exc}") from exc
    missing = [lang for lang in languages.split("+") if lang and lang not in installed]
    if missing:
        raise OcrLanguageError(
            f"Tesseract language(s) not installed: {', '.join(missing)} (installed: {', '.join(sorted(installed))}); "
            f"on Debian: apt-get install " + " ".join(f"tesseract-ocr-{m}" for m in missing)
        )


# A shorter document's OCR is one step of the PDFs' own progress (assets/pdf_documents.py): no lines of its own.
OCR_PROGRESS_FROM_PAGES = 10


def ocr_pdf_pages(
    data: bytes, pages: Sequence[int], settings: PdfSettings, log: Callable[[str], None] | None = None
) -> dict[int, str]:
    """Text of the given 0-based pages of a PDF, OCR'd in parallel (one Tesseract thread per page), in page order.
    Pages the document's ``settings.ocr_budget_s`` left unread are missing; a page that fails raises
    :class:`OcrError`. Progress goes to ``log``."""
    if not pages:
        return {}
    with tempfile.TemporaryDirectory(prefix="corpus_pipeline_ocr_") as folder:
        path = Path(folder) / "document.pdf"
        path.write_bytes(data)
        read = partial(_ocr_page, str(path), settings=settings)
        workers = max(1, min(settings.workers, len(pages)))
        if workers == 1 and settings.ocr_budget_s is None:
            texts: list[str | Unfinished] = [read(page) for page in pages]
        else:
            told = log if len(pages) >= OCR_PROGRESS_FROM_PAGES else None
            progress = Progress("OCR", len(pages), told, unit="pages")
            readings: Iterator[str | Unfinished] = map_within_budget(
                read,
                pages,
                fallback=lambda _, why: why,
                budget=Budget(total_s=settings.ocr_budget_s),
                workers=workers,
                initializer=_single_threaded_tesseract,
            )
            texts = []
            for text in readings:
                texts.append(text)
                progress.advance()
    failures = [text for text in texts if isinstance(text, Unfinished) and not text.budget_exceeded]
    if failures:
        raise OcrError(failures[0].reason)
    return {page: text for page, text in zip(pages, texts, strict=True) if isinstance(text, str)}


def _single_threaded_tesseract() -> None:
    # Pages run in parallel processes; Tesseract's own threads would only fight over the same cores.
    os.environ["OMP_THREAD_LIMIT"] = "1"


def _ocr_page(path: str, page: int, *, settings: PdfSettings) -> str:
    return read_pdf_page(path, page, settings).text.strip()


def read_pdf_page(path: str, page: int, settings: PdfSettings) -> PageReading:
    """OCR one 0-based page of a PDF file: render, then the page's best reading."""
    image = render_page(path, page, settings)
    try:
        return read_page(image, settings)
    except RuntimeError as exc:  # pytesseract signals its timeout this way
        raise OcrError(f"page {page + 1}: OCR failed or timed out: {exc}") from exc


def render_page(path: str, page: int, settings: PdfSettings) -> Image.Image:
    """Render one 0-based page in grey at the OCR DPI, lowered if the page would exceed the pixel cap."""
    dpi = settings.dpi
    info = pdfinfo_from_path(path, timeout=math.ceil(settings.page_timeout_s))
    width_pt, height_pt = _page_size_points(info)
    if width_pt and height_pt:
        pixels = (width_pt * dpi / 72) * (height_pt * dpi / 72)
        if pixels > settings.max_pixels_per_page:
            dpi = max(50, int(dpi * (settings.max_pixels_per_page / pixels) ** 0.5))
    images = convert_from_path(
        path,
        dpi=dpi,
        first_page=page + 1,
        last_page=page + 1,
        grayscale=True,
        timeout=math.ceil(settings.page_timeout_s),
    )
    if not images:
        raise OcrError(f"page {page + 1} could not be rendered")
    return images[0]


def _page_size_points(info: dict) -> tuple[float, float]:
    size = str(info.get("Page size", ""))
    try:
        width, _, height = size.split()[:3]
        return float(width), float(height)
    except ValueError:
        return 0.0, 0.0
