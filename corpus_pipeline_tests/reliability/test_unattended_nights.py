"""Nights that go wrong, told end to end through Dagster against the demo website served on loopback.

Site up, materialize; site down, then robots.txt answering 503, then a sitemap that lost most pages: each
night fails with its cause and the corpus stays byte-identical; reprocess_job rebuilds the same corpus;
site up again, the re-crawl is answered with 304s.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import polars as pl

from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.definitions import defs
from corpus_pipeline_demo.server import serve_site
from corpus_pipeline_tests.support.http_server import LoopbackSite, Route

WEBSITE = "nightly"
FAST = {"resources": {"crawler_config": {"config": {"min_delay_s": 0.0}}}}


def run_job(name: str, instance: dg.DagsterInstance, warehouse_dir: Path) -> dg.ExecuteInProcessResult:
    config = {"resources": {**FAST["resources"], "warehouse": {"config": {"base_dir": str(warehouse_dir)}}}}
    return defs.resolve_job_def(name).execute_in_process(
        partition_key=WEBSITE, instance=instance, run_config=config, raise_on_error=False
    )


def step_failure_message(result: dg.ExecuteInProcessResult) -> str:
    (failure,) = [event for event in result.all_events if event.is_step_failure]
    return failure.step_failure_data.error.message


def test_a_night_with_the_website_down_keeps_the_last_good_corpus(nightly_demo_root, nightly_site_port, tmp_path):
    warehouse_dir = tmp_path / "warehouse"
    warehouse = Warehouse(warehouse_dir)
    with dg.instance_for_test() as instance:
        with serve_site(nightly_demo_root, port=nightly_site_port):
            first = run_job("corpus_job", instance, warehouse_dir)
        assert first.success
        corpus_bytes = warehouse.path("corpus", WEBSITE).read_bytes()
        raw_bytes = warehouse.path("raw_pages", WEBSITE).read_bytes()
        pages = documents(warehouse).filter(pl.col("outcome") == "fetched").height

        down = run_job("corpus_job", instance, warehouse_dir)  # nothing listens on the port tonight
        assert not down.success
        message = step_failure_message(down)
        assert f"raw_pages for '{WEBSITE}': 0 of " in message
        assert f"connection refused to 127.0.0.1:{nightly_site_port}" in message
        assert warehouse.path("corpus", WEBSITE).read_bytes() == corpus_bytes
        assert warehouse.path("raw_pages", WEBSITE).read_bytes() == raw_bytes, "the conditional-GET state is kept"
        assert not any(down.asset_materializations_for_node(name) for name in ("corpus", "parsed_pages"))
        checks = {c.check_name: c for c in down.get_asset_check_evaluations()}
        assert not checks["website_reachable"].passed and checks["website_reachable"].partition == WEBSITE

        with LoopbackSite({"/robots.txt": Route(status=503)}, port=nightly_site_port):
            robots_failing = run_job("corpus_job", instance, warehouse_dir)
        assert "robots.txt" in step_failure_message(robots_failing) and "RFC 9309" in step_failure_message(robots_failing)

        with LoopbackSite(shrunken_site(nightly_site_port), port=nightly_site_port):
            collapsed = run_job("corpus_job", instance, warehouse_dir)
        assert "2 documents fetched, down 9" in step_failure_message(collapsed)
        assert f"from {pages} in the current version (max_row_drop_share 50%)" in step_failure_message(collapsed)
        assert warehouse.path("corpus", WEBSITE).read_bytes() == corpus_bytes
        assert warehouse.path("raw_pages", WEBSITE).read_bytes() == raw_bytes

        again = run_job("reprocess_job", instance, warehouse_dir)
        assert again.success
        assert_same_records(pl.read_parquet(warehouse.path("corpus", WEBSITE)), corpus_bytes, tmp_path)

        with serve_site(nightly_demo_root, port=nightly_site_port):
            back = run_job("corpus_job", instance, warehouse_dir)
        assert back.success
        unchanged = documents(warehouse).filter(pl.col("outcome").is_in(["not_modified", "unchanged_lastmod"]))
        assert unchanged.height == pages, "the state for conditional requests survived the bad night"
        assert "not_modified" in unchanged["outcome"], "pages without a sitemap lastmod answered 304"
        states = [v.state for v in reversed(warehouse.history("raw_pages", WEBSITE).versions())]
        assert states == ["published", "refused", "refused", "refused", "published"]


def shrunken_site(port: int) -> dict[str, Route]:
    """The website on a bad night: its sitemap lists two pages of the usual thirty-odd (a broken CMS export)."""
    base = f"http://127.0.0.1:{port}"
    page = "<html><head><title>{0}</title></head><body><main><h1>{0}</h1><p>{1}</p></main></body></html>"
    text = "This page is one of the two the broken sitemap still lists, with enough words to be a document."
    return {
        "/robots.txt": Route(status=404, content_type="text/plain"),
        "/sitemap.xml": Route(
            body=f"<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'><url><loc>{base}/a.html</loc></url>"
            f"<url><loc>{base}/b.html</loc></url></urlset>",
            content_type="application/xml",
        ),
        "/a.html": Route(body=page.format("A", text)),
        "/b.html": Route(body=page.format("B", text)),
    }


def documents(warehouse: Warehouse) -> pl.DataFrame:
    """Pages and PDFs of the current crawl (robots.txt and sitemaps left out)."""
    return warehouse.scan("raw_pages", WEBSITE).filter(pl.col("kind").is_in(["html", "pdf"])).collect()


def assert_same_records(corpus: pl.DataFrame, before: bytes, tmp_path: Path) -> None:
    """Same rows, ignoring when they were written (``fetched_at`` comes from the stored crawl, so it is equal too)."""
    previous = tmp_path / "before.parquet"
    previous.write_bytes(before)
    expected = pl.read_parquet(previous).sort("canonical_url")
    assert corpus.sort("canonical_url").equals(expected)
