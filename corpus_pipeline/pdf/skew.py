"""Skew of a scanned page: the angle that makes its text lines horizontal, and the page turned by it (ocr_reading.py
keeps the turned page only if it reads more confidently).
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from corpus_pipeline.pdf.paper import paper_brightness

SKEW_SEARCH_DEGREES = 5.0  # scans turned further are rare; the coarse search then refines around its best angle
SEARCH_SIZE = 800  # the angle is searched on a thumbnail this many pixels across at most (about 20 ms a rotation)
MIN_INK_SHARE = 0.002  # below this share of dark pixels the page is blank: no angle to find
MIN_SKEW_DEGREES = 0.1  # finer than the search's 0.2-degree step: the page is straight
INK_SHARE_OF_PAPER = 0.5  # darker than half the local paper brightness is ink (128 on white paper)


def skew_angle(image: Image.Image) -> float:
    """Degrees to turn the page counter-clockwise so its lines are horizontal; 0.0 for a straight or blank page."""
    small = image.convert("L")
    small.thumbnail((SEARCH_SIZE, SEARCH_SIZE))
    grey = np.asarray(small, dtype=np.float64)
    # Ink is what is much darker than the paper around it: a shaded corner is not a slanted block of text.
    paper = paper_brightness(grey, scale=1)
    ink_page = Image.fromarray(np.where(grey < INK_SHARE_OF_PAPER * paper, 0, 255).astype(np.uint8), mode="L")
    ink = np.asarray(ink_page) < 128
    if ink.mean() < MIN_INK_SHARE:
        return 0.0
    best_angle, best_score = 0.0, _profile_score(ink)
    for span, step in ((SKEW_SEARCH_DEGREES, 1.0), (1.0, 0.2)):
        center = best_angle
        for angle in np.arange(center - span, center + span + 1e-6, step):
            if abs(angle - center) < 1e-9:
                continue
            rotated = np.asarray(ink_page.rotate(float(angle), fillcolor=255)) < 128
            score = _profile_score(rotated)
            if score > best_score:
                best_angle, best_score = float(angle), score
    return best_angle if abs(best_angle) >= MIN_SKEW_DEGREES else 0.0


def straighten(image: Image.Image, angle: float) -> Image.Image:
    """The page turned by ``angle`` degrees on a white background (the same image when the angle is 0)."""
    if not angle:
        return image
    return image.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=255)


def _profile_score(ink: np.ndarray) -> float:
    rows = ink.sum(axis=1).astype(np.float64)
    return float(np.sum(np.diff(rows) ** 2))
