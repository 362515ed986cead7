"""The Dagster code location of corpus_pipeline."""

import dagster as dg

from corpus_pipeline.assets import ALL_ASSETS, TRAINING_SET_ASSETS
from corpus_pipeline.cluster.executor import pipeline_executor
from corpus_pipeline.core.memory import arrow_allocations_returned_to_system, loaded_code_frozen
from corpus_pipeline.jobs import corpus_job, reprocess_job, training_set_job
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
from corpus_pipeline.schedules import nightly_recrawl_schedule
from corpus_pipeline.training_resources import TrainingSetPolicy

# Every process loading the code location (a run, a step, a Celery worker) moves whole websites through Arrow.
arrow_allocations_returned_to_system()

defs = dg.Definitions(
    assets=ALL_ASSETS + TRAINING_SET_ASSETS,
    jobs=[corpus_job, reprocess_job, training_set_job],
    schedules=[nightly_recrawl_schedule],
    resources={
        "crawler_config": CrawlerConfig(),
        "websites": WebsiteRegistry(),
        "warehouse": ParquetWarehouse(),
        "training_policy": TrainingSetPolicy(),
    },
    executor=pipeline_executor(),
)

# The code location's objects live as long as the process: the collector need not walk them at every full round.
loaded_code_frozen()
