"""Content normalization for exact-duplicate detection."""

from __future__ import annotations

import hashlib
import re
import sys
import unicodedata
from functools import cache

_WHITESPACE = re.compile(r"\s+")


def normalize_content(text: str) -> str:
    """Case-folded, Latin accents folded, whitespace collapsed; every script kept.

    Only combining marks on Latin letters are dropped: removing all marks would
    break Devanagari, Arabic or Hebrew text, and dropping non-ASCII would empty
    Chinese or Russian pages.
    """
    if text.isascii():
        # Decomposition and composition leave ASCII as it is, and casefold is lower: the common case, 10x faster.
        return _WHITESPACE.sub(" ", text.lower()).strip()
    decomposed = unicodedata.normalize("NFKD", text)
    # A run of combining marks goes when its base character is ASCII (a Latin letter), or when nothing precedes it.
    unaccented = _marks_after_ascii().sub("", decomposed)
    folded = unicodedata.normalize("NFC", unaccented).casefold()
    return _WHITESPACE.sub(" ", folded).strip()


@cache
def _marks_after_ascii() -> re.Pattern[str]:
    """A run of combining characters not preceded by a non-ASCII character (built once: 0.2 s)."""
    marks = "".join(
        re.escape(chr(code)) for code in range(0x80, sys.maxunicode + 1) if unicodedata.combining(chr(code))
    )
    return re.compile(f"(?<![^\\x00-\\x7f])[{marks}]+")


def content_key(text: str) -> str:
    """A short stable digest of the normalized content."""
    return hashlib.blake2b(normalize_content(text).encode("utf-8"), digest_size=16).hexdigest()


def normalize_paragraphs(text: str) -> str:
    """Each non-empty line normalized, one per line: the form near-duplicate detection compares."""
    return "\n".join(normalize_content(line) for line in text.split("\n") if line.strip())
