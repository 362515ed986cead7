"""A soft outage, told end to end through Dagster against the demo website served on loopback (issue 43, item 3).

A good night publishes. Then the website goes into maintenance: its sitemaps still list every page (with a fresh
lastmod), but every page answers 200 with one "Down for maintenance" page. raw_pages, the first asset whose content
shows it, refuses the night in one line; nothing after it runs, and every current version (the crawl and its
conditional-GET state included) stays byte for byte. The website comes back: the next night sends the first night's
validators, is answered with 304s and publishes the same corpus.
"""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import dagster as dg
import polars as pl

from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.definitions import defs
from corpus_pipeline_demo.server import serve_site
from corpus_pipeline_demo.site import SITEMAP_LASTMOD

WEBSITE = "nightly"
ASSETS = ("raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus")
MAINTENANCE = (
    "<!DOCTYPE html><html><head><title>Down for maintenance</title></head><body><h1>Down for maintenance</h1>"
    "<p>We are upgrading our servers and will be back within the hour. Thank you for your patience.</p></body></html>"
)


def run_corpus_job(instance: dg.DagsterInstance, warehouse_dir: Path) -> dg.ExecuteInProcessResult:
    config = {
        "resources": {
            "crawler_config": {"config": {"min_delay_s": 0.0}},
            "warehouse": {"config": {"base_dir": str(warehouse_dir)}},
        }
    }
    return defs.resolve_job_def("corpus_job").execute_in_process(
        partition_key=WEBSITE, instance=instance, run_config=config, raise_on_error=False
    )


def test_a_soft_outage_is_refused_at_raw_pages_keeping_the_crawl_state_for_the_next_good_night(
    nightly_demo_root, nightly_site_port, tmp_path
):
    warehouse_dir = tmp_path / "warehouse"
    warehouse = Warehouse(warehouse_dir)
    with dg.instance_for_test() as instance:
        with serve_site(nightly_demo_root, port=nightly_site_port):
            good = run_corpus_job(instance, warehouse_dir)
        assert good.success
        files = {asset: warehouse.path(asset, WEBSITE).read_bytes() for asset in ASSETS}
        first_pages = pages(warehouse)

        with serve_site(maintenance_site(nightly_demo_root, tmp_path / "maintenance"), port=nightly_site_port):
            outage = run_corpus_job(instance, warehouse_dir)
        assert not outage.success
        (failure,) = [event for event in outage.all_events if event.is_step_failure]
        assert failure.step_key == "raw_pages", "refused at the first asset whose content shows it"
        message = failure.step_failure_data.error.message
        assert f"raw_pages for '{WEBSITE}': " in message and "\n" not in message.strip()
        shared = "pages share one title 'Down for maintenance' (a soft outage?): distinct titles 1 of"
        assert f"{shared} {first_pages.height}, " in message
        assert f"of {first_pages.height} in the current version (max_distinct_drop_share 50%)" in message
        assert not any(outage.asset_materializations_for_node(asset) for asset in ASSETS)
        assert {asset: warehouse.path(asset, WEBSITE).read_bytes() for asset in ASSETS} == files
        refused = warehouse.history("raw_pages", WEBSITE).versions()[0]
        assert refused.state == "refused" and refused.cause is not None and refused.cause in message
        checks = {c.check_name: c for c in outage.get_asset_check_evaluations()}
        assert not checks["distinct_vs_current"].passed and checks["distinct_vs_current"].partition == WEBSITE

        with serve_site(nightly_demo_root, port=nightly_site_port):
            back = run_corpus_job(instance, warehouse_dir)
        assert back.success
        again = pages(warehouse)
        assert set(again["outcome"]) <= {"not_modified", "unchanged_lastmod"}, "nothing was fetched again"
        answered_304 = again.filter(pl.col("outcome") == "not_modified")
        assert answered_304.height > 0, "pages without a sitemap lastmod sent the first night's ETags"
        first_etags = dict(first_pages.select("url", "etag").iter_rows())
        assert all(first_etags[url] == etag for url, etag in answered_304.select("url", "etag").iter_rows())
        assert same_records(warehouse.scan("corpus", WEBSITE).collect(), files["corpus"], tmp_path)
        states = [v.state for v in reversed(warehouse.history("raw_pages", WEBSITE).versions())]
        assert states == ["published", "refused", "published"]


def test_a_soft_outage_inside_the_website_template_is_refused_at_parsed_pages(
    nightly_demo_root, nightly_site_port, tmp_path
):
    """Pages that keep their template and their own title, their text replaced by a maintenance notice: every body
    and every title differs, so the crawl cannot tell (raw_pages publishes, and with it the maintenance pages'
    validators); the records show it, one text for every page, and nothing built from them is replaced."""
    warehouse_dir = tmp_path / "warehouse"
    warehouse = Warehouse(warehouse_dir)
    with dg.instance_for_test() as instance:
        with serve_site(nightly_demo_root, port=nightly_site_port):
            assert run_corpus_job(instance, warehouse_dir).success
        kept = {asset: warehouse.path(asset, WEBSITE).read_bytes() for asset in ASSETS[1:] if asset != "pdf_documents"}

        notice = "<main id='content'><p>This page is being updated and will be back shortly. Thank you.</p></main>"
        site = maintenance_site(nightly_demo_root, tmp_path / "maintenance", notice)
        with serve_site(site, port=nightly_site_port):
            outage = run_corpus_job(instance, warehouse_dir)
        (failure,) = [event for event in outage.all_events if event.is_step_failure]
        assert failure.step_key == "parsed_pages"
        assert "pages share one text (a soft outage?)" in failure.step_failure_data.error.message
        assert {asset: warehouse.path(asset, WEBSITE).read_bytes() for asset in kept} == kept


def maintenance_site(demo_root: Path, root: Path, main: str | None = None) -> Path:
    """The demo website in maintenance: every HTML page answers one maintenance page (or, with ``main``, keeps its
    template with ``main`` for its main element), while robots.txt, the PDFs and the sitemaps are still served (from
    a cache), the sitemaps with every lastmod moved to the maintenance day."""
    shutil.copytree(demo_root, root)
    for page in root.rglob("*.html"):
        if main is None:
            page.write_text(MAINTENANCE)
        else:
            page.write_text(re.sub(r"<main\b.*?</main>", main, page.read_text(), flags=re.DOTALL))
    for sitemap in root.rglob("sitemap*.xml"):
        sitemap.write_text(sitemap.read_text().replace(SITEMAP_LASTMOD, "2026-11-28"))
    for sitemap in root.rglob("sitemap*.xml.gz"):
        text = gzip.decompress(sitemap.read_bytes()).decode()
        sitemap.write_bytes(gzip.compress(text.replace(SITEMAP_LASTMOD, "2026-11-28").encode(), mtime=0))
    return root


def pages(warehouse: Warehouse) -> pl.DataFrame:
    """HTML pages of the current crawl."""
    return warehouse.scan("raw_pages", WEBSITE).filter(pl.col("kind") == "html").collect()


def same_records(corpus: pl.DataFrame, before: bytes, tmp_path: Path) -> bool:
    """The same documents as the first night's corpus: URLs, titles and texts."""
    previous = tmp_path / "first_corpus.parquet"
    previous.write_bytes(before)
    columns = ["canonical_url", "url", "title", "content"]
    return corpus.select(columns).sort("canonical_url").equals(pl.read_parquet(previous, columns=columns).sort("canonical_url"))
