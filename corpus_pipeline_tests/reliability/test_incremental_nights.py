"""Incremental nights through Dagster against the demo website served on loopback (issue 44).

A first night parses every page. The next night, one post edited, keeps every other page's record and survey reading
and parses only what changed; a night with nothing changed parses nothing and keeps its versions of parsed_pages,
groups and corpus (no new one); then a full night (the ``corpus_pipeline/full_night`` run tag) over the same stored
crawl recomputes everything, and every record of parsed_pages, pdf_documents and corpus is the same, column for
column, in the same order.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import polars as pl

from corpus_pipeline.assets.incremental import FULL_NIGHT_TAG
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.definitions import defs
from corpus_pipeline_demo.server import serve_site
from corpus_pipeline_tests.support.http_server import LoopbackSite, Route

WEBSITE = "nightly"
COMPARED = ("parsed_pages", "pdf_documents", "canonical_url_groups", "corpus")
# A French translation: the sitemaps give it no lastmod, so the crawl asks for it again with its ETag each night.
EDITED_POST = "fr/blog/post-02.html"


def run_job(instance: dg.DagsterInstance, warehouse_dir: Path, job: str, tags: dict | None = None):
    config = {
        "resources": {
            "crawler_config": {"config": {"min_delay_s": 0.0}},
            "warehouse": {"config": {"base_dir": str(warehouse_dir)}},
        }
    }
    result = defs.resolve_job_def(job).execute_in_process(
        partition_key=WEBSITE, instance=instance, run_config=config, tags=tags or {}
    )
    assert result.success
    return result


def metadata(result: dg.ExecuteInProcessResult, asset: str) -> dict:
    (event,) = result.asset_materializations_for_node(asset)
    return {key: value.value for key, value in event.metadata.items()}


def test_an_incremental_night_parses_what_changed_and_equals_a_full_night(nightly_demo_root, nightly_site_port, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(nightly_demo_root, site)
    warehouse_dir = tmp_path / "warehouse"
    warehouse = Warehouse(warehouse_dir)
    with dg.instance_for_test() as instance:
        with serve_site(site, port=nightly_site_port):
            first = run_job(instance, warehouse_dir, "corpus_job")
            pages = metadata(first, "parsed_pages")["records_parsed"]
            assert metadata(first, "parsed_pages")["records_reused"] == 0
            assert metadata(first, "pdf_documents")["pdfs_reused"] == 0

            post = site / EDITED_POST
            post.write_text(post.read_text().replace("</main>", "<p>Mise à jour : les composteurs ont été déplacés dans le coin nord, près de la cabane à outils, pour l'hiver.</p></main>"))
            second = run_job(instance, warehouse_dir, "corpus_job")
        parsed = metadata(second, "parsed_pages")
        # The edited page, and the few whose crawl facts moved (a page found by a link before its sitemap entry
        # carries no sitemap lastmod that night, which its record's date may fall back on).
        assert parsed["survey_pages_read"] == 1 and parsed["survey_pages_reused"] == pages - 1, parsed
        # The sitemaps did not change: their listing is kept (the first night had none to keep).
        assert parsed["sitemaps_reused"] is True and metadata(first, "parsed_pages")["sitemaps_reused"] is False, parsed
        assert 1 <= parsed["records_parsed"] <= pages // 3 and parsed["records_reused"] >= 2 * pages // 3, parsed
        # Unchanged PDFs are not read again (one is when its crawl facts moved, as above, or when a record of its had
        # an error: an OCR budget run out on a loaded machine).
        pdfs = metadata(second, "pdf_documents")
        assert pdfs["pdfs_reused"] >= 1, pdfs
        assert pdfs["pdfs_reused"] + pdfs["pdfs_read"] == metadata(first, "pdf_documents")["pdfs_read"], pdfs
        # The corpus deduplicates again from what the first night learned: every text but the edited one's known.
        dedup = metadata(second, "corpus")
        assert dedup["dedup_reused"] is False and dedup["dedup_texts_known"] >= dedup["records_in"] - 3, dedup
        assert metadata(second, "canonical_url_groups")["groups_reused"] is False
        edited = warehouse.scan("parsed_pages", WEBSITE).filter(pl.col("url").str.ends_with(EDITED_POST)).collect()
        assert "composteurs ont été déplacés" in edited["content"][0]
        incremental = {asset: current_records(warehouse, asset) for asset in COMPARED}

        # Nothing changed since: the crawl asks again (304s), and every record, survey reading, page kind and the
        # corpus are kept; the versions too, for the night would write them again: no new one.
        versions = {asset: warehouse.history(asset, WEBSITE).current().id for asset in COMPARED}
        with serve_site(site, port=nightly_site_port):
            nothing_changed = run_job(instance, warehouse_dir, "corpus_job")
        unchanged = metadata(nothing_changed, "parsed_pages")
        assert unchanged["records_parsed"] == 0 and unchanged["survey_pages_read"] == 0, unchanged
        assert unchanged["page_kinds_reused"] is True, unchanged
        assert unchanged["sitemaps_reused"] is True, unchanged
        assert metadata(nothing_changed, "corpus")["dedup_reused"] is True
        assert metadata(nothing_changed, "canonical_url_groups")["groups_reused"] is True
        for asset in ("parsed_pages", "canonical_url_groups", "corpus"):
            assert metadata(nothing_changed, asset)["version_kept"] is True, asset
            assert warehouse.history(asset, WEBSITE).current().id == versions[asset], asset
        for asset in COMPARED:
            assert current_records(warehouse, asset).equals(incremental[asset]), asset

        # The same stored crawl, every page parsed and every PDF read again.
        full = run_job(instance, warehouse_dir, "reprocess_job", {FULL_NIGHT_TAG: "true"})
        assert metadata(full, "parsed_pages")["records_reused"] == 0
        assert metadata(full, "pdf_documents")["pdfs_reused"] == 0
        assert metadata(full, "corpus")["dedup_reused"] is False
        assert metadata(full, "canonical_url_groups")["groups_reused"] is False
        for asset in COMPARED:
            again = current_records(warehouse, asset)
            assert again.columns == incremental[asset].columns, asset
            assert again.height == incremental[asset].height, asset
            assert again.equals(incremental[asset]), (asset, differences(incremental[asset], again))


def current_records(warehouse: Warehouse, asset: str) -> pl.DataFrame:
    return warehouse.scan(asset, WEBSITE).collect()


def differences(left: pl.DataFrame, right: pl.DataFrame) -> list[tuple[int, str]]:
    """(row, column) of the first few values that differ, for the failure message."""
    found = []
    for column in left.columns:
        for row, (a, b) in enumerate(zip(left[column].to_list(), right[column].to_list(), strict=True)):
            if a != b:
                found.append((row, column))
    return found[:10]


def test_a_website_without_pdfs_keeps_every_version_but_the_crawls_on_an_unchanged_night(nightly_site_port, tmp_path):
    base = f"http://127.0.0.1:{nightly_site_port}"
    page = "<html><head><title>{0}</title></head><body><main><h1>{0}</h1><p>{1}</p></main></body></html>"
    text = "A page of the small website, with enough words in it to be read as a document of its own."
    urls = "".join(f"<url><loc>{base}/{name}.html</loc></url>" for name in "abc")
    routes = {
        "/robots.txt": Route(status=404, content_type="text/plain"),
        "/sitemap.xml": Route(body=f"<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{urls}</urlset>",
                              content_type="application/xml", etag='"map"'),
        **{f"/{name}.html": Route(body=page.format(name.upper(), f"{text} ({name})"), etag=f'"{name}"') for name in "abc"},
    }
    warehouse_dir = tmp_path / "warehouse"
    warehouse = Warehouse(warehouse_dir)
    kept_assets = [asset for asset in COMPARED if asset != "raw_pages"]
    with dg.instance_for_test() as instance, LoopbackSite(routes, port=nightly_site_port):
        run_job(instance, warehouse_dir, "corpus_job")
        first = {asset: warehouse.history(asset, WEBSITE).current().id for asset in (*COMPARED, "raw_pages")}
        second = run_job(instance, warehouse_dir, "corpus_job")
    assert warehouse.history("raw_pages", WEBSITE).current().id != first["raw_pages"], "a crawl is a new version"
    for asset in kept_assets:
        assert metadata(second, asset)["version_kept"] is True, asset
        assert warehouse.history(asset, WEBSITE).current().id == first[asset], asset
    assert warehouse.scan("pdf_documents", WEBSITE).collect().height == 0
