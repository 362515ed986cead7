"""What a website's sitemaps say of a page holds whatever the order of the crawl (issue 42), through Dagster.

A sitemap index names two sitemaps; the second is slow to answer. Meanwhile the first one's page links to a page the
second lists with its ``lastmod``: the crawl reaches that page by the link, before it reads the entry. The page is
still dated by its sitemap entry and known to be listed, and a ``<loc>`` written as a path counts as listed.
"""

from __future__ import annotations

from datetime import UTC, datetime

import dagster as dg
import polars as pl

from corpus_pipeline.assets import ALL_ASSETS
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
from corpus_pipeline_tests.support.http_server import LoopbackSite, Route

WEBSITE = "nightly"  # a sitemap-mode website of the tests' registry, on a port each test serves itself
XML = "application/xml"
URLSET = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</urlset>'
B_LASTMOD = datetime(2025, 4, 2, 8, 30, tzinfo=UTC)


def _page(title: str, text: str, links: str = "") -> str:
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
            f"<p>{text}</p>{links}</main></body></html>")


def _routes() -> dict[str, Route]:
    return {
        "/sitemap.xml": Route(content_type=XML, body=(
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            "<sitemap><loc>/first.xml</loc></sitemap><sitemap><loc>/second.xml</loc></sitemap></sitemapindex>")),
        "/first.xml": Route(content_type=XML, body=URLSET.format(
            "<url><loc>/a.html</loc><lastmod>2025-03-01</lastmod></url>")),
        # Slow: the first sitemap's page is fetched, and its link to /b.html followed, before this is read.
        "/second.xml": Route(content_type=XML, delay_s=2.0, body=URLSET.format(
            f"<url><loc>/b.html</loc><lastmod>{B_LASTMOD.isoformat()}</lastmod></url><url><loc>c.html</loc></url>")),
        "/a.html": Route(body=_page(
            "Pruning apple trees", "Winter is the season to prune apple trees, before the buds open in spring.",
            '<p>See also <a href="/b.html">grafting</a>.</p>')),
        "/b.html": Route(body=_page(
            "Grafting pears", "A pear scion takes best on quince rootstock when both are cut on the same day.")),
        "/c.html": Route(body=_page(
            "Storing potatoes", "Potatoes keep for months in a dark, frost-free cellar, away from the onions.")),
    }


def test_a_page_reached_by_a_link_before_its_sitemap_entry_is_dated_and_listed_by_it(nightly_site_port, tmp_path):
    resources = {
        "crawler_config": CrawlerConfig(min_delay_s=0.0, adaptive_pace=False),  # several requests in flight
        "websites": WebsiteRegistry(),
        "warehouse": ParquetWarehouse(base_dir=str(tmp_path)),
    }
    assets = [a for a in ALL_ASSETS if a.key.to_user_string() in ("raw_pages", "parsed_pages")]
    with LoopbackSite(_routes(), port=nightly_site_port) as site:
        assert dg.materialize(assets, partition_key=WEBSITE, resources=resources).success
    warehouse = Warehouse(tmp_path)
    raw = {row["url"].removeprefix(site.base_url): row for row in
           warehouse.scan("raw_pages", WEBSITE).collect().iter_rows(named=True)}
    # The race this test is about did happen: the crawl met /b.html as a link, without its lastmod.
    assert raw["/b.html"]["source"] == "link" and raw["/b.html"]["sitemap_lastmod"] is None
    parsed = {row["url"].removeprefix(site.base_url): row for row in
              warehouse.scan("parsed_pages", WEBSITE).collect().iter_rows(named=True)}
    assert parsed["/b.html"]["date"] == B_LASTMOD
    assert parsed["/a.html"]["date"] == datetime(2025, 3, 1, tzinfo=UTC)
    assert {path: parsed[path]["in_sitemap"] for path in ("/a.html", "/b.html", "/c.html")} == dict.fromkeys(
        ("/a.html", "/b.html", "/c.html"), True)
    assert pl.DataFrame(list(parsed.values()))["error"].null_count() == len(parsed)
