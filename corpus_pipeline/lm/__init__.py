"""From per-website corpora to a language-model training set: quality signals, PII, global dedup, export.

Dagster-free: plain functions over polars frames and Parquet files; the assets in ``corpus_pipeline/assets``
only read, call these and write.

May import: core, dedup, extract, quality; not Dagster.
"""
