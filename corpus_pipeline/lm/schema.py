"""Parquet contracts of the training-set stages: corpus_quality, global_corpus and the export."""

from __future__ import annotations

import pyarrow as pa

from corpus_pipeline.core.schema import CORPUS_SCHEMA, RECORD_FIELDS, UTC_TIMESTAMP
from corpus_pipeline.lm.policy import FILTER_ORDER

# The per-record quality measures lm/measures.py computes, named here so that the schemas do not load datatrove.
TOP_N_GRAMS = (2, 3, 4)
DUPLICATE_N_GRAMS = (5, 6, 7, 8, 9, 10)
MEASURE_NAMES = (
    ["dup_para_frac", "dup_para_char_frac", "dup_line_frac", "dup_line_char_frac"]
    + [f"top_{n}_gram_char_frac" for n in TOP_N_GRAMS]
    + [f"dup_{n}_gram_char_frac" for n in DUPLICATE_N_GRAMS]
    + ["mean_word_length", "hash_word_ratio", "ellipsis_word_ratio", "bullet_lines_ratio", "end_ellipsis_lines_ratio"]
    + ["alpha_words_ratio", "stop_words", "line_punct_ratio", "short_line_ratio", "char_dup_ratio", "list_ratio"]
)
MEASURES = pa.struct([pa.field(name, pa.float64()) for name in MEASURE_NAMES])
VERDICT_COLUMNS = [f"filter_{name}" for name in FILTER_ORDER]

QUALITY_FIELDS = [
    pa.field("lang_detected", pa.string()),  # py3langid on the text (the record's lang when too short)
    pa.field("lang_score", pa.float64()),  # py3langid's normalized probability
    pa.field("words", pa.int32()),  # Gopher's words: tokens that are not only punctuation
    pa.field("chars", pa.int32()),
    pa.field("measures", MEASURES),
    *[pa.field(name, pa.string()) for name in VERDICT_COLUMNS],  # the rule failed, null when passed
    pa.field("drop_reason", pa.string()),  # first failure in pipeline order, "filter:rule"
    pa.field("keep", pa.bool_(), nullable=False),
    pa.field("quality_error", pa.string()),  # why a record could not be scored
    pa.field("pii_emails", pa.int32()),
    pa.field("pii_ips", pa.int32()),
]
CORPUS_QUALITY_SCHEMA = pa.schema(list(CORPUS_SCHEMA) + QUALITY_FIELDS)

SOURCE = pa.struct(
    [
        pa.field("website", pa.string()),
        pa.field("url", pa.string()),
        pa.field("reason", pa.string()),  # same_content | near_duplicate
        pa.field("score", pa.float64()),
    ]
)

# The kept records of every website, one per text; ``website`` is a column (the asset is not partitioned).
GLOBAL_CORPUS_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),  # stable digest of website and canonical URL
        *[field for field in RECORD_FIELDS if field.name not in ("error", "extraction", "rel_canonical")],
        pa.field("words", pa.int32()),
        pa.field("chars", pa.int32()),
        pa.field("lang_score", pa.float64()),
        pa.field("pii_emails", pa.int32()),
        pa.field("pii_ips", pa.int32()),
        pa.field("merged_from", pa.list_(SOURCE)),  # records of this or other websites merged into this one
    ]
)

EXPORT_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("website", pa.string()),
        pa.field("url", pa.string()),
        pa.field("title", pa.string()),
        pa.field("lang", pa.string()),
        pa.field("date", UTC_TIMESTAMP),
        pa.field("words", pa.int32()),
        pa.field("duplicates", pa.int32()),  # records merged into this one
    ]
)
