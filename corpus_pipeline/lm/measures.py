"""The numbers behind the Gopher and FineWeb rules, per record, with datatrove's own helpers: how close a record
came to each threshold, which the filters' pass or fail does not say.
"""

from __future__ import annotations

import re

from datatrove.pipeline.filters.gopher_quality_filter import STOP_WORDS
from datatrove.pipeline.filters.gopher_repetition_filter import (
    find_all_duplicate,
    find_duplicates,
    find_top_duplicate,
    get_n_grams,
)
from datatrove.utils.text import PUNCTUATION_SET, TERMINAL_PUNCTUATION

from corpus_pipeline.lm.schema import DUPLICATE_N_GRAMS, TOP_N_GRAMS

SHORT_LINE_CHARS = 30  # FineWeb's short_line_length
_PARAGRAPHS = re.compile(r"\n{2,}")
_LINES = re.compile("\n+")
_STOP_WORDS = frozenset(STOP_WORDS)
_TERMINAL = tuple(TERMINAL_PUNCTUATION)


def non_symbol_words(words: list[str]) -> list[str]:
    """Gopher's words: tokens holding at least one character that is not punctuation."""
    return [word for word in words if any(ch not in PUNCTUATION_SET for ch in word)]


def measures(text: str, words: list[str]) -> dict[str, float]:
    """Every measure of ``MEASURE_NAMES`` (lm.schema) for a non-empty text and its datatrove word tokens."""
    values = repetition_measures(text, words)
    values.update(gopher_quality_measures(text, words))
    values.update(fineweb_measures(text, words))
    return values


def repetition_measures(text: str, words: list[str]) -> dict[str, float]:
    """Gopher repetition: duplicated paragraphs and lines, most frequent and duplicated n-grams."""
    chars = len(text)
    paragraphs = _PARAGRAPHS.split(text.strip())
    para_dups, para_dup_chars = find_duplicates(paragraphs)
    lines = _LINES.split(text)
    line_dups, line_dup_chars = find_duplicates(lines)
    values = {
        "dup_para_frac": para_dups / len(paragraphs),
        "dup_para_char_frac": para_dup_chars / chars,
        "dup_line_frac": line_dups / len(lines),
        "dup_line_char_frac": line_dup_chars / chars,
    }
    for n in TOP_N_GRAMS:
        grams = get_n_grams(words, n)
        values[f"top_{n}_gram_char_frac"] = find_top_duplicate(grams) / chars if grams else 0.0
    for n in DUPLICATE_N_GRAMS:
        values[f"dup_{n}_gram_char_frac"] = find_all_duplicate(words, n) / chars
    return values


def gopher_quality_measures(text: str, words: list[str]) -> dict[str, float]:
    """Gopher quality: word length, symbol ratios, bullet and ellipsis lines, alphabetic words, stop words."""
    kept = non_symbol_words(words)
    lines = text.splitlines() or [""]
    n_words = len(words) or 1
    return {
        "mean_word_length": sum(len(word) for word in kept) / len(kept) if kept else 0.0,
        "hash_word_ratio": text.count("#") / n_words,
        "ellipsis_word_ratio": (text.count("...") + text.count("…")) / n_words,
        "bullet_lines_ratio": sum(line.lstrip().startswith(("•", "-")) for line in lines) / len(lines),
        "end_ellipsis_lines_ratio": sum(line.rstrip().endswith(("...", "…")) for line in lines) / len(lines),
        "alpha_words_ratio": sum(any(ch.isalpha() for ch in word) for word in words) / n_words,
        "stop_words": float(len(_STOP_WORDS.intersection(words))),
    }


def fineweb_measures(text: str, words: list[str]) -> dict[str, float]:
    """FineWeb: lines ending in punctuation, short lines, duplicated line characters, newlines per word."""
    lines = [line for line in text.split("\n") if line.strip()] or [""]
    body_chars = len(text.replace("\n", "")) or 1
    return {
        "line_punct_ratio": sum(line.endswith(_TERMINAL) for line in lines) / len(lines),
        "short_line_ratio": sum(len(line) <= SHORT_LINE_CHARS for line in lines) / len(lines),
        "char_dup_ratio": find_duplicates(lines)[1] / body_chars,
        "list_ratio": text.count("\n") / (len(words) or 1),
    }
