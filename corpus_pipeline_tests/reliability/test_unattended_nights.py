"""Nights that go wrong, told end to end through Dagster against the demo website served on loopback.

Site up, materialize; site down, the run fails with its cause and the corpus stays byte-identical;
reprocess_job rebuilds the same corpus; site up again, the re-crawl is answered with 304s.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import dagster as dg
import polars as pl
import pytest

from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import DATA_DIR_ENV_VAR, Warehouse
from corpus_pipeline.definitions import defs
from corpus_pipeline.demo.server import serve_site
from corpus_pipeline.demo.site import build_demo_site

PROJECT_ROOT = Path(__file__).resolve().parents[2]
WEBSITE = "nightly"
FAST = {"resources": {"crawler_config": {"config": {"min_delay_s": 0.0}}}}


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("nightly_site")
    build_demo_site(root)
    return root


def run_job(name: str, instance: dg.DagsterInstance, warehouse_dir: Path) -> dg.ExecuteInProcessResult:
    config = {"resources": {**FAST["resources"], "warehouse": {"config": {"base_dir": str(warehouse_dir)}}}}
    return defs.resolve_job_def(name).execute_in_process(
        partition_key=WEBSITE, instance=instance, run_config=config, raise_on_error=False
    )


def step_failure_message(result: dg.ExecuteInProcessResult) -> str:
    (failure,) = [event for event in result.all_events if event.is_step_failure]
    return failure.step_failure_data.error.message


def test_a_night_with_the_website_down_keeps_the_last_good_corpus(demo_root, nightly_site_port, tmp_path):
    warehouse_dir = tmp_path / "warehouse"
    warehouse = Warehouse(warehouse_dir)
    with dg.instance_for_test() as instance:
        with serve_site(demo_root, port=nightly_site_port):
            first = run_job("corpus_job", instance, warehouse_dir)
        assert first.success
        corpus_bytes = warehouse.path("corpus", WEBSITE).read_bytes()
        raw_bytes = warehouse.path("raw_pages", WEBSITE).read_bytes()
        pages = warehouse.scan("raw_pages", WEBSITE).filter(pl.col("outcome") == "fetched").select(pl.len()).collect().item()

        down = run_job("corpus_job", instance, warehouse_dir)  # nothing listens on the port tonight
        assert not down.success
        message = step_failure_message(down)
        assert f"raw_pages for '{WEBSITE}': 0 of " in message
        assert "127.0.0.1" in message and "connection" in message
        assert warehouse.path("corpus", WEBSITE).read_bytes() == corpus_bytes
        assert warehouse.path("raw_pages", WEBSITE).read_bytes() == raw_bytes, "the conditional-GET state is kept"
        assert not any(down.asset_materializations_for_node(name) for name in ("corpus", "parsed_pages"))
        checks = {c.check_name: c for c in down.get_asset_check_evaluations()}
        assert not checks["website_reachable"].passed and checks["website_reachable"].partition == WEBSITE

        again = run_job("reprocess_job", instance, warehouse_dir)
        assert again.success
        assert_same_records(pl.read_parquet(warehouse.path("corpus", WEBSITE)), corpus_bytes, tmp_path)

        with serve_site(demo_root, port=nightly_site_port):
            back = run_job("corpus_job", instance, warehouse_dir)
        assert back.success
        recrawl = warehouse.scan("raw_pages", WEBSITE).collect()
        unchanged = recrawl.filter(pl.col("outcome").is_in(["not_modified", "unchanged_lastmod"]))
        assert unchanged.height >= pages - 1, "the state for conditional requests survived the bad night"
        assert "not_modified" in unchanged["outcome"], "pages without a sitemap lastmod answered 304"
        assert [v.state for v in warehouse.history("raw_pages", WEBSITE).versions()] == [
            "published", "refused", "published"
        ]


def assert_same_records(corpus: pl.DataFrame, before: bytes, tmp_path: Path) -> None:
    """Same rows, ignoring when they were written (``fetched_at`` comes from the stored crawl, so it is equal too)."""
    previous = tmp_path / "before.parquet"
    previous.write_bytes(before)
    expected = pl.read_parquet(previous).sort("canonical_url")
    assert corpus.sort("canonical_url").equals(expected)
