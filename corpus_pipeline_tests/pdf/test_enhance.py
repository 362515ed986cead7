"""Image preparation: broken strokes are measured and repaired."""

import numpy as np
from PIL import Image
from skimage.morphology import closing, footprint_rectangle

from corpus_pipeline.pdf.enhance import INK_LEVEL, with_strokes_repaired


def broken_stroke_ratio(image: Image.Image) -> float:
    """Gaps that a 3x3 closing would fill inside the ink, per ink pixel: high on eroded, binarized scans."""
    ink = np.asarray(image.convert("L")) < INK_LEVEL * 255
    if not ink.any():
        return 0.0
    holes = closing(ink, footprint_rectangle((3, 3))) & ~ink
    return float(holes.sum() / ink.sum())


def strokes(dropout: float) -> Image.Image:
    """Thick horizontal strokes, with a share of their pixels knocked out like an eroded scan."""
    page = np.full((200, 400), 255, dtype=np.uint8)
    for top in range(20, 180, 30):
        page[top : top + 8, 20:380] = 0
    holes = np.random.default_rng(3).random(page.shape) < dropout
    page[(page == 0) & holes] = 255
    return Image.fromarray(page)


def test_broken_strokes_are_measured():
    assert broken_stroke_ratio(strokes(0.0)) < broken_stroke_ratio(strokes(0.05)) < broken_stroke_ratio(strokes(0.15))
    assert broken_stroke_ratio(Image.new("L", (50, 50), 255)) == 0.0


def test_repair_fills_gaps_in_strokes():
    damaged = strokes(0.15)
    repaired = with_strokes_repaired(damaged)
    assert broken_stroke_ratio(repaired) < broken_stroke_ratio(damaged) / 2
    assert repaired.size == damaged.size

