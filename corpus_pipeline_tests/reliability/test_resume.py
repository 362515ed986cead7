"""A crawl interrupted after k rows resumes from them: no row twice, no page requested twice, nothing missing."""

from dataclasses import replace
from itertools import islice

import pyarrow.parquet as pq
import pytest

from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Route

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def page(*links: str) -> bytes:
    return ("<html><body><p>Text.</p>" + "".join(f'<a href="{link}">{link}</a>' for link in links) + "</body></html>").encode()


def crawl_site_routes() -> dict[str, Route]:
    routes = {
        "/robots.txt": Route(body="User-agent: *\nDisallow: /private/\n", content_type="text/plain"),
        "/": Route(body=page("/a.html", "/b.html", "/private/x.html", "/login/", "/doc.pdf")),
        "/a.html": Route(body=page("/a1.html", "/a2.html", "/b.html")),
        "/b.html": Route(body=page("/b1.html", "/a.html")),
        "/doc.pdf": Route(body=PDF, content_type="application/pdf"),
    }
    for leaf in ("/a1.html", "/a2.html", "/b1.html"):
        routes[leaf] = Route(body=page("/"))
    return routes


def sitemap_site_routes(site) -> None:
    routes = site.routes
    routes["/sitemap.xml"] = Route(
        body='<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + "".join(f"<sitemap><loc>{site.url(f'/s{c}.xml')}</loc></sitemap>" for c in range(3)) + "</sitemapindex>",
        content_type="application/xml",
    )
    for child in range(3):
        entries = "".join(f"<url><loc>{site.url(f'/s{child}/p{i}.html')}</loc></url>" for i in range(4))
        routes[f"/s{child}.xml"] = Route(body=f"<urlset>{entries}</urlset>", content_type="application/xml")
        for i in range(4):
            routes[f"/s{child}/p{i}.html"] = Route(body=page(f"/s{child}/linked{i}.html"))
            routes[f"/s{child}/linked{i}.html"] = Route(body=page())


def paths(rows, site) -> list[str]:
    return sorted(row["url"].replace(site.base_url, "") for row in rows)


def interrupted_then_resumed(site, website, settings, k: int, tmp_path) -> tuple[list[dict], list[dict]]:
    """Crawl until k rows are written, stop, then resume from the rows as read back from Parquet."""
    warehouse = Warehouse(tmp_path)
    crawl = crawl_website(website, settings)
    with warehouse.writer("raw_pages", "site", RAW_PAGES_SCHEMA) as out:
        first = list(islice(crawl, k))
        for row in first:
            out.write(row)
    crawl.close()
    resumed = (row for batch in pq.ParquetFile(warehouse.path("raw_pages", "site")).iter_batches(batch_size=2)
               for row in batch.to_pylist())
    return first, list(crawl_website(website, settings, resumed=resumed))


@pytest.mark.parametrize("k", [1, 2, 4, 7, 10])
def test_a_crawl_resumed_after_k_rows_completes_with_each_url_once(hostile_settings, tmp_path, k):
    settings = replace(hostile_settings, max_in_flight=1)  # nothing fetched but unwritten when the crawl stops
    with LoopbackSite(crawl_site_routes()) as full_site:
        full = paths(crawl_website(make_website(full_site.url("/"), mode="crawl"), settings), full_site)
    with LoopbackSite(crawl_site_routes()) as site:
        first, rest = interrupted_then_resumed(site, make_website(site.url("/"), mode="crawl"), settings, k, tmp_path)
        hits = {path: site.hits(path) for path in [*site.routes, "/private/x.html"]}
    assert len(first) == k
    assert paths(first + rest, site) == full, "the union is the full crawl, each URL exactly once"
    assert all(count <= 1 for count in hits.values()), hits
    assert hits["/private/x.html"] == 0, "robots.txt rules come back from the resumed robots row"


@pytest.mark.parametrize("k", [2, 3, 6])
def test_a_sitemap_crawl_resumes_from_its_sitemaps_and_pages(hostile_settings, tmp_path, k):
    settings = replace(hostile_settings, max_in_flight=1)
    with LoopbackSite({}) as full_site:
        sitemap_site_routes(full_site)
        full = paths(crawl_website(make_website(full_site.url("/"), internal_links="any"), settings), full_site)
    with LoopbackSite({}) as site:
        sitemap_site_routes(site)
        first, rest = interrupted_then_resumed(site, make_website(site.url("/"), internal_links="any"), settings, k, tmp_path)
        hits = {path: site.hits(path) for path in site.routes}
    assert paths(first + rest, site) == full
    assert all(count == 1 for count in hits.values()), hits


def test_resumed_documents_count_against_max_pages(hostile_settings, tmp_path):
    settings = replace(hostile_settings, max_in_flight=1)

    def fetched_documents(rows) -> list[str]:
        return sorted(r["url"].rsplit("/", 1)[-1] for r in rows if r["outcome"] == "fetched" and r["kind"] in ("html", "pdf"))

    with LoopbackSite(crawl_site_routes()) as site:
        uninterrupted = fetched_documents(crawl_website(make_website(site.url("/"), mode="crawl", max_pages=4), settings))
    with LoopbackSite(crawl_site_routes()) as site:
        first, rest = interrupted_then_resumed(site, make_website(site.url("/"), mode="crawl", max_pages=4), settings, 4, tmp_path)
    assert fetched_documents(first + rest) == uninterrupted
    assert sum(r["error"] == "max_pages (4) reached" for r in rest) > 0


@pytest.mark.parametrize("k", [2, 4])
def test_a_sitemap_crawl_over_its_page_budget_resumes_to_the_same_rows(hostile_settings, tmp_path, k):
    settings = replace(hostile_settings, max_in_flight=1)
    with LoopbackSite({}) as full_site:
        sitemap_site_routes(full_site)
        full = paths(crawl_website(make_website(full_site.url("/"), max_pages=5), settings), full_site)
    with LoopbackSite({}) as site:
        sitemap_site_routes(site)
        first, rest = interrupted_then_resumed(site, make_website(site.url("/"), max_pages=5), settings, k, tmp_path)
    assert paths(first + rest, site) == full
    assert sum(r["kind"] == "html" for r in first + rest) == 5
