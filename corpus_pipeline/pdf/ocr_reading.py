"""One page's OCR reading, chosen by the page's own Tesseract word confidences.

The page is read once as rendered (deskewed). Only when that reading's confidence is poor are
prepared variants of the image read too, and the reading with the best confidence wins; the
first reading is always a candidate, so a page never ends with a reading that scores below it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pytesseract
from PIL import Image, ImageFilter
from skimage.filters import threshold_sauvola

from corpus_pipeline.pdf.enhance import enhance
from corpus_pipeline.pdf.settings import PdfSettings

AS_RENDERED = "as rendered"


@dataclass(frozen=True)
class Attempt:
    """One Tesseract pass: which image variant was read and how confident Tesseract was."""

    variant: str
    confidence: float  # character-weighted mean word confidence, 0-100
    characters: int


@dataclass(frozen=True)
class PageReading:
    """The chosen text of a page, with every pass that was made to choose it."""

    text: str
    variant: str
    confidence: float
    attempts: tuple[Attempt, ...]

    @property
    def passes(self) -> int:
        """Number of Tesseract passes this page cost."""
        return len(self.attempts)


def read_page(image: Image.Image, settings: PdfSettings) -> PageReading:
    """Read a rendered page; if its confidence is below ``settings.ocr_poor_confidence``, also read variants."""
    first_text, first_attempt = _read(image, AS_RENDERED, settings)
    best_text, best = first_text, first_attempt
    attempts = [first_attempt]
    for name, prepare in _variants(settings):
        if best.confidence >= settings.ocr_poor_confidence:
            break  # good enough: a clean page stops after its one pass
        text, attempt = _read(prepare(image), name, settings)
        attempts.append(attempt)
        if _better(attempt, best, first_attempt, settings):
            best_text, best = text, attempt
    return PageReading(text=best_text, variant=best.variant, confidence=best.confidence, attempts=tuple(attempts))


def _better(candidate: Attempt, best: Attempt, first: Attempt, settings: PdfSettings) -> bool:
    # A variant that reads much less text than the page as rendered is dropping lines, not reading better.
    keeps_text = candidate.characters >= settings.ocr_min_kept_text * first.characters
    return keeps_text and candidate.confidence >= best.confidence + settings.ocr_min_confidence_gain


def _read(image: Image.Image, variant: str, settings: PdfSettings) -> tuple[str, Attempt]:
    data = pytesseract.image_to_data(
        image,
        lang=settings.languages,
        config="--psm 3",
        timeout=settings.page_timeout_s,
        output_type=pytesseract.Output.DICT,
    )
    text, confidence, characters = words_to_reading(data)
    return text, Attempt(variant=variant, confidence=confidence, characters=characters)


def words_to_reading(data: dict[str, list]) -> tuple[str, float, int]:
    """Text (lines and paragraphs as Tesseract found them), mean word confidence weighted by length, and length."""
    paragraphs: dict[tuple[int, int], dict[int, list[str]]] = {}
    weighted = characters = 0.0
    for block, paragraph, line, word, confidence in zip(
        data["block_num"], data["par_num"], data["line_num"], data["text"], data["conf"], strict=True
    ):
        word = str(word).strip()
        if not word or float(confidence) < 0:
            continue
        paragraphs.setdefault((block, paragraph), {}).setdefault(line, []).append(word)
        weighted += float(confidence) * len(word)
        characters += len(word)
    text = "\n\n".join(
        "\n".join(" ".join(words) for words in lines.values()) for lines in paragraphs.values()
    )
    return text, (weighted / characters if characters else 0.0), int(characters)


def _variants(settings: PdfSettings) -> list[tuple[str, Callable[[Image.Image], Image.Image]]]:
    """Prepared images, in the order they are tried: each answers a kind of damage a scan may have."""
    return [
        ("median", _median),  # salt-and-pepper noise
        ("stroke repair", lambda image: enhance(image, replace(settings, repair=1))),  # holes in strokes
        ("local threshold", _local_threshold),  # faded or unevenly lit pages
    ]


def _median(image: Image.Image) -> Image.Image:
    return image.convert("L").filter(ImageFilter.MedianFilter(3))


def _local_threshold(image: Image.Image) -> Image.Image:
    grey = np.asarray(image.convert("L"), dtype=np.float64) / 255.0
    # A window of about two text lines at 300 dpi: wide enough to see both ink and paper around each glyph.
    window = max(15, (min(grey.shape) // 40) | 1)
    ink = grey < threshold_sauvola(grey, window_size=window, k=0.2)
    return Image.fromarray(np.where(ink, 0, 255).astype(np.uint8), mode="L")
