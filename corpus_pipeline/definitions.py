"""The Dagster code location of corpus_pipeline."""

import dagster as dg

from corpus_pipeline.assets import ALL_ASSETS
from corpus_pipeline.jobs import corpus_job, reprocess_job
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
from corpus_pipeline.schedules import nightly_recrawl_schedule

defs = dg.Definitions(
    assets=ALL_ASSETS,
    jobs=[corpus_job, reprocess_job],
    schedules=[nightly_recrawl_schedule],
    resources={
        "crawler_config": CrawlerConfig(),
        "websites": WebsiteRegistry(),
        "warehouse": ParquetWarehouse(),
    },
    # Steps parallelize inside (process pools), so they run one after the other in the run's own process: a
    # process per step re-imports the code location (~260 MiB and seconds of start-up each, three such
    # processes at once on the Debian handbook; issue 20).
    executor=dg.in_process_executor,
)
