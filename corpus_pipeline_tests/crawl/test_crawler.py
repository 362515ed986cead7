"""The crawler against real HTTP servers on 127.0.0.1."""

import gzip
from dataclasses import replace

import polars as pl

from corpus_pipeline.core.partition_writer import PartitionWriter
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline.crawl.link_memo import LINKS_MEMO_SCHEMA, LinkMemo
from corpus_pipeline.crawl.previous import PreviousCrawl
from corpus_pipeline.crawl.report import pages_of_previous, summarize_crawl
from corpus_pipeline_tests.crawl.conftest import make_website, stored_crawl
from corpus_pipeline_tests.support.http_server import LoopbackSite, Response, Route

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def page(*links: str, head: str = "", text: str = "Some text.") -> str:
    anchors = "".join(f'<a href="{link}">{link}</a> ' for link in links)
    return f"<html><head>{head}</head><body><p>{text}</p>{anchors}</body></html>"


def urlset(site, *paths, lastmod="2026-01-02", extra=""):
    entries = "".join(f"<url><loc>{site.url(p)}</loc><lastmod>{lastmod}</lastmod>{extra}</url>" for p in paths)
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">{entries}</urlset>'


def by_url(rows, site):
    return {row["url"].replace(site.base_url, ""): row for row in rows}


def test_sitemap_index_gzip_lastmod_pdfs_and_robots_discovery(fast_settings):
    routes = {
        "/robots.txt": Route(body="User-agent: *\nAllow: /\n", content_type="text/plain"),
        "/a.html": Route(body=page()),
        "/b.html": Route(body=page()),
        "/doc.pdf": Route(body=PDF, content_type="application/pdf"),
        "/extra.html": Route(body=page()),
    }
    with LoopbackSite(routes) as site:
        routes["/robots.txt"].body += f"Sitemap: {site.url('/extra-sitemap.xml')}\n"
        routes["/sitemap.xml"] = Route(
            body=f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{site.url("/s1.xml")}</loc></sitemap>'
            f"<sitemap><loc>{site.url('/s2.xml.gz')}</loc></sitemap></sitemapindex>",
            content_type="application/xml",
        )
        routes["/s1.xml"] = Route(body=urlset(site, "/a.html", "/doc.pdf"), content_type="text/xml")
        routes["/s2.xml.gz"] = Route(
            body=gzip.compress(urlset(site, "/b.html").encode()), content_type="application/octet-stream"
        )
        routes["/extra-sitemap.xml"] = Route(body=urlset(site, "/extra.html"), content_type="application/xml")
        rows = list(crawl_website(make_website(site.url("/")), fast_settings))
        found = by_url(rows, site)
        assert found["/a.html"]["outcome"] == "fetched" and found["/a.html"]["kind"] == "html"
        assert found["/b.html"]["outcome"] == "fetched"
        assert found["/extra.html"]["source"] == "sitemap"
        assert found["/doc.pdf"]["kind"] == "pdf" and found["/doc.pdf"]["body"] == PDF
        assert found["/a.html"]["sitemap_lastmod"].isoformat() == "2026-01-02T00:00:00+00:00"
        assert found["/s2.xml.gz"]["kind"] == "sitemap"
        assert len(rows) == len(found), "each URL appears once"
        for path in ("/a.html", "/b.html", "/doc.pdf", "/sitemap.xml", "/robots.txt"):
            assert site.hits(path) == 1, path
        assert all(method == "GET" for method, _, _ in site.requests), "one GET per page, no HEAD"


def test_contains_str_decides_indexing_not_traversal_and_alternates_are_followed(fast_settings):
    alternates = (
        '<link rel="alternate" hreflang="fr" href="/fr/a.html"><link rel="alternate" hreflang="de" href="/de/a.html">'
    )
    routes = {
        "/a.html": Route(body=page(head=alternates)),
        "/docs/b.html": Route(body=page()),
        "/fr/a.html": Route(body=page()),
        "/de/a.html": Route(body=page()),
    }
    with LoopbackSite(routes) as site:
        routes["/sitemap.xml"] = Route(body=urlset(site, "/a.html", "/docs/b.html"), content_type="application/xml")
        website = make_website(site.url("/"), contains_str="/docs/", langs=["fr"])
        found = by_url(list(crawl_website(website, fast_settings)), site)
    assert found["/docs/b.html"]["indexable"] is True
    assert found["/a.html"]["indexable"] is False and found["/a.html"]["outcome"] == "fetched"
    assert found["/fr/a.html"]["hreflang"] == "fr" and found["/fr/a.html"]["source"] == "alternate"
    assert "/de/a.html" not in found, "only the requested languages"


def test_internal_links_modes_and_external_category(fast_settings):
    fast_settings = replace(fast_settings, allow_private_external=True)  # the "external" site is on loopback too
    with LoopbackSite({"/outside.html": Route(body=page())}) as other:
        routes = {
            "/a.html": Route(body=page("/inside.html", other.url("/outside.html"))),
            "/inside.html": Route(body=page()),
        }
        with LoopbackSite(routes) as site:
            routes["/sitemap.xml"] = Route(body=urlset(site, "/a.html"), content_type="application/xml")
            fetched = {}
            for mode in ("any", "internal", "external", "ignore"):
                rows = list(
                    crawl_website(make_website(site.url("/"), internal_links=mode, category="blog"), fast_settings)
                )
                fetched[mode] = {r["url"]: r["category"] for r in rows if r["kind"] == "html"}
    inside, outside = site.url("/inside.html"), other.url("/outside.html")
    assert set(fetched["any"]) >= {inside, outside}
    assert inside in fetched["internal"] and outside not in fetched["internal"]
    assert outside in fetched["external"] and inside not in fetched["external"]
    assert set(fetched["ignore"]) == {site.url("/a.html")}
    assert fetched["any"][outside] == "external" and fetched["any"][inside] == "blog"


def test_crawl_mode_depth_fragments_and_restrict_section_at_every_depth(fast_settings):
    routes = {
        "/sec/index.html": Route(body=page("a.html#top", "a.html#bottom", "/other.html", "/files/r.pdf")),
        "/sec/a.html": Route(body=page("b.html")),
        "/sec/b.html": Route(body=page("c.html")),
        "/sec/c.html": Route(body=page()),
        "/other.html": Route(body=page()),
        "/files/r.pdf": Route(body=PDF, content_type="application/pdf"),
    }
    with LoopbackSite(routes) as site:
        restricted = make_website(site.url("/"), mode="crawl", child="/sec/index.html", restrict_section=True)
        found = by_url(list(crawl_website(restricted, fast_settings)), site)
        assert {"/sec/a.html", "/sec/b.html", "/sec/c.html"} <= set(found), "section kept beyond one hop"
        assert "/other.html" not in found
        assert found["/files/r.pdf"]["kind"] == "pdf", "linked PDFs are fetched even outside the section"
        assert site.hits("/sec/a.html") == 1, "fragments never cause a second fetch"
        assert found["/sec/c.html"]["depth"] == 3

        shallow = make_website(site.url("/"), mode="crawl", child="/sec/index.html", max_recurse_level=2)
        found = by_url(list(crawl_website(shallow, fast_settings)), site)
        assert "/sec/a.html" in found and "/sec/b.html" not in found

        start_only = make_website(site.url("/"), mode="crawl", child="/sec/index.html", max_recurse_level=1)
        pages = [r for r in crawl_website(start_only, fast_settings) if r["kind"] == "html"]
        assert [r["url"] for r in pages] == [site.url("/sec/index.html")]


def test_pdfs_linked_from_pages_are_fetched_from_other_hosts(fast_settings):
    fast_settings = replace(fast_settings, allow_private_external=True)  # the other host is on loopback too
    with LoopbackSite({"/report.pdf": Route(body=PDF, content_type="application/pdf")}) as other:
        routes = {"/": Route(body=page(other.url("/report.pdf"), other.url("/page.html")))}
        with LoopbackSite(routes) as site:
            found = {r["url"]: r for r in crawl_website(make_website(site.url("/"), mode="crawl"), fast_settings)}
    assert found[other.url("/report.pdf")]["kind"] == "pdf"
    assert found[other.url("/report.pdf")]["category"] == "external"
    assert other.url("/page.html") not in found, "off-site pages are not crawled in crawl mode"


def test_no_follow_and_robots_are_obeyed_without_any_request(fast_settings):
    routes = {
        "/robots.txt": Route(body="User-agent: *\nDisallow: /private/\n", content_type="text/plain"),
        "/": Route(body=page("/private/x.html", "/login/", "/share?u=1", "/ok.html")),
        "/ok.html": Route(body=page()),
        "/private/x.html": Route(body=page()),
        "/login/": Route(body=page()),
    }
    with LoopbackSite(routes) as site:
        found = by_url(list(crawl_website(make_website(site.url("/"), mode="crawl"), fast_settings)), site)
        assert found["/private/x.html"]["outcome"] == "robots_disallowed"
        assert found["/login/"]["outcome"] == "no_follow"
        assert site.hits("/private/x.html") == 0 and site.hits("/login/") == 0
        assert found["/ok.html"]["outcome"] == "fetched"

        ignoring = make_website(site.url("/"), mode="crawl", obey_robots=False)
        found = by_url(list(crawl_website(ignoring, fast_settings)), site)
        assert found["/private/x.html"]["outcome"] == "fetched"


def test_crawl_delay_spaces_requests(fast_settings):
    routes = {
        "/robots.txt": Route(body="User-agent: *\nCrawl-delay: 0.3\n", content_type="text/plain"),
        "/": Route(body=page("/a.html", "/b.html")),
        "/a.html": Route(body=page()),
        "/b.html": Route(body=page()),
    }
    import time

    with LoopbackSite(routes) as site:
        started = time.monotonic()
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), fast_settings))
        elapsed = time.monotonic() - started
    assert sum(r["kind"] == "html" for r in rows) == 3
    assert elapsed >= 0.6, "three pages 0.3 s apart take at least 0.6 s"


def test_retries_on_503_and_retry_after(fast_settings):
    routes = {
        "/": Route(body=page("/flaky.html", "/limited.html")),
        "/flaky.html": Route(sequence=[Response(503), Response(200, page().encode())]),
        "/limited.html": Route(sequence=[Response(429, headers={"Retry-After": "1"}), Response(200, page().encode())]),
    }
    with LoopbackSite(routes) as site:
        found = by_url(list(crawl_website(make_website(site.url("/"), mode="crawl"), fast_settings)), site)
    assert found["/flaky.html"]["outcome"] == "fetched" and found["/flaky.html"]["attempts"] == 2
    assert found["/limited.html"]["outcome"] == "fetched" and found["/limited.html"]["attempts"] == 2
    assert found["/limited.html"]["elapsed_s"] >= 1.0, "Retry-After is honoured"


def test_hanging_server_redirect_loop_huge_body_and_wrong_type_are_recorded(fast_settings):
    routes = {
        "/": Route(body=page("/hang.html", "/loop", "/huge.html", "/image.png", "/fine.html")),
        "/hang.html": Route(body=page(), hang_s=5.0),
        "/loop": Route(status=302, headers={"Location": "/loop"}, body=b""),
        "/huge.html": Route(body=b"<html><body>" + b"x" * (20 * 1024 * 1024) + b"</body></html>"),
        "/image.png": Route(body=b"\x89PNG\r\n\x1a\n" + b"\0" * 5000, content_type="image/png"),
        "/fine.html": Route(body=page()),
    }
    from dataclasses import replace

    settings = replace(fast_settings, max_body_bytes=1024 * 1024, max_retries=0)
    with LoopbackSite(routes) as site:
        found = by_url(list(crawl_website(make_website(site.url("/"), mode="crawl"), settings)), site)
    assert found["/hang.html"]["outcome"] == "error" and "timeout" in found["/hang.html"]["error"]
    assert found["/loop"]["outcome"] == "error" and "redirect" in found["/loop"]["error"]
    assert found["/huge.html"]["outcome"] == "too_large" and found["/huge.html"]["body"] is None
    assert found["/huge.html"]["bytes"] < 2 * 1024 * 1024, "download stopped at the cap"
    assert found["/image.png"]["outcome"] == "unsupported_type" and found["/image.png"]["body"] is None
    assert found["/fine.html"]["outcome"] == "fetched", "the run goes on"


def test_gzip_bomb_and_xxe_sitemaps_are_harmless(fast_settings, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    from dataclasses import replace

    settings = replace(fast_settings, max_sitemap_bytes=1024 * 1024)
    bomb = gzip.compress(b'<?xml version="1.0"?><urlset>' + b" " * (100 * 1024 * 1024) + b"</urlset>")
    routes = {"/bomb.xml.gz": Route(body=bomb, content_type="application/gzip")}
    with LoopbackSite(routes) as site:
        routes["/sitemap.xml"] = Route(
            body=f'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY x SYSTEM "file://{secret}">]>'
            f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{site.url("/bomb.xml.gz")}</loc></sitemap>'
            f"<sitemap><loc>{site.url('/')}&x;</loc></sitemap></sitemapindex>",
            content_type="application/xml",
        )
        rows = list(crawl_website(make_website(site.url("/")), settings))
    found = by_url(rows, site)
    assert found["/bomb.xml.gz"]["outcome"] == "error" and "cap" in found["/bomb.xml.gz"]["error"]
    assert not any("TOP-SECRET" in row["url"] for row in rows)


def test_crawler_traps_stop_at_the_limits(fast_settings):
    def trap(request):
        depth = request.path.count("/")
        return Response(200, page(f"{request.path.rstrip('/')}/loop/", f"/calendar?day={depth}").encode())

    routes = {"/": Route(handler=trap), "/calendar": Route(handler=trap)}
    for depth in range(1, 40):
        routes["/" + "/".join(["loop"] * depth) + "/"] = Route(handler=trap)
    from dataclasses import replace

    settings = replace(fast_settings, max_query_variants=5, max_repeated_segments=3, max_pages=200)
    with LoopbackSite(routes) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), settings))
        assert site.total_requests < 30
    assert any(r["outcome"] == "limit_reached" for r in rows)


def test_recrawl_sends_conditional_requests_and_reuses_bodies(fast_settings, tmp_path):
    routes = {
        "/": Route(body=page("/a.html"), etag='"v1"'),
        "/a.html": Route(body=page(text="Stable text."), etag='"a1"'),
    }
    warehouse = Warehouse(tmp_path)
    with LoopbackSite(routes) as site:
        website = make_website(site.url("/"), mode="crawl")
        previous = stored_crawl(warehouse, website, fast_settings)
        first = pl.read_parquet(warehouse.path("raw_pages", "site"))
        second = list(crawl_website(website, fast_settings, previous))
        found = by_url(second, site)
        assert found["/a.html"]["outcome"] == "not_modified"
        assert found["/a.html"]["body"] == routes["/a.html"].body.encode()
        assert found["/"]["outcome"] == "not_modified", "links of unchanged pages are still followed"
        conditional = [headers for method, path, headers in site.requests if path == "/a.html"][-1]
        assert conditional.get("If-None-Match") == '"a1"'
    second_rows = pl.DataFrame(second, schema=pl.from_arrow(RAW_PAGES_SCHEMA.empty_table()).schema).lazy()
    summary = summarize_crawl(second_rows, first.lazy())
    assert summary["pages_unchanged"] == 2 and summary["pages_new"] == 0 and summary["pages_gone"] == 0
    assert pages_of_previous(second_rows, first.lazy()), "every page answered 304: the previous crawl's bodies"
    assert not pages_of_previous(first.lazy(), first.lazy()), "fetched pages are not known to be the previous ones"


def test_a_body_keeps_its_first_fetch_time_until_it_changes(fast_settings, tmp_path):
    routes = {
        "/": Route(body=page("/same.html", "/edited.html"), etag='"v1"'),
        "/same.html": Route(body=page(text="No validators, the same bytes each time.")),
        "/edited.html": Route(sequence=[Response(body=page(text="First words.").encode()),
                                        Response(body=page(text="Other words.").encode())]),
    }
    warehouse = Warehouse(tmp_path)
    with LoopbackSite(routes) as site:
        website = make_website(site.url("/"), mode="crawl")
        previous = stored_crawl(warehouse, website, fast_settings)
        first = by_url(pl.read_parquet(warehouse.path("raw_pages", "site")).to_dicts(), site)
        second = by_url(list(crawl_website(website, fast_settings, previous)), site)
    for path in ("/", "/same.html"):  # a 304, then the same bytes again
        assert second[path]["fetched_at"] > first[path]["fetched_at"], path
        assert second[path]["body_fetched_at"] == first[path]["body_fetched_at"] == first[path]["fetched_at"], path
    assert second["/edited.html"]["body_fetched_at"] == second["/edited.html"]["fetched_at"]
    assert all(row["body_fetched_at"] is None for row in second.values() if row["body"] is None)


def _crawl_stored(website, settings, warehouse, memo_path):
    """A first crawl of ``website`` into the warehouse's raw_pages, its pages' links written to a link memo."""
    with (
        warehouse.writer("raw_pages", "site", RAW_PAGES_SCHEMA) as out,
        PartitionWriter(memo_path, LINKS_MEMO_SCHEMA) as written,
    ):
        for row in crawl_website(website, settings, link_memo=LinkMemo(None, "reading 1", written)):
            out.write(row)


def test_a_recrawl_takes_the_links_of_unchanged_pages_from_the_link_memo(fast_settings, tmp_path):
    routes = {
        "/": Route(body=page("/a.html"), etag='"v1"'),
        "/a.html": Route(body=page("/b.html", text="Stable text."), etag='"a1"'),
        "/b.html": Route(body=page(text="Found through a's links."), etag='"b1"'),
    }
    warehouse = Warehouse(tmp_path)
    memo_path = tmp_path / "links.parquet"
    with LoopbackSite(routes) as site:
        website = make_website(site.url("/"), mode="crawl")
        _crawl_stored(website, fast_settings, warehouse, memo_path)
        previous = PreviousCrawl.open(warehouse.path("raw_pages", "site"))
        plain = list(crawl_website(website, fast_settings, previous))
        memo = LinkMemo(memo_path, "reading 1")
        second = list(crawl_website(website, fast_settings, previous, link_memo=memo))
        assert memo.kept == 3, "every page answered 304: its links are last night's"
        assert by_url(second, site)["/b.html"]["outcome"] == "not_modified", "found through links from the memo"
        other_code = LinkMemo(memo_path, "reading 2")
        third = list(crawl_website(website, fast_settings, previous, link_memo=other_code))
        assert other_code.kept == 0, "links read by other code are read again"
    timing = {"fetched_at", "elapsed_s", "pace_wait_s"}

    def stable(rows):
        return {r["url"]: {k: v for k, v in r.items() if k not in timing} for r in rows}

    assert stable(second) == stable(plain) and stable(third) == stable(plain)


def test_a_website_whose_host_is_down_is_recorded_not_raised(fast_settings):
    from corpus_pipeline_tests.conftest import free_port

    port = free_port()
    rows = list(crawl_website(make_website(f"http://127.0.0.1:{port}/", mode="crawl"), fast_settings))
    assert rows, "the failure is recorded"
    robots, start = rows[0], rows[1]
    assert robots["outcome"] == "error" and robots["error"] == f"connection refused to 127.0.0.1:{port}"
    assert start["outcome"] == "robots_disallowed", "an unreachable robots.txt is a complete disallow (RFC 9309)"
    assert f"connection refused to 127.0.0.1:{port}" in start["error"], "the cause stays in the page's row"

    ignoring = make_website(f"http://127.0.0.1:{port}/", mode="crawl", obey_robots=False)
    start = [r for r in crawl_website(ignoring, fast_settings) if r["source"] == "start"]
    assert start[0]["outcome"] == "error" and start[0]["error"] == f"connection refused to 127.0.0.1:{port}"
    assert start[0]["attempts"] == fast_settings.max_retries + 1


def test_unchanged_sitemap_lastmod_skips_the_request(fast_settings, tmp_path):
    routes = {"/a.html": Route(body=page(text="Kept from last night.")), "/b.html": Route(body=page())}
    warehouse = Warehouse(tmp_path)
    with LoopbackSite(routes) as site:
        routes["/sitemap.xml"] = Route(body=urlset(site, "/a.html", "/b.html"), content_type="application/xml")
        website = make_website(site.url("/"), internal_links="ignore")
        previous = stored_crawl(warehouse, website, fast_settings)
        routes["/sitemap.xml"] = Route(
            body=urlset(site, "/a.html").replace("</urlset>", "")
            + f"<url><loc>{site.url('/b.html')}</loc><lastmod>2026-05-05</lastmod></url></urlset>",
            content_type="application/xml",
        )
        hits_before = site.hits("/a.html"), site.hits("/b.html")
        found = by_url(list(crawl_website(website, fast_settings, previous)), site)
        assert found["/a.html"]["outcome"] == "unchanged_lastmod"
        assert found["/a.html"]["body"] == routes["/a.html"].body.encode(), "the stored body is carried over"
        assert site.hits("/a.html") == hits_before[0], "no request for an unchanged lastmod"
        assert found["/b.html"]["outcome"] == "fetched" and site.hits("/b.html") == hits_before[1] + 1


def test_links_read_for_a_crawl_that_did_not_follow_them_are_read_again_by_one_that_does(fast_settings, tmp_path):
    routes = {
        "/a.html": Route(body=page("/b.html", head='<meta name="robots" content="noindex">'), etag='"a1"'),
        "/b.html": Route(body=page(), etag='"b1"'),
    }
    warehouse = Warehouse(tmp_path)
    memo_path = tmp_path / "links.parquet"
    with LoopbackSite(routes) as site:
        routes["/sitemap.xml"] = Route(body=urlset(site, "/a.html"), content_type="application/xml")
        ignoring = make_website(site.url("/"), internal_links="ignore")
        _crawl_stored(ignoring, fast_settings, warehouse, memo_path)
        first = by_url(pl.read_parquet(warehouse.path("raw_pages", "site")).to_dicts(), site)
        assert first["/a.html"]["robots"] == "noindex" and "/b.html" not in first, "robots tags read, links not"
        previous = PreviousCrawl.open(warehouse.path("raw_pages", "site"))
        again = LinkMemo(memo_path, "reading 1")
        list(crawl_website(ignoring, fast_settings, previous, link_memo=again))
        assert again.kept == 1, "the same reading of the same page comes from the memo"
        following = LinkMemo(memo_path, "reading 1")
        found = by_url(list(crawl_website(make_website(site.url("/"), internal_links="any"), fast_settings, previous,
                                          link_memo=following)), site)
        assert following.kept == 0 and found["/a.html"]["outcome"] == "unchanged_lastmod", "last night's body"
        assert found["/b.html"]["outcome"] == "fetched", "the page's links were read this time"
        assert found["/a.html"]["robots"] == "noindex"


def test_private_addresses_are_recognized_without_traffic():
    from corpus_pipeline.crawl.politeness import is_private_host

    for host in (
        "127.0.0.1",
        "10.1.2.3",
        "192.168.0.1",
        "169.254.169.254",
        "localhost",
        "::1",
        "0.0.0.0",
        "::ffff:169.254.169.254",
        "[fe80::1%eth0]",
    ):
        assert is_private_host(host), host
    assert not is_private_host("8.8.8.8")


def test_sitemap_locs_written_as_paths_are_read_against_the_sitemap_address(fast_settings):
    # Jekyll's sitemap without `url` set writes <loc>/2013/09/</loc>: the pages are the site's all the same.
    routes = {"/2013/09/": Route(body=page()), "/guides/": Route(body=page())}
    entries = "".join(f"<url><loc>{path}</loc></url>" for path in ("/2013/09/", "guides/"))
    routes["/sitemap.xml"] = Route(
        body=f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>',
        content_type="application/xml",
    )
    with LoopbackSite(routes) as site:
        found = by_url(list(crawl_website(make_website(site.url("/")), fast_settings)), site)
    assert found["/2013/09/"]["outcome"] == "fetched" and found["/2013/09/"]["source"] == "sitemap"
    assert found["/guides/"]["outcome"] == "fetched"
