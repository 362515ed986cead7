"""Which records a training set keeps: FineWeb's filter pipeline and thresholds, as one configurable value."""

from __future__ import annotations

from dataclasses import dataclass

# The order FineWeb's pipeline runs its filters in; a record's drop reason is its first failure in this order.
FILTER_ORDER = ("language", "gopher_repetition", "gopher_quality", "c4", "fineweb")


@dataclass(frozen=True)
class QualityPolicy:
    """A record is kept when it passes every enabled filter. Defaults are FineWeb's (datatrove's fineweb.py)."""

    enabled: tuple[str, ...] = FILTER_ORDER
    # FineWeb keeps English only, at fastText's score 0.65; py3langid's normalized probability stands in for it.
    languages: tuple[str, ...] = ("en",)
    min_language_score: float = 0.65
    # Gopher quality (datatrove defaults = the Gopher paper's Table A1).
    min_doc_words: int = 50
    max_doc_words: int = 100_000
    min_avg_word_length: int = 3
    max_avg_word_length: int = 10
    max_symbol_word_ratio: float = 0.1
    max_bullet_lines_ratio: float = 0.9
    max_ellipsis_lines_ratio: float = 0.3
    max_non_alpha_words_ratio: float = 0.8
    min_stop_words: int = 2
    # C4: FineWeb turns off the terminal-punctuation line filter (it removed too much), keeps the rest.
    c4_filter_no_terminal_punct: bool = False
    c4_min_num_sentences: int = 5
    # FineWeb's own filters.
    line_punct_thr: float = 0.12
    short_line_thr: float = 0.67
    char_duplicates_ratio: float = 0.01
    new_line_ratio: float = 0.3

    def __post_init__(self) -> None:
        unknown = sorted(set(self.enabled) - set(FILTER_ORDER))
        if unknown:
            raise ValueError(f"unknown quality filters {unknown}; known: {list(FILTER_ORDER)}")

    def enabled_in_order(self) -> list[str]:
        """The enabled filters, in pipeline order."""
        return [name for name in FILTER_ORDER if name in self.enabled]

