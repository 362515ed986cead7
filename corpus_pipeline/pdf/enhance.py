"""Stroke repair before OCR with wavelets and scikit-image, a variant ocr_reading.py reads when a page reads poorly."""

from __future__ import annotations

import numpy as np
import pywt
from PIL import Image
from skimage.morphology import closing, footprint_rectangle

INK_LEVEL = 0.5


def with_strokes_repaired(image: Image.Image) -> Image.Image:
    """The page in grey, small gaps in its dark strokes filled from a wavelet-smoothed page."""
    grey = np.asarray(image.convert("L"), dtype=np.float64) / 255.0
    ink = grey < INK_LEVEL
    holes = closing(ink, footprint_rectangle((3, 3))) & ~ink
    if holes.any():
        coefficients = pywt.wavedec2(grey, "db2", level=2)
        smooth = [coefficients[0]] + [tuple(np.zeros_like(d) for d in detail) for detail in coefficients[1:]]
        background = pywt.waverec2(smooth, "db2")[: grey.shape[0], : grey.shape[1]]
        grey[holes] = np.minimum(grey[holes], background[holes])
    return Image.fromarray((np.clip(grey, 0, 1) * 255).astype(np.uint8), mode="L")
