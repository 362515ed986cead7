"""A crawl killed mid-way, as abruptly as a machine losing power, resumes on the next run through Dagster."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import polars as pl

from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import DATA_DIR_ENV_VAR, Warehouse
from corpus_pipeline_demo.server import serve_site

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WEBSITE = "nightly"


def test_a_killed_crawl_resumes_without_fetching_a_page_twice(nightly_demo_root, nightly_site_port, tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    env = {**os.environ, "DAGSTER_HOME": str(home), DATA_DIR_ENV_VAR: str(data)}
    warehouse = Warehouse(data / "warehouse")
    checkpoint = warehouse.checkpoint("raw_pages", WEBSITE, RAW_PAGES_SCHEMA)
    config = tmp_path / "run_config.yaml"
    # One request at a time, each answered in 0.2 s, a checkpoint every 4 rows: long enough to be killed mid-way.
    config.write_text(
        "resources:\n  crawler_config:\n    config:\n"
        "      min_delay_s: 0.0\n      per_host_concurrency: 1\n      checkpoint_every_rows: 4\n"
    )
    command = [str(Path(sys.executable).parent / "dagster"), "asset", "materialize", "-m", "corpus_pipeline.definitions",
               "--select", "raw_pages", "--partition", WEBSITE, "-c", str(config)]
    requests: list[str] = []
    with serve_site(nightly_demo_root, port=nightly_site_port, latency_s=0.2, request_log=requests):
        run = subprocess.Popen(command, cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 300
        while len(checkpoint.parts()) < 2 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(run.pid, signal.SIGKILL)  # as abrupt as a machine losing power: no clean-up runs
        run.wait(30)
        checkpointed = {urlsplit(row["url"]).path for row in checkpoint.rows()}
        first_run_requests = len(requests)
        assert checkpointed and not warehouse.exists("raw_pages", WEBSITE), "killed mid-way, after a checkpoint"

        finished = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stdout[-2000:] + finished.stderr[-2000:]
    second_run = requests[first_run_requests:]
    assert second_run, "the second run went on crawling"
    assert not checkpointed & set(second_run), "nothing checkpointed was requested again"
    raw = warehouse.scan("raw_pages", WEBSITE).collect()
    assert raw["url"].is_duplicated().sum() == 0
    assert {urlsplit(url).path for url in raw["url"]} >= checkpointed, "the checkpointed rows are in the crawl"
    assert raw.filter(pl.col("outcome") == "fetched").height > 20
    assert checkpoint.parts() == [], "a finished crawl clears its checkpoint"
