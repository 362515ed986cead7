"""total_timeout_s holds while a hostile server trickles its headers or body, and a miss is retried once."""

from dataclasses import replace

from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Response, Route


def trickling(trickle_headers: bool = False) -> Route:
    # Each byte arrives well within read_timeout_s, so only the whole-request deadline can end this.
    return Route(sequence=[Response(body=b"<html>" + b"x" * 400 + b"</html>", trickle_s=0.1, trickle_headers=trickle_headers)])


def crawl_one(settings, route: Route) -> tuple[dict, int]:
    routes = {"/": Route(body='<a href="/slow.html">slow</a>'), "/slow.html": route}
    with LoopbackSite(routes) as site:
        rows = {r["url"]: r for r in crawl_website(make_website(site.url("/"), mode="crawl"), settings)}
        return rows[site.url("/slow.html")], site.hits("/slow.html")


def test_a_body_trickling_past_the_deadline_ends_at_the_deadline_and_is_retried_once(hostile_settings):
    settings = replace(hostile_settings, total_timeout_s=1.0, read_timeout_s=1.0, max_retries=3)
    row, hits = crawl_one(settings, trickling())
    assert row["outcome"] == "error"
    assert row["error"] == "deadline of 1 s exceeded while reading the body"
    assert row["attempts"] == 2 and hits == 2, "a deadline miss is retried at most once"
    assert row["body"] is None, "nothing half-read is kept"


def test_headers_trickling_past_the_deadline_end_at_the_deadline(hostile_settings):
    settings = replace(hostile_settings, total_timeout_s=1.0, read_timeout_s=1.0, max_retries=0)
    row, hits = crawl_one(settings, trickling(trickle_headers=True))
    assert row["error"] == "deadline of 1 s exceeded while reading the headers"
    assert row["status"] is None and hits == 1


def test_a_server_that_stalls_outright_is_a_read_timeout_with_the_usual_retries(hostile_settings):
    settings = replace(hostile_settings, total_timeout_s=10.0, read_timeout_s=0.3, max_retries=2)
    row, hits = crawl_one(settings, Route(body=b"<html></html>", hang_s=2.0))
    assert row["error"] == "timeout while reading the body"
    assert row["attempts"] == 3 and hits == 3
