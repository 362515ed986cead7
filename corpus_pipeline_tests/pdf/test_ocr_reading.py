"""The page's own OCR decides: clean scans cost one Tesseract pass, others keep their best-scoring reading."""

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from corpus_pipeline.pdf.ocr import read_pdf_page, render_page
from corpus_pipeline.pdf.ocr_reading import (
    AS_RENDERED,
    FLATTENED,
    STRAIGHTENED,
    flatten_paper,
    paper_unevenness,
    read_page,
    words_to_reading,
)
from corpus_pipeline.pdf.skew import skew_angle
from corpus_pipeline_tests.pdf.conftest import scan_image, scan_pdf

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
    assert len(reading.attempts) == 1
    assert reading.variant == AS_RENDERED
    assert reading.confidence >= pdf_settings.ocr_poor_confidence
    assert "lazy dog" in reading.text and "seven children" in reading.text


def test_a_degraded_page_keeps_a_reading_at_least_as_confident_as_the_first(tmp_path, pdf_settings):
    page = speckled(render_page(write(tmp_path, scan_pdf(LINES)), 0, pdf_settings), 0.12)
    reading = read_page(page, pdf_settings)
    first = reading.attempts[0]
    assert first.variant == AS_RENDERED
    assert first.confidence < pdf_settings.ocr_poor_confidence  # poor, so variants were read
    assert len(reading.attempts) > 1
    assert reading.confidence >= first.confidence
    assert reading.confidence == max(a.confidence for a in reading.attempts if a.variant == reading.variant)


def test_the_threshold_decides_how_many_variants_are_read(tmp_path, pdf_settings):
    page = render_page(write(tmp_path, scan_pdf(LINES)), 0, pdf_settings)
    never = read_page(page, replace(pdf_settings, ocr_poor_confidence=0.0))
    always = read_page(page, replace(pdf_settings, ocr_poor_confidence=101.0))
    assert len(never.attempts) == 1
    assert len(always.attempts) > 1
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


def with_slanted_ruling(page: Image.Image, degrees: float) -> Image.Image:
    """The page with a block of long parallel rules below its text, slanted by ``degrees``: a skew decoy."""
    ruled = Image.new("L", (page.width, page.height + 500), 255)
    ruled.paste(page, (0, 0))
    draw = ImageDraw.Draw(ruled)
    rise = ruled.width * math.tan(math.radians(degrees))
    for y in range(page.height + 50, page.height + 450, 10):
        draw.line([(0, y), (ruled.width, y - rise)], fill=0, width=3)
    return ruled


def test_a_page_that_straightening_would_turn_keeps_its_reading_as_rendered(pdf_settings):
    lines = ["The orchard needs volunteers every spring", "Ladders and baskets are kept in the barn"]
    page = with_slanted_ruling(scan_image(lines, 0.0, pdf_settings.dpi), 4.0)
    assert skew_angle(page) != 0.0  # the rules fool the skew search into turning the straight text
    reading = read_page(page, pdf_settings)
    straightened = [a for a in reading.attempts if a.variant == STRAIGHTENED]
    assert straightened and straightened[0].confidence < reading.confidence
    assert reading.variant == AS_RENDERED
    assert reading.text.split() == " ".join(lines).split()


@pytest.mark.parametrize("angle", [4.0, -5.0])
def test_a_skewed_page_gets_its_straightened_reading(tmp_path, pdf_settings, angle):
    lines = [
        "The orchard needs volunteers every spring",
        "Le verger attend des bénévoles au printemps",
        "Ladders and baskets are kept in the barn",
        "Les pommes tombées nourrissent les oiseaux",
        "Seven children pick the lowest branches",
    ]
    reading = read_pdf_page(write(tmp_path, scan_pdf(lines, angle=angle)), 0, pdf_settings)
    assert reading.variant.startswith(STRAIGHTENED)
    assert reading.confidence > reading.attempts[0].confidence
    assert reading.text.split() == " ".join(lines).split()


def lamp_lit(page: Image.Image, fade: float, fall: float) -> Image.Image:
    """Faded ink under a lamp lighting the top left: the paper darkens by ``fall`` toward the bottom right."""
    pixels = np.asarray(page.convert("L"), dtype=np.float64)
    faded = 255 - (255 - pixels) * (1 - fade)
    rows, cols = np.mgrid[0 : pixels.shape[0], 0 : pixels.shape[1]]
    shade = 1 - fall * (rows / pixels.shape[0] + cols / pixels.shape[1]) / 2
    return Image.fromarray((faded * shade).astype(np.uint8), mode="L")


ORCHARD = [
    "The orchard needs volunteers every spring",
    "Ladders and baskets are kept in the barn",
    "Seven children pick the lowest branches",
    "while their parents carry the full crates",
    "to the cider press behind the old mill",
    "where the apples are washed and pressed",
]


def test_a_page_with_a_dark_corner_is_read_flattened_and_loses_no_line(pdf_settings):
    # As rendered, Tesseract stops reading where the paper darkens ("the full cr.", "to the cider press behi")
    # and stays confident on what it read.
    page = lamp_lit(scan_image(ORCHARD, 0.0, pdf_settings.dpi), fade=0.5, fall=0.65)
    assert paper_unevenness(page) >= pdf_settings.ocr_uneven_paper
    reading = read_page(page, pdf_settings)
    assert reading.variant == FLATTENED
    flattened = next(a for a in reading.attempts if a.variant == FLATTENED)
    assert flattened.characters > reading.attempts[0].characters  # the lines lost as rendered are read
    assert reading.text.split() == " ".join(ORCHARD).split()


def test_even_paper_is_not_read_flattened(tmp_path, pdf_settings):
    reading = read_pdf_page(write(tmp_path, scan_pdf(LINES)), 0, pdf_settings)
    assert paper_unevenness(render_page(write(tmp_path, scan_pdf(LINES)), 0, pdf_settings)) < 0.05
    assert FLATTENED not in [a.variant for a in reading.attempts]


@settings(max_examples=25, deadline=None)
@given(
    paper=st.integers(min_value=90, max_value=255),
    fall=st.floats(min_value=0.0, max_value=0.6),
    ink=st.floats(min_value=0.0, max_value=0.7),
)
def test_flattening_whitens_any_smoothly_shaded_paper_and_keeps_the_ink_darkest(paper, fall, ink):
    cols = np.mgrid[0:240, 0:320][1]
    shade = paper * (1 - fall * cols / 320)
    pixels = shade.copy()
    pixels[100:108, 40:280] = shade[100:108, 40:280] * ink  # one text-like stroke
    flat = np.asarray(flatten_paper(Image.fromarray(pixels.astype(np.uint8), mode="L")), dtype=np.float64)
    assert flat[20:60].min() >= 230  # paper far from the stroke is white whatever its shading
    assert flat[100:108, 60:260].max() < flat[20:60].min()  # the stroke stays darker than the paper
