"""Schedules: a nightly re-crawl of every website."""

from datetime import UTC, datetime

import dagster as dg

from corpus_pipeline.jobs import corpus_job
from corpus_pipeline.partitions import website_partitions


@dg.schedule(
    job=corpus_job,
    cron_schedule="0 2 * * *",
    execution_timezone="UTC",
    description="Re-crawl every website of the registry at 02:00 UTC, one run per website.",
)
def nightly_recrawl_schedule(context: dg.ScheduleEvaluationContext):
    """One run per website; re-crawls are incremental, so unchanged websites cost little."""
    night = (context.scheduled_execution_time or datetime.now(UTC)).strftime("%Y-%m-%d")
    for website in website_partitions.get_partition_keys():
        yield dg.RunRequest(run_key=f"{website}-{night}", partition_key=website)
