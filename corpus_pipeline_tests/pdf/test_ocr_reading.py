"""The page's own OCR decides: clean scans cost one Tesseract pass, poor ones keep their best-scoring reading."""

from dataclasses import replace
from pathlib import Path

import numpy as np
from PIL import Image

from corpus_pipeline.pdf.ocr import read_pdf_page, render_page
from corpus_pipeline.pdf.ocr_reading import AS_RENDERED, read_page, words_to_reading
from corpus_pipeline_tests.pdf.conftest import scan_pdf

LINES = ["The quick brown fox jumps over", "the lazy dog near the river bank", "while seven children watch"]


def write(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "scan.pdf"
    path.write_bytes(data)
    return str(path)


def speckled(image: Image.Image, share: float) -> Image.Image:
    """Salt-and-pepper noise over the page, as a dusty scanner glass leaves it."""
    pixels = np.asarray(image.convert("L")).copy()
    noise = np.random.default_rng(5).random(pixels.shape)
    pixels[noise < share / 2] = 0
    pixels[noise > 1 - share / 2] = 255
    return Image.fromarray(pixels)


def test_a_clean_scan_is_read_in_one_pass(tmp_path, pdf_settings):
    reading = read_pdf_page(write(tmp_path, scan_pdf(LINES)), 0, pdf_settings)
    assert reading.passes == 1
    assert reading.variant == AS_RENDERED
    assert reading.confidence >= pdf_settings.ocr_poor_confidence
    assert "lazy dog" in reading.text and "seven children" in reading.text


def test_a_degraded_page_keeps_a_reading_at_least_as_confident_as_the_first(tmp_path, pdf_settings):
    page = speckled(render_page(write(tmp_path, scan_pdf(LINES)), 0, pdf_settings), 0.12)
    reading = read_page(page, pdf_settings)
    first = reading.attempts[0]
    assert first.variant == AS_RENDERED
    assert first.confidence < pdf_settings.ocr_poor_confidence  # poor, so variants were read
    assert reading.passes > 1
    assert reading.confidence >= first.confidence
    assert reading.confidence == max(a.confidence for a in reading.attempts if a.variant == reading.variant)


def test_the_threshold_decides_how_many_variants_are_read(tmp_path, pdf_settings):
    page = render_page(write(tmp_path, scan_pdf(LINES)), 0, pdf_settings)
    never = read_page(page, replace(pdf_settings, ocr_poor_confidence=0.0))
    always = read_page(page, replace(pdf_settings, ocr_poor_confidence=101.0))
    assert never.passes == 1
    assert always.passes > 1
    assert always.confidence >= always.attempts[0].confidence
    assert always.variant in [a.variant for a in always.attempts]


def test_words_become_lines_and_paragraphs_with_a_length_weighted_confidence():
    data = {
        "block_num": [1, 1, 1, 1, 1, 2],
        "par_num": [0, 1, 1, 1, 1, 1],
        "line_num": [0, 1, 1, 2, 2, 1],
        "text": ["", "Hello", "world", "again", " ", "end"],
        "conf": [-1, 90, 60, 30, -1, 100],
    }
    text, confidence, characters = words_to_reading(data)
    assert text == "Hello world\nagain\n\nend"
    assert characters == 18
    assert confidence == (90 * 5 + 60 * 5 + 30 * 5 + 100 * 3) / 18


def test_a_page_without_words_scores_zero():
    assert words_to_reading({"block_num": [], "par_num": [], "line_num": [], "text": [], "conf": []}) == ("", 0.0, 0)
