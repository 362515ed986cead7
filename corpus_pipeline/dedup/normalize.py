"""Content normalization for exact-duplicate detection."""

from __future__ import annotations

import hashlib
import re
import sys
import unicodedata
from functools import cache

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def normalize_content(text: str) -> str:
    """Case-folded, Latin accents folded, whitespace collapsed; every script kept (only combining marks on Latin
    letters are dropped: all marks would break Devanagari, Arabic or Hebrew)."""
    if text.isascii():
        # The common case: decomposition and composition leave ASCII as it is, and casefold is lower.
        return " ".join(text.lower().split())
    # Line by line, with the same shortcut for each ASCII line: nothing composes across a line break, and a run of
    # marks after one drops as at the start of the text.
    folded = []
    for line in text.split("\n"):
        if line.isascii():
            folded.append(line.lower())
        else:
            decomposed = unicodedata.normalize("NFKD", line)
            folded.append(unicodedata.normalize("NFC", _without_latin_marks(decomposed)).casefold())
    return " ".join(" ".join(folded).split())


def _without_latin_marks(decomposed: str) -> str:
    """Drop each run of combining marks whose base character is ASCII (a Latin letter), or that starts the text."""
    kept: list[str] = []
    end = 0
    for run in _combining_runs(astral=_ASTRAL.search(decomposed) is not None).finditer(decomposed):
        start = run.start()
        if start == 0 or decomposed[start - 1].isascii():
            kept.append(decomposed[end:start])
            end = run.end()
    kept.append(decomposed[end:])
    return "".join(kept)


@cache
def _combining_runs(astral: bool) -> re.Pattern[str]:
    """Runs of combining characters; the astral planes' marks only when the text has astral characters: a class
    within the Basic Multilingual Plane is a bitmap to the regex engine, one beyond it a slow list of ranges."""
    last = sys.maxunicode if astral else 0xFFFF
    marks = "".join(re.escape(chr(code)) for code in range(0x80, last + 1) if unicodedata.combining(chr(code)))
    return re.compile(f"[{marks}]+")


def content_key(text: str) -> str:
    """A short stable digest of the normalized content."""
    return _digest(normalize_content(text))


def normalize_paragraphs(text: str) -> str:
    """Each non-empty line normalized, one per line: the form near-duplicate detection compares."""
    return "\n".join(normalize_content(line) for line in text.split("\n") if line.strip())


def content_key_of_paragraphs(paragraphs: str) -> str:
    """``content_key`` of a text from its :func:`normalize_paragraphs`, without normalizing it again (both
    normalize line by line, and a blank line adds no word to either)."""
    return _digest(" ".join(paragraphs.split()))


def _digest(normalized: str) -> str:
    return hashlib.blake2b(normalized.encode("utf-8"), digest_size=16).hexdigest()
