"""Content normalization for exact-duplicate detection."""

from __future__ import annotations

import hashlib
import re
import unicodedata

_WHITESPACE = re.compile(r"\s+")


def normalize_content(text: str) -> str:
    """Case-folded, Latin accents folded, whitespace collapsed; every script kept.

    Only combining marks on Latin letters are dropped: removing all marks would
    break Devanagari, Arabic or Hebrew text, and dropping non-ASCII would empty
    Chinese or Russian pages.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    kept: list[str] = []
    previous_base = ""
    for char in decomposed:
        if unicodedata.combining(char):
            if previous_base.isascii():
                continue
        else:
            previous_base = char
        kept.append(char)
    folded = unicodedata.normalize("NFC", "".join(kept)).casefold()
    return _WHITESPACE.sub(" ", folded).strip()


def content_key(text: str) -> str:
    """A short stable digest of the normalized content."""
    return hashlib.blake2b(normalize_content(text).encode("utf-8"), digest_size=16).hexdigest()


def normalize_paragraphs(text: str) -> str:
    """Each non-empty line normalized, one per line: the form near-duplicate detection compares."""
    return "\n".join(normalize_content(line) for line in text.split("\n") if line.strip())
