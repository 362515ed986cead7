"""From per-website corpora to a language-model training set: quality signals, PII, global dedup, export;
Dagster-free functions over polars frames and Parquet files.

May import: core, dedup, extract, quality; not Dagster.
"""
