"""Redirects are followed hop by hop and every hop is judged before it is requested (SSRF, no_follow, robots)."""

from dataclasses import replace

from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Route

METADATA = "http://169.254.169.254/latest/meta-data/"


def page(*links: str) -> str:
    return "<html><body><p>Text.</p>" + "".join(f'<a href="{link}">{link}</a>' for link in links) + "</body></html>"


def redirect(location: str, status: int = 302) -> Route:
    return Route(status=status, headers={"Location": location}, body=b"")


def rows_by_path(rows, site) -> dict[str, dict]:
    return {row["url"].replace(site.base_url, ""): row for row in rows}


def test_a_redirect_to_a_private_address_is_refused_without_connecting(hostile_settings, network_guard):
    routes = {"/": Route(body=page("/meta", "/ok.html")), "/meta": redirect(METADATA), "/ok.html": Route(body=page())}
    with LoopbackSite(routes) as site:
        found = rows_by_path(crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings), site)
    assert network_guard.attempts == [], "no lookup or connection beyond loopback"
    assert found["/meta"]["outcome"] == "private_address"
    assert METADATA in found["/meta"]["error"], "the error names the refused hop"
    assert found["/meta"]["body"] is None and found["/meta"]["final_url"] == METADATA
    assert found["/ok.html"]["outcome"] == "fetched", "the run goes on"


def test_a_loopback_website_does_not_open_the_guard_for_other_hosts(hostile_settings, network_guard):
    routes = {"/": Route(body=page("http://10.0.0.1/admin", METADATA, "/inside.html")), "/inside.html": Route(body=page())}
    with LoopbackSite(routes) as site:
        routes["/sitemap.xml"] = Route(body=f"<urlset><url><loc>{site.url('/')}</loc></url></urlset>", content_type="text/xml")
        rows = list(crawl_website(make_website(site.url("/"), internal_links="any"), hostile_settings))
    by_url = {row["url"]: row for row in rows}
    assert network_guard.attempts == []
    assert by_url["http://10.0.0.1/admin"]["outcome"] == "private_address"
    assert by_url[METADATA]["outcome"] == "private_address"
    assert by_url[f"{site.base_url}/inside.html"]["outcome"] == "fetched", "the website's own host stays exempt"


def test_same_site_hosts_are_exempt_and_allow_private_external_opens_the_rest(hostile_settings):
    with LoopbackSite({"/other.pdf": Route(body=b"%PDF-1.4\n%%EOF\n", content_type="application/pdf")}) as other:
        routes = {"/": Route(body=page(other.url("/other.pdf"), "/alias")), "/target.html": Route(body=page())}
        with LoopbackSite(routes) as site:
            port = site.base_url.rsplit(":", 1)[1]
            routes["/alias"] = redirect(f"http://localhost:{port}/target.html")
            website = make_website(site.url("/"), mode="crawl", same_site_hosts=[f"localhost:{port}"])
            guarded = {row["url"]: row for row in crawl_website(website, hostile_settings)}
            opened = {row["url"]: row for row in crawl_website(website, replace(hostile_settings, allow_private_external=True))}
    alias = guarded[site.url("/alias")]
    assert alias["outcome"] == "fetched" and alias["final_url"] == f"http://localhost:{port}/target.html"
    assert guarded[other.url("/other.pdf")]["outcome"] == "private_address"
    assert opened[other.url("/other.pdf")]["outcome"] == "fetched"


def test_each_hop_is_one_request_and_final_url_is_the_last_hop(hostile_settings):
    routes = {"/": Route(body=page("/a")), "/a": redirect("/b", 301), "/b": redirect("/c", 307), "/c": Route(body=page())}
    with LoopbackSite(routes) as site:
        found = rows_by_path(crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings), site)
        assert [site.hits(p) for p in ("/a", "/b", "/c")] == [1, 1, 1]
    assert found["/a"]["final_url"] == site.url("/c") and found["/a"]["outcome"] == "fetched"
    assert found["/a"]["attempts"] == 3, "three requests, one per hop"


def test_redirect_loops_stop_before_the_limit_of_hops(hostile_settings):
    routes = {"/": Route(body=page("/ping")), "/ping": redirect("/pong"), "/pong": redirect("/ping")}
    with LoopbackSite(routes) as site:
        found = rows_by_path(crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings), site)
        assert site.hits("/ping") == 1 and site.hits("/pong") == 1
    assert found["/ping"]["outcome"] == "error" and "redirect loop" in found["/ping"]["error"]


def test_hops_obey_no_follow_and_robots_txt_of_their_host(hostile_settings):
    routes = {
        "/robots.txt": Route(body="User-agent: *\nDisallow: /private/\n", content_type="text/plain"),
        "/": Route(body=page("/to-login", "/to-private")),
        "/to-login": redirect("/login/"),
        "/to-private": redirect("/private/x.html"),
        "/login/": Route(body=page()),
        "/private/x.html": Route(body=page()),
    }
    with LoopbackSite(routes) as site:
        found = rows_by_path(crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings), site)
        assert site.hits("/login/") == 0 and site.hits("/private/x.html") == 0
    assert found["/to-login"]["outcome"] == "no_follow" and site.url("/login/") in found["/to-login"]["error"]
    assert found["/to-private"]["outcome"] == "robots_disallowed"
    assert site.url("/private/x.html") in found["/to-private"]["error"]


def test_a_hop_to_another_host_reads_that_hosts_robots_txt_first(hostile_settings):
    settings = replace(hostile_settings, allow_private_external=True)
    other_routes = {"/robots.txt": Route(body="User-agent: *\nDisallow: /\n", content_type="text/plain"),
                    "/doc.html": Route(body=page())}
    with LoopbackSite(other_routes) as other:
        routes = {"/": Route(body=page("/away"))}
        with LoopbackSite(routes) as site:
            routes["/away"] = redirect(other.url("/doc.html"))
            rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), settings))
            assert other.hits("/robots.txt") == 1 and other.hits("/doc.html") == 0
    by_url = {row["url"]: row for row in rows}
    assert by_url[site.url("/away")]["outcome"] == "robots_disallowed"
    assert by_url[other.url("/robots.txt")]["kind"] == "robots", "the new host's robots.txt is recorded once"


def test_a_site_page_redirected_off_site_is_an_external_document_not_crawled_further(hostile_settings):
    settings = replace(hostile_settings, allow_private_external=True)
    other_routes = {"/landing.html": Route(body=page("/deeper.html")), "/deeper.html": Route(body=page())}
    with LoopbackSite(other_routes) as other:
        routes = {"/": Route(body=page("/moved"))}
        with LoopbackSite(routes) as site:
            routes["/moved"] = redirect(other.url("/landing.html"))
            rows = list(crawl_website(make_website(site.url("/"), mode="crawl", category="blog"), settings))
            assert other.hits("/deeper.html") == 0, "links of an external document are not followed"
    moved = {row["url"]: row for row in rows}[site.url("/moved")]
    assert moved["outcome"] == "fetched" and moved["category"] == "external"
    assert moved["final_url"] == other.url("/landing.html")


def test_a_chain_longer_than_ten_hops_stops_at_the_eleventh(hostile_settings):
    routes = {"/": Route(body=page("/hop0"))}
    for hop in range(15):
        routes[f"/hop{hop}"] = redirect(f"/hop{hop + 1}")
    with LoopbackSite(routes) as site:
        found = rows_by_path(crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings), site)
        assert site.hits("/hop10") == 1 and site.hits("/hop11") == 0
    assert found["/hop0"]["error"] == f"more than 10 redirects, the last to {site.url('/hop11')}"
