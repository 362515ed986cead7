"""The demo pipeline through Dagster with the warehouse on s3:// (moto's server on loopback), read back with polars."""

from __future__ import annotations

import dagster as dg
import polars as pl
import pytest

from corpus_pipeline.assets import ALL_ASSETS
from corpus_pipeline.core.storage import ObjectStoreSettings
from corpus_pipeline.core.urls import canonical_url, normalize_url
from corpus_pipeline.core.warehouse import default_data_dir, open_warehouse
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry

ASSETS = ("raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus")


@pytest.fixture(scope="module")
def s3_run(demo_site, loopback_s3):
    """All five assets materialized twice for the demo website into an s3:// warehouse."""
    uri = f"s3://{loopback_s3.new_bucket()}/corpora"
    resources = {
        "crawler_config": CrawlerConfig(min_delay_s=0.0),
        "websites": WebsiteRegistry(),
        "warehouse": ParquetWarehouse(base_dir=uri, s3_endpoint_url=loopback_s3.endpoint_url),
    }
    first = dg.materialize(ALL_ASSETS, partition_key="demo", resources=resources)
    second = dg.materialize(ALL_ASSETS, partition_key="demo", resources=resources)  # incremental, from S3
    assert first.success and second.success
    return uri, demo_site, second


def notebook_options(loopback_s3) -> dict[str, str]:
    """What a notebook passes to polars: the endpoint; credentials come from the AWS environment variables."""
    return ObjectStoreSettings(endpoint_url=loopback_s3.endpoint_url).polars_options()


def test_polars_reads_the_corpus_straight_from_s3_with_hive_partitioning(s3_run, loopback_s3):
    uri, (base_url, facts), _ = s3_run
    corpus = pl.scan_parquet(
        f"{uri}/corpus/**/*.parquet", hive_partitioning=True, storage_options=notebook_options(loopback_s3)
    ).collect()
    assert corpus.height > 20 and set(corpus["website"]) == {"demo"}
    languages = dict(zip(corpus["canonical_url"], corpus["lang"]))
    for page in facts.french_pages:
        assert languages.get(canonical_url(base_url + page)) == "fr", page


def test_every_sitemap_page_is_fetched_and_the_second_crawl_reused_the_first(s3_run, loopback_s3):
    uri, (base_url, facts), _ = s3_run
    raw = pl.read_parquet(
        f"{uri}/raw_pages/website=demo/data.parquet", storage_options=notebook_options(loopback_s3)
    )
    assert raw["url"].is_duplicated().sum() == 0
    kept = set(raw.filter(pl.col("outcome").is_in(["fetched", "not_modified", "unchanged_lastmod"]))["url"])
    for page in facts.sitemap_pages:
        assert normalize_url(base_url + page) in kept, page
    reused = raw.filter(pl.col("outcome").is_in(["not_modified", "unchanged_lastmod"]))
    assert reused.height > 0, "the previous crawl, read from S3, saved requests"
    assert reused["body"].is_not_null().all(), "and its bodies came from the version on S3"


def test_each_partition_is_its_current_version_and_nothing_is_left_behind(s3_run, loopback_s3):
    uri, _, second = s3_run
    warehouse = open_warehouse(uri, endpoint_url=loopback_s3.endpoint_url)
    for asset in ASSETS:
        history = warehouse.history(asset, "demo")
        versions = history.versions()
        (materialization,) = second.asset_materializations_for_node(asset)
        # The second night writes a version of an asset whose output changed (the crawl's, at least), and keeps the
        # current one of the others.
        kept = materialization.metadata["version_kept"].value
        assert [v.state for v in versions] == ["published"] * (1 if kept else 2), asset
        assert asset != "raw_pages" or not kept
        current = warehouse.store.read_bytes(f"{asset}/website=demo/data.parquet")
        assert current == warehouse.store.read_bytes(f"_versions/{asset}/website=demo/{versions[0].id}.parquet"), asset
        assert not warehouse.store.exists(f"_versions/{asset}/website=demo/.lease"), asset
    assert warehouse.store.list("_checkpoints/raw_pages/website=demo") == [], "the crawl journal was cleared"
    assert not (default_data_dir() / "warehouse" / "corpus").exists(), "nothing was written to a local warehouse"


def test_materializations_point_at_the_objects(s3_run):
    uri, _, result = s3_run
    for materialization in result.get_asset_materialization_events():
        metadata = materialization.materialization.metadata
        assert metadata["path"].value.startswith(f"{uri}/"), metadata["path"]
        assert metadata["dagster/row_count"].value > 0
    checks = result.get_asset_check_evaluations()
    assert checks and all(check.passed for check in checks)


def test_every_worker_finds_the_shared_warehouse_from_its_environment(loopback_s3, bucket, monkeypatch):
    monkeypatch.setenv("CORPUS_PIPELINE_WAREHOUSE", f"s3://{bucket}/shared")
    monkeypatch.setenv("AWS_ENDPOINT_URL", loopback_s3.endpoint_url)
    warehouse = ParquetWarehouse(s3_lease_seconds=60).open()
    assert warehouse.uri == f"s3://{bucket}/shared" and warehouse.lease_seconds == 60
    assert warehouse.storage_options()["aws_endpoint_url"] == loopback_s3.endpoint_url
