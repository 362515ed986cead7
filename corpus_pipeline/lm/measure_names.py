"""The names of the per-record quality measures, apart from the code that computes them, so that the schemas
naming them do not load datatrove (and pandas with it) into every Dagster process.
"""

from __future__ import annotations

TOP_N_GRAMS = (2, 3, 4)
DUPLICATE_N_GRAMS = (5, 6, 7, 8, 9, 10)

MEASURE_NAMES = (
    ["dup_para_frac", "dup_para_char_frac", "dup_line_frac", "dup_line_char_frac"]
    + [f"top_{n}_gram_char_frac" for n in TOP_N_GRAMS]
    + [f"dup_{n}_gram_char_frac" for n in DUPLICATE_N_GRAMS]
    + ["mean_word_length", "hash_word_ratio", "ellipsis_word_ratio", "bullet_lines_ratio", "end_ellipsis_lines_ratio"]
    + ["alpha_words_ratio", "stop_words", "line_punct_ratio", "short_line_ratio", "char_dup_ratio", "list_ratio"]
)
