"""Image preparation before OCR: the reference's knobs, done with wavelets and scikit-image.

Nothing here decides whether a page needs it: the configured knobs apply to every page, and
otherwise stroke repair is one of the variants ocr_reading.py reads when a page's own OCR is poor.
"""

from __future__ import annotations

import numpy as np
import pywt
from PIL import Image
from skimage.filters import unsharp_mask
from skimage.morphology import closing, footprint_rectangle

from corpus_pipeline.pdf.settings import PdfSettings

INK_LEVEL = 0.5


def enhance(image: Image.Image, settings: PdfSettings) -> Image.Image:
    """Upscale, repair broken strokes, sharpen and stretch contrast, as configured."""
    if settings.upscale and settings.upscale != 1:
        image = image.resize(
            (int(image.width * settings.upscale), int(image.height * settings.upscale)), Image.Resampling.LANCZOS
        )
    grey = np.asarray(image.convert("L"), dtype=np.float64) / 255.0
    for _ in range(settings.repair or 0):
        grey = repair_strokes(grey)
    if settings.sharpening:
        grey = unsharp_mask(grey, radius=1.0, amount=settings.sharpening)
    if settings.contrast:
        pivot = settings.threshold or 0.5
        grey = np.clip((np.clip(grey, 1e-6, 1.0) / pivot) ** settings.contrast * pivot, 0.0, 1.0)
    return Image.fromarray((np.clip(grey, 0, 1) * 255).astype(np.uint8), mode="L")


def repair_strokes(grey: np.ndarray) -> np.ndarray:
    """Fill small gaps inside dark strokes with values from a wavelet-smoothed page (inpainting in wavelet space)."""
    ink = grey < INK_LEVEL
    holes = closing(ink, footprint_rectangle((3, 3))) & ~ink
    if not holes.any():
        return grey
    coefficients = pywt.wavedec2(grey, "db2", level=2)
    smooth = [coefficients[0]] + [tuple(np.zeros_like(d) for d in detail) for detail in coefficients[1:]]
    background = pywt.waverec2(smooth, "db2")[: grey.shape[0], : grey.shape[1]]
    repaired = grey.copy()
    repaired[holes] = np.minimum(grey[holes], background[holes])
    return repaired
