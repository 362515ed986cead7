"""How PDFs are read: OCR mode, languages, rendering and limits."""

from __future__ import annotations

import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class PdfSettings:
    """Knobs of the PDF reader (the Dagster resource and the registry's ``ocr`` map onto this)."""

    ocr: int = 1  # 0 never, 1 pages whose text layer is missing or too short, 2 always
    languages: str = "eng+fra"
    dpi: int = 300
    min_text_chars: int = 20  # a page with less text than this is treated as scanned
    # Below this character-weighted mean word confidence (0-100) a page's reading is poor and prepared variants
    # are read too: on the tuning text clean pages scored 91-96, the pages variants improved 59-88.
    ocr_poor_confidence: float = 90.0
    # A variant must read at least this share of the first reading's characters: fewer means lines were lost.
    ocr_min_kept_text: float = 0.9
    # A variant replaces the best reading only if it is this many points more confident: on the tuning text a
    # +1.0 gain read worse (bleed-through), gains of +2.2 and more on eroded and speckled pages read far better.
    ocr_min_confidence_gain: float = 2.0
    # A reading of this many times the best one's characters wins at about the same confidence (below): on the
    # tuning text a page with a dark corner read 1.4x the characters once flattened, at +0.6 confidence.
    ocr_more_text: float = 1.2
    # "About the same": at most this many points less confident (garbage read from noise scores 10-30 points lower).
    ocr_more_text_confidence_loss: float = 2.0
    # Paper whose brightness varies by this share over the page is read flattened too: clean renders vary 0.00,
    # the tuning pages lit from one corner 0.28 (faded) and 0.47 (dark corner, where Tesseract skipped 30 %).
    ocr_uneven_paper: float = 0.15
    # The straightened page wins by any confidence gain: it is the correction the page's own lines ask for, and
    # a page turned wrongly reads less confident (test pages turned 4 degrees read 1.0-1.5 points more confident).
    ocr_straightened_min_gain: float = 0.0
    max_bytes: int = 50 * 1024 * 1024
    max_pages: int = 2000
    max_pixels_per_page: int = 60_000_000  # decompression-bomb guard: the DPI is lowered to fit
    page_timeout_s: float = 120.0
    # ~1.2 s a page on two cores: 600 s reads some 500 pages, and a huge scan cannot hold the night. None: no limit.
    ocr_budget_s: float | None = 600.0
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
