"""Sitemap entries and child sitemaps count against the limits: a huge index costs a bounded number of rows."""

import gzip
from dataclasses import replace

from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Route

PAGE = "<html><body><p>Text.</p></body></html>"


def urlset(site, child: int, count: int) -> bytes:
    entries = "".join(f"<url><loc>{site.url(f'/s{child}/p{i}.html')}</loc></url>" for i in range(count))
    return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'.encode()


def index(site, children: int) -> str:
    items = "".join(f"<sitemap><loc>{site.url(f'/child{c}.xml.gz')}</loc></sitemap>" for c in range(children))
    return f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{items}</sitemapindex>'




def test_a_big_index_costs_max_pages_rows_not_one_row_per_entry(hostile_settings):
    routes: dict[str, Route] = {}
    with LoopbackSite(routes) as site:
        routes["/sitemap.xml"] = Route(body=index(site, 5), content_type="application/xml")
        for child in range(5):
            routes[f"/child{child}.xml.gz"] = Route(body=gzip.compress(urlset(site, child, 3000)), content_type="application/gzip")
        for i in range(3000):
            routes[f"/s0/p{i}.html"] = Route(body=PAGE)
        rows = list(crawl_website(make_website(site.url("/"), max_pages=20), hostile_settings))
        children_read = sum(site.hits(f"/child{c}.xml.gz") for c in range(5))
    pages = [r for r in rows if r["kind"] == "html"]
    assert len(pages) == 20
    assert len(rows) <= 20 + 5 + 2, "pages, sitemaps and robots.txt: no row per left-out entry"
    first = {r["url"]: r for r in rows}[site.url("/child0.xml.gz")]
    assert first["outcome"] == "fetched" and first["error"] == "limit: 2,980 sitemap entries beyond max_pages not queued"
    unread = [r for r in rows if r["url"].endswith(".xml.gz") and r["outcome"] == "limit_reached"]
    assert len(unread) == 4 and children_read == 1, "child sitemaps beyond the page budget are not requested"
    assert all("sitemap not read" in r["error"] for r in unread)


def test_max_sitemaps_bounds_the_sitemaps_read(hostile_settings):
    routes: dict[str, Route] = {}
    with LoopbackSite(routes) as site:
        routes["/sitemap.xml"] = Route(body=index(site, 6), content_type="application/xml")
        for child in range(6):
            routes[f"/child{child}.xml.gz"] = Route(body=gzip.compress(urlset(site, child, 1)), content_type="application/gzip")
        rows = list(crawl_website(make_website(site.url("/")), replace(hostile_settings, max_sitemaps=3)))
    read = [r for r in rows if r["kind"] == "sitemap"]
    refused = [r for r in rows if r["url"].endswith(".xml.gz") and r["outcome"] == "limit_reached"]
    assert len(read) == 3, "the index and two children"
    assert len(refused) == 4 and all(r["error"] == "max_sitemaps (3) reached: sitemap not read" for r in refused)


def test_a_sitemap_that_breaks_midway_keeps_what_was_read(hostile_settings):
    routes: dict[str, Route] = {}
    with LoopbackSite(routes) as site:
        whole = urlset(site, 0, 5000)  # several read blocks, so the break comes after some entries
        routes["/sitemap.xml"] = Route(body=gzip.compress(whole)[: len(gzip.compress(whole)) * 2 // 3], content_type="application/gzip")
        rows = list(crawl_website(make_website(site.url("/"), max_pages=5), hostile_settings))
    sitemap = {r["url"]: r for r in rows}[site.url("/sitemap.xml")]
    assert sitemap["outcome"] == "error" and "gzip" in sitemap["error"]
    assert any(r["source"] == "sitemap" for r in rows), "entries read before the break are crawled"
