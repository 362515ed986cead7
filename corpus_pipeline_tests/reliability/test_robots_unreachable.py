"""robots.txt answering 5xx (or not at all) is a complete disallow for the run (RFC 9309 2.3.1.4); 4xx allows all."""

from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline.crawl.previous import PreviousCrawl
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Response, Route

PAGE = '<html><body><p>Text.</p><a href="/a.html">a</a></body></html>'


def site_routes(robots: Route) -> dict[str, Route]:
    return {"/robots.txt": robots, "/": Route(body=PAGE), "/a.html": Route(body=PAGE)}


def test_robots_txt_answering_503_disallows_the_whole_host_and_the_next_run_asks_again(hostile_settings, tmp_path):
    routes = site_routes(Route(sequence=[Response(503), Response(503), Response(200, b"User-agent: *\nAllow: /\n", "text/plain")]))
    warehouse = Warehouse(tmp_path)
    with LoopbackSite(routes) as site:
        website = make_website(site.url("/"), mode="crawl")
        with warehouse.writer("raw_pages", "site", RAW_PAGES_SCHEMA) as out:
            first = list(crawl_website(website, hostile_settings))
            for row in first:
                out.write(row)
        assert site.hits("/") == 0, "nothing of the host is fetched"
        start = {r["url"]: r for r in first}[site.url("/")]
        assert start["outcome"] == "robots_disallowed"
        assert start["error"] == "robots.txt answered HTTP 503: complete disallow (RFC 9309)"

        previous = PreviousCrawl.open(warehouse.path("raw_pages", "site"))
        second = {r["url"]: r for r in crawl_website(website, hostile_settings, previous)}
        previous.close()
    assert site.hits("/robots.txt") == 3, "two tries in the first run, asked again in the next"
    assert second[site.url("/a.html")]["outcome"] == "fetched"


def test_robots_txt_answering_404_allows_everything(hostile_settings):
    with LoopbackSite(site_routes(Route(status=404, body=b"no"))) as site:
        rows = {r["url"]: r for r in crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings)}
    assert rows[site.url("/a.html")]["outcome"] == "fetched"


def test_robots_txt_that_never_answers_disallows_sitemaps_too(hostile_settings):
    routes = {"/robots.txt": Route(body=b"", delay_s=3.0), "/sitemap.xml": Route(body=b"<urlset/>", content_type="text/xml")}
    with LoopbackSite(routes) as site:
        rows = {r["url"]: r for r in crawl_website(make_website(site.url("/")), hostile_settings)}
        assert site.hits("/sitemap.xml") == 0
    sitemap = rows[site.url("/sitemap.xml")]
    assert sitemap["outcome"] == "robots_disallowed"
    assert sitemap["error"].startswith("robots.txt unreachable (timeout") and "complete disallow" in sitemap["error"]
