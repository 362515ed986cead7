"""The polite crawler, Dagster-free: robots.txt, sitemaps, recursive crawling, the host's pace, retries,
conditional GETs, deadlines and trap detection, resumed from a checkpoint.

May import: core; not Dagster.
"""
