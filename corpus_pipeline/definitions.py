"""The Dagster code location of corpus_pipeline."""

import dagster as dg

from corpus_pipeline.assets import ALL_ASSETS, TRAINING_SET_ASSETS
from corpus_pipeline.cluster.executor import pipeline_executor
from corpus_pipeline.core.memory import arrow_allocations_returned_to_system, loaded_code_frozen
from corpus_pipeline.jobs import corpus_job, reprocess_job, training_set_job
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
from corpus_pipeline.schedules import nightly_recrawl_schedule
from corpus_pipeline.training_resources import TrainingSetPolicy

# Every process that loads the code location (a run, a step, a Celery worker) reads and writes whole websites'
# pages through Arrow: let what it frees go back to the system (see core.memory).
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

# The objects the code location's modules made live as long as the process: the garbage collector need not walk them
# again at every full round (see core.memory).
loaded_code_frozen()
