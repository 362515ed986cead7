"""Which Dagster executor runs a job's steps."""

from __future__ import annotations

import os

import dagster as dg

EXECUTOR_ENV_VAR = "CORPUS_PIPELINE_EXECUTOR"
CELERY_BROKER_ENV_VAR = "CORPUS_PIPELINE_CELERY_BROKER"
CELERY_BACKEND_ENV_VAR = "CORPUS_PIPELINE_CELERY_BACKEND"
EXECUTOR_CHOICES = ("multiprocess", "in_process", "celery")
# Every step already runs its heavy work on worker processes, and a step process of its own re-imports Dagster and
# the code (~260 MiB each): in the run's process a job peaks lower and costs fewer CPU seconds (docs/benchmarks.md).
DEFAULT_EXECUTOR = "in_process"
# Steps already parallelize inside (process pools); two at a time fits a small machine.
LOCAL_MAX_CONCURRENT_STEPS = 2


def pipeline_executor(choice: str | None = None) -> dg.ExecutorDefinition:
    """The executor named by ``choice`` (default: $CORPUS_PIPELINE_EXECUTOR, else ``DEFAULT_EXECUTOR``).

    ``in_process`` runs the steps one after the other in the run's process; ``multiprocess`` runs each step in a
    process of its own, two at a time. ``celery`` sends every step to the Celery workers listening on
    $CORPUS_PIPELINE_CELERY_BROKER, read when a run starts: the code location loads without a broker configured.
    """
    choice = choice or os.environ.get(EXECUTOR_ENV_VAR) or DEFAULT_EXECUTOR
    if choice == "multiprocess":
        return dg.multiprocess_executor.configured({"max_concurrent": LOCAL_MAX_CONCURRENT_STEPS})
    if choice == "in_process":
        return dg.in_process_executor
    if choice == "celery":
        from dagster_celery import celery_executor

        return celery_executor.configured(
            {"broker": {"env": CELERY_BROKER_ENV_VAR}, "backend": {"env": CELERY_BACKEND_ENV_VAR}}
        )
    raise ValueError(f"{EXECUTOR_ENV_VAR}={choice!r}: expected one of {', '.join(EXECUTOR_CHOICES)}")
