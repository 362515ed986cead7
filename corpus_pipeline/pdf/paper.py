"""The paper under the text: its brightness over the page, how uneven it is, and the page with it made white."""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage

PAPER_SCALE = 4  # the paper is estimated on every 4th pixel: shading varies over centimetres, not pixels
PAPER_WINDOW_SHARE = 30  # closing window: 1/30 of the page's short side (6 mm on A5), wider than any letter


def paper_brightness(grey: np.ndarray, scale: int = PAPER_SCALE) -> np.ndarray:
    """The paper's brightness under the text, on every ``scale``-th pixel of a grey page (same units as ``grey``):
    a grey closing wider than any letter removes the ink, a mean filter smooths the blocks it leaves."""
    small = grey[::scale, ::scale]
    window = max(3, min(small.shape) // PAPER_WINDOW_SHARE)
    # Beyond the edges the shading is continued linearly (odd reflection): mirrored, a dark edge would be seen
    # brighter than it is, and stay grey once divided.
    padded = np.pad(small, window, mode="reflect", reflect_type="odd")
    paper = ndimage.uniform_filter(ndimage.grey_closing(padded, size=(window, window)), window)
    return paper[window:-window, window:-window]


def paper_unevenness(image: Image.Image) -> float:
    """How much the paper's brightness varies over the page, 0 (even) to 1 (from white to black)."""
    paper = paper_brightness(np.asarray(image.convert("L"), dtype=np.float64))
    low, high = np.percentile(paper, (2, 98))
    return float((high - low) / max(high, 1.0))


def flatten_paper(image: Image.Image) -> Image.Image:
    """The page divided by its paper's brightness: shading, a dark corner or yellowed paper become white."""
    grey = np.asarray(image.convert("L"), dtype=np.float64)
    paper = paper_brightness(grey).repeat(PAPER_SCALE, 0).repeat(PAPER_SCALE, 1)[: grey.shape[0], : grey.shape[1]]
    flat = np.clip(grey / np.maximum(paper, 1.0), 0.0, 1.0)
    # Faded ink stays faint once the paper is white: stretch so the darkest ink is black again.
    darkest = float(np.percentile(flat, 0.5))
    stretched = np.clip((flat - darkest) / max(1.0 - darkest, 1e-6), 0.0, 1.0)
    return Image.fromarray((stretched * 255).astype(np.uint8), mode="L")
