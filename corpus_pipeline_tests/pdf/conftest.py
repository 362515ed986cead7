"""Generated PDFs for the PDF tests: text PDFs with outlines, and scans with known words."""

from __future__ import annotations

from io import BytesIO

import pytest
from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def text_pdf(pages: list[str], outline: list[tuple[str, int, int]] = (), title: str | None = "Test document") -> bytes:
    """A text PDF; ``outline`` entries are (title, 1-based page, level)."""
    pdf = FPDF()
    if title:
        pdf.set_title(title)
    pdf.set_font("helvetica", size=12)
    entries = sorted(outline, key=lambda e: e[1])
    for number, text in enumerate(pages, start=1):
        pdf.add_page()
        for entry_title, page, level in entries:
            if page == number:
                pdf.start_section(entry_title, level=level)
        pdf.multi_cell(w=0, text=text)
    return bytes(pdf.output())


def scan_pdf(lines: list[str], angle: float = 0.0, dpi: int = 200) -> bytes:
    """An image-only PDF of the given lines, optionally rotated like a skewed scan."""
    buffer = BytesIO()
    scan_image(lines, angle, dpi).save(buffer, format="PDF", resolution=float(dpi))
    return buffer.getvalue()


def scanned_pages_pdf(pages: list[list[str]], dpi: int = 200) -> bytes:
    """An image-only PDF of several pages, each of the given lines."""
    first, *others = [scan_image(lines, 0.0, dpi) for lines in pages]
    buffer = BytesIO()
    first.save(buffer, format="PDF", resolution=float(dpi), save_all=True, append_images=others)
    return buffer.getvalue()


def scan_image(lines: list[str], angle: float, dpi: int) -> Image.Image:
    scale = dpi / 300
    image = Image.new("L", (int(2480 * scale), int(1100 * scale)), 255)
    draw = ImageDraw.Draw(image)
    try:
        font = ImageFont.truetype(FONT, int(60 * scale))
    except OSError:
        font = ImageFont.load_default(size=int(60 * scale))
    for index, line in enumerate(lines):
        draw.text((int(150 * scale), int((120 + index * 150) * scale)), line, fill=0, font=font)
    if angle:
        image = image.rotate(angle, expand=True, fillcolor=255)
    return image


@pytest.fixture
def pdf_settings():
    from corpus_pipeline.pdf.settings import PdfSettings

    return PdfSettings(dpi=200, workers=2)
