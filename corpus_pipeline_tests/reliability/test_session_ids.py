"""Session-id URL variants (;jsessionid=, PHPSESSID=, sid=, a session id as a path segment) are one page, fetched
once; a session token of a format the URL keys do not know is caught as a path trap."""

import itertools
from dataclasses import replace

from corpus_pipeline.core.urls import normalize_url
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Response, Route

COUNTER = itertools.count()


def session_page(request) -> Response:
    """One page of content whose links carry a new session id on every visit, in every known spelling."""
    sid = f"{next(COUNTER):04d}A7F3C9E1B2D4"
    links = [f"/page;jsessionid={sid}", f"/page?PHPSESSID={sid}", f"/page?sid={sid}&lang=en",
             f"/sid={sid}/page", f"/(S({sid.lower()}))/page"]
    body = "<html><body><p>Text.</p>" + "".join(f'<a href="{link}">x</a>' for link in links) + "</body></html>"
    return Response(body=body.encode())


class SessionSite(dict):
    def get(self, path, default=None):
        if path in ("/", "/page") or path.startswith(("/sid=", "/(S(")) or ";jsessionid=" in path:
            return Route(handler=session_page)
        return super().get(path, default)


def test_session_id_variants_of_one_page_are_fetched_once(hostile_settings):
    with LoopbackSite(SessionSite()) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings))
    fetched = sorted(r["url"] for r in rows if r["outcome"] == "fetched")
    assert fetched == [site.url("/"), site.url("/page"), site.url("/page?lang=en")], fetched
    assert normalize_url("http://h/a;jsessionid=1/b;x=2?SID=3&PHPSESSID=4&q=5") == "http://h/a/b;x=2?q=5"


def test_an_unknown_session_token_in_the_path_is_a_trap(hostile_settings):
    def tokened(request) -> Response:
        token = f"{next(COUNTER):08d}deadbeefcafe"
        return Response(body=f'<html><body><p>Text.</p><a href="/s/{token}/page">x</a></body></html>'.encode())

    class Tokens(dict):
        def get(self, path, default=None):
            return Route(handler=tokened) if path == "/" or path.startswith("/s/") else super().get(path, default)

    settings = replace(hostile_settings, max_template_chain=10)
    with LoopbackSite(Tokens()) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl", max_pages=1500), settings))
    fetched = [r for r in rows if r["outcome"] == "fetched"]
    trapped = [r for r in rows if r["outcome"] == "limit_reached"]
    assert len(fetched) <= 11 and len(trapped) == 1
    assert trapped[0]["error"].startswith("path trap: over 10 pages of /s/*/page")
