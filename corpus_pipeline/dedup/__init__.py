"""Canonical URL groups and the removal of exact and near duplicates (MinHash/LSH, rapidfuzz), Dagster-free.

May import: core; not Dagster.
"""
