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
    # The reference's enhancement knobs; None leaves the page as rendered (measured best on clean scans).
    repair: int | None = None
    upscale: float | None = None
    contrast: float | None = None
    sharpening: float | None = None
    threshold: float | None = None
    deskew: bool = True
    # Below this character-weighted mean word confidence (0-100) a page's reading is poor and prepared variants
    # are read too: on the tuning text clean pages scored 91-96, the pages variants improved 59-88.
    ocr_poor_confidence: float = 90.0
    # A variant must read at least this share of the first reading's characters: fewer means lines were lost.
    ocr_min_kept_text: float = 0.9
    # A variant replaces the best reading only if it is this many points more confident: on the tuning text a
    # +1.0 gain read worse (bleed-through), gains of +2.2 and more on eroded and speckled pages read far better.
    ocr_min_confidence_gain: float = 2.0
    max_bytes: int = 50 * 1024 * 1024
    max_pages: int = 2000
    max_pixels_per_page: int = 60_000_000  # decompression-bomb guard: the DPI is lowered to fit
    page_timeout_s: float = 120.0
    # OCR runs at about 1.2 s a page on two cores at 300 dpi (a 2,000-page scan: 40 minutes): 600 s reads some
    # 500 pages, a long report, and keeps one huge scan from holding the night's run. None: no limit.
    ocr_budget_s: float | None = 600.0
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
