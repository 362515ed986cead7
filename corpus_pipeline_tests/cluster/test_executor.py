"""The executor a deployment picks through CORPUS_PIPELINE_EXECUTOR."""

from __future__ import annotations

import pytest

from corpus_pipeline.cluster.executor import (
    CELERY_BACKEND_ENV_VAR,
    CELERY_BROKER_ENV_VAR,
    LOCAL_MAX_CONCURRENT_STEPS,
    pipeline_executor,
)


def test_the_default_runs_steps_in_the_run_s_process(monkeypatch):
    monkeypatch.delenv("CORPUS_PIPELINE_EXECUTOR", raising=False)
    assert pipeline_executor().name == "in_process"


def test_multiprocess_runs_steps_in_local_processes_two_at_a_time(monkeypatch):
    monkeypatch.setenv("CORPUS_PIPELINE_EXECUTOR", "multiprocess")
    executor = pipeline_executor()
    assert executor.name == "multiprocess"
    assert executor.apply_config_mapping({}).value["config"]["max_concurrent"] == LOCAL_MAX_CONCURRENT_STEPS


def test_celery_takes_its_broker_and_backend_from_the_environment_when_a_run_starts(monkeypatch):
    monkeypatch.setenv("CORPUS_PIPELINE_EXECUTOR", "celery")
    executor = pipeline_executor()
    assert executor.name == "celery"
    monkeypatch.setenv(CELERY_BROKER_ENV_VAR, "redis://127.0.0.1:6399/0")
    monkeypatch.setenv(CELERY_BACKEND_ENV_VAR, "redis://127.0.0.1:6399/1")
    config = executor.apply_config_mapping({}).value["config"]
    assert (config["broker"], config["backend"]) == ("redis://127.0.0.1:6399/0", "redis://127.0.0.1:6399/1")


def test_an_unknown_executor_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="multiprocess, in_process, celery"):
        pipeline_executor("kubernetes")


def test_in_process_runs_the_steps_in_the_run_s_own_process():
    assert pipeline_executor("in_process").name == "in_process"
