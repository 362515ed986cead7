"""Robots meta tags, X-Robots-Tag and rel=nofollow: read as search engines read them, honoured by the crawl."""

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline.crawl.links import extract_links
from corpus_pipeline.crawl.previous import PreviousCrawl
from corpus_pipeline.crawl.report import summarize_crawl
from corpus_pipeline.crawl.robots_meta import RobotsDirectives, from_headers, from_meta, meta_names
from corpus_pipeline_tests.crawl.conftest import make_website, stored_crawl
from corpus_pipeline_tests.crawl.test_crawler import by_url, page, urlset
from corpus_pipeline_tests.support.http_server import LoopbackSite, Response, Route

AGENT = "corpus_pipeline/0.1 (+https://example.org)"
NOINDEX = RobotsDirectives(noindex=True)
NOFOLLOW = RobotsDirectives(nofollow=True)
BOTH = RobotsDirectives(noindex=True, nofollow=True)


@pytest.mark.parametrize(("contents", "expected"), [
    (["noindex"], NOINDEX),
    (["NoIndex, Follow"], NOINDEX),
    (["none"], BOTH),
    (["nofollow", "index"], NOFOLLOW),
    (["index, follow", "all"], RobotsDirectives()),
    (["noindex", "index"], NOINDEX),  # the most restrictive wins
    (["max-image-preview:large, noarchive"], RobotsDirectives()),
])
def test_meta_directives(contents, expected):
    assert from_meta(contents) == expected


@pytest.mark.parametrize(("fields", "expected"), [
    (["noindex"], NOINDEX),
    (["googlebot: noindex, nofollow"], RobotsDirectives()),  # another crawler's, to the end of its field
    (["googlebot: noindex", "nofollow"], NOFOLLOW),  # two fields: the second binds everyone
    (["Corpus_Pipeline: none"], BOTH),
    (["googlebot: noindex, corpus_pipeline: nofollow"], NOFOLLOW),
    (["unavailable_after: Friday, 25-Jun-2010 15:00:00 PST, nofollow"], NOFOLLOW),
    (["max-snippet: 20, NOINDEX"], NOINDEX),
    ([], RobotsDirectives()),
])
def test_header_directives(fields, expected):
    assert from_headers(fields, AGENT) == expected


def test_directives_as_recorded():
    assert NOINDEX.value == "noindex" and BOTH.value == "noindex, nofollow" and RobotsDirectives().value is None
    assert meta_names(AGENT) == {"robots", "corpus_pipeline"}


def test_rel_nofollow_ugc_and_sponsored_links_are_left_out_unless_asked():
    body = (b'<html><head><meta name="Robots" content="noindex"><meta name="googlebot" content="nofollow">'
            b'<meta name="corpus_pipeline" content="nofollow"></head><body>'
            b'<a href="/a">a</a><a rel="nofollow noopener" href="/b">b</a><a rel="UGC" href="/c">c</a>'
            b'<a rel="sponsored" href="/d">d</a><a rel="noopener" href="/e">e</a><a rel="nofollow" href="/a">a</a>'
            b'</body></html>')
    links = extract_links(body, "http://site.example/", robots_names=meta_names(AGENT))
    assert links.links == ("http://site.example/a", "http://site.example/e")
    assert links.robots_meta == ("noindex", "nofollow")
    everything = extract_links(body, "http://site.example/", follow_nofollow=True)
    assert [link.rsplit("/", 1)[1] for link in everything.links] == ["a", "b", "c", "d", "e"]
    assert everything.robots_meta == (), "meta tags are read only when asked"


def robots_site():
    """A website whose pages say every kind of robots directive, each linking to a page of its own."""
    def linking(name, head=""):
        return page(f"/from-{name}.html", head=head)

    routes = {
        "/": Route(body=page("/meta-noindex.html", "/header-noindex.html", "/none.html", "/nofollow.html",
                             "/googlebot.html", "/ours.html", "/report.pdf",
                             text='<a rel="nofollow" href="/sponsored.html">ad</a><a rel="ugc" href="/comment.html">c</a>')),
        "/meta-noindex.html": Route(body=linking("meta-noindex", '<meta name="ROBOTS" content="NoIndex, follow">')),
        "/header-noindex.html": Route(body=linking("header-noindex"), headers={"X-Robots-Tag": "noindex"}),
        "/none.html": Route(body=linking("none", '<meta name="robots" content="none">')),
        # Two fields: Googlebot's noindex is not ours; the bare nofollow is.
        "/nofollow.html": Route(body=linking("nofollow"),
                                headers={"X-Robots-Tag": "googlebot: noindex", "x-robots-tag": "nofollow"}),
        "/googlebot.html": Route(body=linking("googlebot", '<meta name="googlebot" content="noindex, nofollow">')),
        "/ours.html": Route(body=linking("ours", '<meta name="corpus_pipeline" content="noindex">')),
        "/report.pdf": Route(body=b"%PDF-1.4\n%%EOF\n", content_type="application/pdf",
                             headers={"X-Robots-Tag": "noindex"}),
        "/sponsored.html": Route(body=page()),
        "/comment.html": Route(body=page()),
    }
    for name in ("meta-noindex", "header-noindex", "none", "nofollow", "googlebot", "ours"):
        routes[f"/from-{name}.html"] = Route(body=page())
    return routes


def test_crawl_mode_honours_and_records_noindex_nofollow_and_none(fast_settings):
    with LoopbackSite(robots_site()) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), fast_settings))
        hits = {path: site.hits(path) for path in robots_site()}
    found = by_url(rows, site)
    robots = {path: (row["indexable"], row["robots"]) for path, row in found.items() if row["kind"] in ("html", "pdf")}
    assert robots == {
        "/": (True, None),
        "/meta-noindex.html": (False, "noindex"),
        "/header-noindex.html": (False, "noindex"),
        "/none.html": (False, "noindex, nofollow"),
        "/nofollow.html": (True, "nofollow"),
        "/googlebot.html": (True, None),
        "/ours.html": (False, "noindex"),
        "/report.pdf": (False, "noindex"),
        "/from-meta-noindex.html": (True, None),
        "/from-header-noindex.html": (True, None),
        "/from-googlebot.html": (True, None),
        "/from-ours.html": (True, None),
    }
    assert all(found[path]["outcome"] == "fetched" and found[path]["body"] for path in robots), "kept in raw_pages"
    assert hits["/from-none.html"] == 0 and hits["/from-nofollow.html"] == 0, "a nofollow page's links stay unasked"
    assert hits["/sponsored.html"] == 0 and hits["/comment.html"] == 0, "rel=nofollow and rel=ugc links are not followed"
    summary = summarize_crawl(pl.from_arrow(pa.Table.from_pylist(rows, RAW_PAGES_SCHEMA)).lazy(), None)
    assert summary["pages_noindex"] == 5 and summary["pages_nofollow"] == 2


def test_follow_nofollow_links_follows_marked_links_but_not_nofollow_pages(fast_settings):
    with LoopbackSite(robots_site()) as site:
        website = make_website(site.url("/"), mode="crawl", follow_nofollow_links=True)
        found = by_url(list(crawl_website(website, fast_settings)), site)
        assert site.hits("/sponsored.html") == 1 and site.hits("/comment.html") == 1
        assert site.hits("/from-nofollow.html") == 0, "the page-level nofollow still holds"
    assert found["/sponsored.html"]["indexable"] is True


def test_sitemap_mode_does_not_follow_the_internal_links_of_a_nofollow_page(fast_settings):
    routes = {
        "/a.html": Route(body=page("/linked-a.html")),
        "/b.html": Route(body=page("/linked-b.html", head='<meta name="robots" content="nofollow, noindex">')),
        "/linked-a.html": Route(body=page()),
        "/linked-b.html": Route(body=page()),
    }
    with LoopbackSite(routes) as site:
        routes["/sitemap.xml"] = Route(body=urlset(site, "/a.html", "/b.html"), content_type="application/xml")
        found = by_url(list(crawl_website(make_website(site.url("/"), internal_links="any"), fast_settings)), site)
        assert site.hits("/linked-a.html") == 1 and site.hits("/linked-b.html") == 0
    assert found["/b.html"]["indexable"] is False and found["/b.html"]["robots"] == "noindex, nofollow"


def test_a_recrawl_answered_304_keeps_the_header_noindex_of_the_previous_crawl(fast_settings, tmp_path):
    first = Response(200, page("/next.html").encode(), headers={"ETag": '"v1"', "X-Robots-Tag": "noindex, nofollow"})
    routes = {"/": Route(sequence=[first, Response(304, b"", None, {"ETag": '"v1"'})]), "/next.html": Route(body=page())}
    warehouse = Warehouse(tmp_path)
    with LoopbackSite(routes) as site:
        website = make_website(site.url("/"), mode="crawl")
        previous = stored_crawl(warehouse, website, fast_settings)
        again = by_url(crawl_website(website, fast_settings, previous), site)["/"]
        assert site.hits("/next.html") == 0
    assert again["outcome"] == "not_modified" and again["indexable"] is False and again["robots"] == "noindex, nofollow"


def test_a_partition_written_before_the_robots_column_still_serves_a_recrawl(fast_settings, tmp_path):
    routes = {"/": Route(body=page(), etag='"v1"')}
    path = tmp_path / "old.parquet"
    with LoopbackSite(routes) as site:
        website = make_website(site.url("/"), mode="crawl")
        rows = list(crawl_website(website, fast_settings))
        old_schema = RAW_PAGES_SCHEMA.remove(RAW_PAGES_SCHEMA.get_field_index("robots"))
        pq.write_table(pa.Table.from_pylist(rows, RAW_PAGES_SCHEMA).select(old_schema.names), path)
        again = by_url(crawl_website(website, fast_settings, PreviousCrawl.open(path)), site)["/"]
    assert again["outcome"] == "not_modified" and again["indexable"] is True and again["robots"] is None


def test_a_resumed_crawl_does_not_queue_the_links_of_a_nofollow_page(fast_settings):
    routes = {"/": Route(body=page("/next.html", head='<meta name="robots" content="nofollow">')),
              "/next.html": Route(body=page())}
    with LoopbackSite(routes) as site:
        website = make_website(site.url("/"), mode="crawl")
        interrupted = list(crawl_website(website, fast_settings))
        assert site.hits("/next.html") == 0
        for row in interrupted:
            row["robots"] = None  # a checkpoint written before the column: the page's meta tag is read again
        resumed = list(crawl_website(website, fast_settings, resumed=interrupted))
        assert resumed == [] and site.hits("/next.html") == 0 and site.hits("/") == 1
