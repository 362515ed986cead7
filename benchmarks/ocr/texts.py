"""Real English and French text for the OCR benchmark, from two sources kept apart.

``tuning`` (thresholds were chosen on it): the licences in /usr/share/common-licenses (English) and
chapters 1-6 of the French Debian Reference. ``report`` (figures are reported on it): chapters 7-12 of
the English and French Debian Reference. Neither was used to tune the earlier OCR work (Python
documentation, Debian's French message catalogues).
"""

from __future__ import annotations

import random
from pathlib import Path

from lxml import html

LICENSES = Path("/usr/share/common-licenses")
DEBIAN_REFERENCE = Path("/usr/share/debian-reference")
MIN_WORDS = 25


def paragraphs(source: str, language: str, limit: int) -> list[str]:
    """Up to ``limit`` paragraphs of ``language`` ("en" or "fr") from ``source`` ("tuning" or "report")."""
    if source == "tuning" and language == "en":
        found = _license_paragraphs()
    else:
        chapters = range(1, 7) if source == "tuning" else range(7, 13)
        found = _reference_paragraphs(language, chapters)
    random.Random(11).shuffle(found)
    return found[:limit]


def _license_paragraphs() -> list[str]:
    found: list[str] = []
    for path in sorted(LICENSES.iterdir()):
        if path.is_file():
            for block in path.read_text(errors="replace").split("\n\n"):
                text = " ".join(block.split())
                if len(text.split()) >= MIN_WORDS and text not in found:
                    found.append(text)
    return found


def _reference_paragraphs(language: str, chapters: range) -> list[str]:
    found: list[str] = []
    for chapter in chapters:
        path = DEBIAN_REFERENCE / f"ch{chapter:02d}.{language}.html"
        if not path.exists():
            raise SystemExit(f"{path} is missing: apt-get install debian-reference-{language}")
        for node in html.parse(str(path)).getroot().iter("p"):
            text = " ".join(node.text_content().split())
            if len(text.split()) >= MIN_WORDS and text not in found:
                found.append(text)
    return found
