"""The pipeline's foundations, Dagster-free: the registry of websites, the Parquet contracts (schema, columns), URL
keys, dates, the warehouse (versions, checkpoints, leases, local folders and object stores) and the worker pools
with per-item time budgets.

May import: nothing else of corpus_pipeline, only the standard library and third-party libraries; not Dagster.
"""
