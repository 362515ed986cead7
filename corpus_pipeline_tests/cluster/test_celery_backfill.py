"""A backfill of several websites on the cluster set-up: Postgres instance storage, the run queue, and two Celery
workers running the steps, against the demo website served on several loopback ports (one partition each)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import polars as pl
import pytest
from dagster_postgres import PostgresEventLogStorage, PostgresRunStorage

from corpus_pipeline.cluster.executor import EXECUTOR_ENV_VAR
from corpus_pipeline.core.registry import REGISTRY_ENV_VAR
from corpus_pipeline.core.warehouse import DATA_DIR_ENV_VAR, Warehouse
from corpus_pipeline_demo.server import serve_site
from corpus_pipeline_demo.site import build_demo_site
from corpus_pipeline_tests.support.local_cluster import (
    DEPLOY_DIR,
    BackfillOutcome,
    celery_workers,
    create_instance_storage,
    dagster_daemon,
    deployment_env,
    launch_backfill,
    prepare_dagster_home,
    wait_for_backfill,
)

WEBSITES = ("demo-a", "demo-b", "demo-c")
ASSETS = ("raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus")
# Failure bounds, not speed targets: the backfill takes about a minute on a busy 2-core machine.
LAUNCH_TIMEOUT_S = 180
BACKFILL_TIMEOUT_S = 420


def write_registry(path: Path, base_urls: dict[str, str]) -> Path:
    """One sitemap website per served copy; OCR off, as OCR is tested on its own and is the slowest step."""
    entries = "".join(
        f"  - name: {name}\n    url: {url}/\n    mode: sitemap\n    langs: [fr]\n    ocr: 0\n"
        for name, url in base_urls.items()
    )
    path.write_text("websites:\n" + entries)
    return path


@pytest.fixture(scope="module")
def backfill(postgres, redis, tmp_path_factory):
    """corpus_job backfilled for every website through the daemon's run queue, steps on two Celery workers."""
    root = tmp_path_factory.mktemp("cluster")
    site_root = root / "demo_site"
    build_demo_site(site_root)
    logs = root / "logs"
    logs.mkdir()
    with ExitStack() as stack:
        base_urls = {name: stack.enter_context(serve_site(site_root)) for name in WEBSITES}
        env = deployment_env(
            prepare_dagster_home(root / "dagster_home", DEPLOY_DIR / "dagster.yaml"),
            {
                REGISTRY_ENV_VAR: str(write_registry(root / "websites.yaml", base_urls)),
                DATA_DIR_ENV_VAR: str(root / "data"),
                EXECUTOR_ENV_VAR: "celery",
                **postgres.env(),
                **redis.env(),
            },
        )
        try:
            create_instance_storage(env, timeout_s=LAUNCH_TIMEOUT_S)
            workers = stack.enter_context(celery_workers(2, env, logs))
            stack.enter_context(dagster_daemon(env, logs))
            backfill_id = launch_backfill(env, "corpus_job", WEBSITES, timeout_s=LAUNCH_TIMEOUT_S)
            outcome = wait_for_backfill(PostgresRunStorage(postgres.url), backfill_id, len(WEBSITES),
                                        timeout_s=BACKFILL_TIMEOUT_S)
        except (RuntimeError, TimeoutError) as failure:
            pytest.fail(f"{failure}\n{_log_tails(logs)}")
    yield outcome, Warehouse(root / "data" / "warehouse"), workers, base_urls


def _log_tails(logs: Path) -> str:
    return "\n".join(f"--- {log.name}\n{log.read_text(errors='replace')[-3000:]}" for log in sorted(logs.iterdir()))


def test_every_website_of_the_backfill_succeeds_in_its_own_run(backfill):
    outcome, *_ = backfill
    assert isinstance(outcome, BackfillOutcome)
    assert outcome.failures == []
    assert sorted(r.dagster_run.tags["dagster/partition"] for r in outcome.records) == sorted(WEBSITES)


def test_every_partition_has_its_parquet_built_from_its_own_website(backfill):
    _, warehouse, _, base_urls = backfill
    for website in WEBSITES:
        for asset in ASSETS:
            assert warehouse.exists(asset, website), (asset, website)
        raw = warehouse.scan("raw_pages", website).collect()
        assert raw.filter(pl.col("outcome") == "fetched").height > 20, website
        assert raw["url"].str.starts_with(base_urls[website]).all(), website
        assert warehouse.scan("corpus", website).select(pl.len()).collect().item() > 20, website


def test_runs_and_their_events_are_recorded_in_postgres_with_steps_on_both_workers(backfill, postgres):
    outcome, _, workers, _ = backfill
    events = PostgresEventLogStorage(postgres.url)
    hosts_by_step: dict[str, str] = {}
    materialized: set[tuple[str, str | None]] = set()
    for record in outcome.records:
        for event in events.get_logs_for_run(record.dagster_run.run_id):
            dagster_event = event.dagster_event
            if dagster_event is None:
                continue
            metadata = getattr(dagster_event.event_specific_data, "metadata", None) or {}
            if "Celery worker" in metadata:
                hosts_by_step[f"{record.dagster_run.run_id}:{event.step_key}"] = metadata["Celery worker"].value
            if dagster_event.is_step_materialization:
                materialized.add((dagster_event.asset_key.path[-1], dagster_event.partition))
    assert len(hosts_by_step) == len(WEBSITES) * len(ASSETS), "every step was sent to a Celery worker"
    assert {host.split("@")[0] for host in hosts_by_step.values()} == set(workers), "both workers ran steps"
    assert materialized == {(asset, website) for asset in ASSETS for website in WEBSITES}
