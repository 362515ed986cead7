"""The whole pipeline through Dagster, against the demo website served on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from corpus_pipeline.assets import ALL_ASSETS
from corpus_pipeline.core.urls import canonical_url, normalize_url
from corpus_pipeline.core.warehouse import DATA_DIR_ENV_VAR, Warehouse
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def resources(warehouse_dir: Path) -> dict:
    return {
        "crawler_config": CrawlerConfig(min_delay_s=0.0),
        "websites": WebsiteRegistry(),
        "warehouse": ParquetWarehouse(base_dir=str(warehouse_dir)),
    }


@pytest.fixture(scope="module")
def demo_run(demo_site, tmp_path_factory):
    """All five assets materialized once for the demo website."""
    base_url, facts = demo_site
    warehouse_dir = tmp_path_factory.mktemp("warehouse")
    result = dg.materialize(ALL_ASSETS, partition_key="demo", resources=resources(warehouse_dir))
    assert result.success
    return base_url, facts, Warehouse(warehouse_dir), result


def test_every_sitemap_page_is_fetched_exactly_once(demo_run):
    base_url, facts, warehouse, _ = demo_run
    raw = warehouse.scan("raw_pages", "demo").collect()
    assert raw["url"].is_duplicated().sum() == 0
    fetched = set(raw.filter(pl.col("outcome") == "fetched")["url"])
    for page in facts.sitemap_pages:
        assert normalize_url(base_url + page) in fetched, page


def test_french_alternates_are_in_the_corpus_in_french(demo_run):
    base_url, facts, warehouse, _ = demo_run
    corpus = warehouse.scan("corpus", "demo").collect()
    by_url = dict(zip(corpus["canonical_url"], corpus["lang"]))
    for page in facts.french_pages:
        assert by_url.get(canonical_url(base_url + page)) == "fr", page


def test_archive_pages_are_absent_from_the_corpus(demo_run):
    base_url, facts, warehouse, _ = demo_run
    urls = set(warehouse.scan("corpus", "demo").collect()["canonical_url"])
    assert facts.archive_pages
    for page in facts.archive_pages:
        assert canonical_url(base_url + page) not in urls, page


def test_a_noindex_page_is_fetched_and_recorded_but_kept_out_of_the_corpus(demo_run):
    base_url, facts, warehouse, result = demo_run
    (page,) = facts.noindex_pages
    url = normalize_url(base_url + page)
    raw = warehouse.scan("raw_pages", "demo").filter(pl.col("url") == url).collect()
    assert raw.select("outcome", "indexable", "robots").rows() == [("fetched", False, "noindex")]
    assert raw["body"][0], "the body is kept: nothing is dropped silently"
    for asset in ("parsed_pages", "corpus"):
        assert warehouse.scan(asset, "demo").filter(pl.col("url") == url).collect().is_empty(), asset
    (crawl,) = [m.materialization for m in result.get_asset_materialization_events() if m.asset_key.path == ["raw_pages"]]
    assert crawl.metadata["pages_noindex"].value == 1


def test_duplicates_are_reduced_to_one_record_with_the_merge_recorded(demo_run):
    base_url, facts, warehouse, _ = demo_run
    corpus = warehouse.scan("corpus", "demo").collect()
    urls = set(corpus["canonical_url"])
    absorbed = {
        entry["url"]: entry["reason"] for entries in corpus["absorbed"].to_list() for entry in (entries or [])
    }
    for (first, second), reason in ((facts.exact_duplicate, "same_content"), (facts.near_duplicate, "near_duplicate")):
        pair = {canonical_url(base_url + first), canonical_url(base_url + second)}
        kept = pair & urls
        assert len(kept) == 1, (pair, kept)
        (dropped,) = pair - kept
        assert absorbed.get(dropped) == reason
        # The original, which the blog links to, wins over its reprint or draft, which nothing links to.
        assert kept == {canonical_url(base_url + first)}, kept


def test_pdf_outline_sections_start_on_their_pages(demo_run):
    base_url, facts, warehouse, _ = demo_run
    pdfs = warehouse.scan("pdf_documents", "demo").collect()
    sections = pdfs.filter(pl.col("url").str.contains(facts.outline_pdf, literal=True))
    urls = set(sections["url"])
    for title, page in facts.outline_sections:
        matching = sections.filter(pl.col("url").str.ends_with(f"#page={page}"))
        assert matching.height >= 1, (title, page, urls)
        assert any(title in t for t in matching["title"]), (title, matching["title"].to_list())


def test_the_scanned_pdf_is_read_by_ocr(demo_run):
    base_url, facts, warehouse, _ = demo_run
    ocr = warehouse.scan("pdf_documents", "demo").filter(pl.col("kind") == "pdf_ocr").collect()
    assert ocr.height >= 1
    text = " ".join(ocr["content"]).lower()
    for word in facts.scanned_words:
        assert word.lower() in text, word


def test_dates_are_utc_timestamps(demo_run):
    base_url, facts, warehouse, _ = demo_run
    corpus = warehouse.scan("corpus", "demo").collect()
    assert corpus.schema["date"] == pl.Datetime("us", "UTC")
    dates = {url: date for url, date in zip(corpus["canonical_url"], corpus["date"])}
    checked = 0
    for page, expected in facts.dated_pages.items():
        key = canonical_url(base_url + page)
        if key in dates:
            assert dates[key] == expected, page
            checked += 1
    assert checked >= 1


def test_materializations_report_rows_schema_and_preview(demo_run):
    *_, result = demo_run
    for materialization in result.get_asset_materialization_events():
        metadata = materialization.materialization.metadata
        assert {"dagster/row_count", "dagster/column_schema", "preview"} <= set(metadata)
    checks = result.get_asset_check_evaluations()
    assert checks and all(check.passed for check in checks)


def test_an_unreachable_website_fails_with_its_cause_and_keeps_the_attempt(tmp_path):
    result = dg.materialize(
        ALL_ASSETS[:1], partition_key="unreachable", resources=resources(tmp_path), raise_on_error=False
    )
    assert not result.success
    (failure,) = [event for event in result.all_events if event.is_step_failure]
    message = failure.step_failure_data.error.message
    assert "raw_pages for 'unreachable': 0 of 1 pages fetched: " in message and "connection refused to 127.0.0.1" in message
    warehouse = Warehouse(tmp_path)
    assert not warehouse.exists("raw_pages", "unreachable"), "a refused crawl never becomes current"
    (refused,) = warehouse.history("raw_pages", "unreachable").versions()
    assert refused.state == "refused" and refused.cause in message
    raw = pl.read_parquet(warehouse.history("raw_pages", "unreachable").path_of(refused.id))
    assert raw["error"].drop_nulls().len() >= 1
    reachable = [c for c in result.get_asset_check_evaluations() if c.check_name == "website_reachable"]
    assert reachable and not reachable[0].passed and reachable[0].partition == "unreachable"


def test_dagster_job_execute_as_ci_runs_it(demo_site, tmp_path):
    dagster = shutil.which("dagster", path=str(Path(os.sys.executable).parent)) or "dagster"
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path / "home"), DATA_DIR_ENV_VAR: str(tmp_path / "data")}
    (tmp_path / "home").mkdir()
    shutil.copy(PROJECT_ROOT / "dagster.yaml", tmp_path / "home" / "dagster.yaml")
    result = subprocess.run(
        [dagster, "job", "execute", "-m", "corpus_pipeline.definitions", "-j", "corpus_job",
         "--tags", json.dumps({"dagster/partition": "demo"})],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    warehouse = Warehouse(tmp_path / "data" / "warehouse")
    for asset in ("raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus"):
        assert warehouse.exists(asset, "demo"), asset
    assert warehouse.scan("corpus", "demo").select(pl.len()).collect().item() > 20


def test_the_config_resource_is_overridden_per_run_from_the_cli(demo_site, tmp_path):
    base_url, _ = demo_site
    config = tmp_path / "run_config.yaml"
    config.write_text(
        "resources:\n  crawler_config:\n    config:\n      no_follow: ['/blog/']\n      min_delay_s: 0.0\n"
    )
    dagster = shutil.which("dagster", path=str(Path(os.sys.executable).parent)) or "dagster"
    env = {**os.environ, "DAGSTER_HOME": str(tmp_path / "home"), DATA_DIR_ENV_VAR: str(tmp_path / "data")}
    (tmp_path / "home").mkdir()
    result = subprocess.run(
        [dagster, "asset", "materialize", "-m", "corpus_pipeline.definitions", "--select", "raw_pages",
         "--partition", "demo", "-c", str(config)],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    raw = Warehouse(tmp_path / "data" / "warehouse").scan("raw_pages", "demo").collect()
    blog = raw.filter(pl.col("url").str.contains("/blog/"))
    assert blog.height > 5
    assert set(blog["outcome"]) == {"no_follow"}, "the run's no_follow replaced the default list"
    login = raw.filter(pl.col("url").str.contains("/login/"))
    assert login["outcome"].to_list() == ["robots_disallowed"], "the default no_follow list is gone for this run"


def test_parsed_pages_says_which_element_of_the_template_its_documents_were_read_from(demo_run):
    _, _, warehouse, result = demo_run
    (parse,) = [m.materialization for m in result.get_asset_materialization_events()
                if m.asset_key.path == ["parsed_pages"]]
    containers = parse.metadata["content_containers"].value
    assert isinstance(containers, str) and containers
    read_through = warehouse.scan("parsed_pages", "demo").filter(pl.col("extraction") == "site_container").collect()
    # Records read through a container exist exactly when the website agreed on one.
    assert (containers == "none") == read_through.is_empty()
