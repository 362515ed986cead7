"""One page's OCR reading, chosen by the page's own Tesseract word confidences (:func:`read_page`). The page as
rendered (what plain Tesseract reads) is always a candidate that the others must beat, so no choice reads worse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytesseract
from PIL import Image, ImageFilter
from skimage.filters import threshold_sauvola

from corpus_pipeline.pdf.enhance import with_strokes_repaired
from corpus_pipeline.pdf.paper import flatten_paper, paper_unevenness
from corpus_pipeline.pdf.settings import PdfSettings
from corpus_pipeline.pdf.skew import skew_angle, straighten

AS_RENDERED = "as rendered"
STRAIGHTENED = "straightened"
FLATTENED = "paper flattened"


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
    attempts: tuple[Attempt, ...]  # one a Tesseract pass


def read_page(image: Image.Image, settings: PdfSettings) -> PageReading:
    """Read a rendered page, straightened when skewed, and with prepared variants when its reading is in doubt.

    Candidates: the page as rendered; straightened if a skew is found; paper-flattened when the paper is uneven
    (Tesseract skips a dark corner yet stays confident on the rest); the other variants, made from the image kept so
    far, when the best confidence is below ``settings.ocr_poor_confidence``. :func:`_better` decides each.
    """
    first_text, first = _read(image, AS_RENDERED, settings)
    best_text, best, base, base_name = first_text, first, image, ""
    attempts = [first]
    angle = skew_angle(image)
    if angle:
        straight = straighten(image, angle)
        text, attempt = _read(straight, STRAIGHTENED, settings)
        attempts.append(attempt)
        if _better(attempt, best, first, settings, min_gain=settings.ocr_straightened_min_gain):
            best_text, best, base, base_name = text, attempt, straight, f"{STRAIGHTENED}, "
    uneven = paper_unevenness(base) >= settings.ocr_uneven_paper
    for name, prepare in _VARIANTS:
        # On even paper flattening changes nothing: it is read only for uneven paper, whatever the confidence.
        wanted = uneven if name == FLATTENED else best.confidence < settings.ocr_poor_confidence
        if not wanted:
            continue  # a clean page stops after its one pass
        text, attempt = _read(prepare(base), base_name + name, settings)
        attempts.append(attempt)
        if _better(attempt, best, first, settings, min_gain=settings.ocr_min_confidence_gain):
            best_text, best = text, attempt
    return PageReading(text=best_text, variant=best.variant, confidence=best.confidence, attempts=tuple(attempts))


def _better(candidate: Attempt, best: Attempt, first: Attempt, settings: PdfSettings, *, min_gain: float) -> bool:
    """More confident than the best by ``min_gain``, or much more text about as confidently."""
    # A variant that reads much less text than the page as rendered is dropping lines, not reading better.
    keeps_text = candidate.characters >= settings.ocr_min_kept_text * first.characters
    more_confident = candidate.confidence > best.confidence + min_gain
    # Words Tesseract cannot see (a dark corner) cost no confidence: much more text, as confident, is lines recovered.
    reads_more = (
        candidate.characters >= settings.ocr_more_text * best.characters
        and candidate.confidence >= best.confidence - settings.ocr_more_text_confidence_loss
    )
    return keeps_text and (more_confident or reads_more)


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


def _median(image: Image.Image) -> Image.Image:
    return image.convert("L").filter(ImageFilter.MedianFilter(3))


def _local_threshold(image: Image.Image) -> Image.Image:
    grey = np.asarray(flatten_paper(image), dtype=np.float64) / 255.0
    # A window of about two text lines at 300 dpi: wide enough to see both ink and paper around each glyph.
    window = max(15, (min(grey.shape) // 40) | 1)
    ink = grey < threshold_sauvola(grey, window_size=window, k=0.2)
    return Image.fromarray(np.where(ink, 0, 255).astype(np.uint8), mode="L")


# Prepared images, in the order they are tried: each answers a kind of damage a scan may have.
_VARIANTS: list[tuple[str, Callable[[Image.Image], Image.Image]]] = [
    (FLATTENED, flatten_paper),  # unevenly lit, shaded or yellowed paper
    ("median", _median),  # salt-and-pepper noise
    ("stroke repair", with_strokes_repaired),  # holes in strokes
    ("local threshold", _local_threshold),  # faded ink on flattened paper
]
