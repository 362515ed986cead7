"""Schedules: a nightly re-crawl of every website."""

import dagster as dg

from corpus_pipeline.jobs import corpus_job

# One run per website each night; re-crawls are incremental (conditional GETs
# against the previous raw_pages partition), so unchanged sites cost little.
nightly_recrawl_schedule = dg.build_schedule_from_partitioned_job(
    corpus_job,
    name="nightly_recrawl_schedule",
    cron_schedule="0 2 * * *",
    execution_timezone="UTC",
    description="Re-crawl every website of the registry at 02:00 UTC.",
)
