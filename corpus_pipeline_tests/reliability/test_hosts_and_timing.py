"""One host whatever its spelling (IDN or punycode), and a row's elapsed_s is the request's own time."""

from dataclasses import replace

from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Route

IDN = "http://bücher.test"
PUNYCODE = "http://xn--bcher-kva.test"


def page(*links: str) -> str:
    return '<html><head><meta charset="utf-8"></head><body><p>Text.</p>' + "".join(f'<a href="{link}">x</a>' for link in links) + "</body></html>"


def test_idn_and_punycode_spellings_are_one_host(hostile_settings, monkeypatch, network_guard):
    # A proxy on loopback carries every request: the names are never resolved.
    routes = {
        f"{PUNYCODE}/": Route(body=page(f"{PUNYCODE}/a.html", f"{IDN}/b.html", "/c.html")),
        f"{PUNYCODE}/a.html": Route(body=page()),
        f"{PUNYCODE}/b.html": Route(body=page()),
        f"{PUNYCODE}/c.html": Route(body=page()),
    }
    with LoopbackSite(routes) as proxy:
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url)
        rows = list(crawl_website(make_website(f"{IDN}/", mode="crawl"), hostile_settings))
    by_url = {r["url"]: r for r in rows}
    for name in ("a", "b", "c"):
        row = by_url[f"{PUNYCODE}/{name}.html"]
        assert row["outcome"] == "fetched" and row["category"] != "external", row
    assert [r["url"] for r in rows if r["source"] == "robots"] == [f"{PUNYCODE}/robots.txt"], "one host, one robots.txt"
    assert not network_guard.attempts


def test_elapsed_s_leaves_out_the_wait_for_the_hosts_pace(hostile_settings):
    paths = [f"/p{i}.html" for i in range(4)]
    routes = {"/": Route(body=page(*paths))} | {path: Route(body=page()) for path in paths}
    settings = replace(hostile_settings, adaptive_pace=False, per_host_concurrency=1, min_delay_s=0.3)
    with LoopbackSite(routes) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), settings))
    pages = [r for r in rows if r["url"].endswith(tuple(paths))]
    assert len(pages) == 4 and all(r["outcome"] == "fetched" for r in pages)
    # The last of four pages waited ~0.9 s for its turn; its request took milliseconds.
    assert max(r["elapsed_s"] for r in pages) < 0.25, [r["elapsed_s"] for r in pages]
    # The wait has a column of its own: together the four pages waited at least the 0.3 s gaps between the five
    # starts (robots.txt and the start page first), so at least 3 x 0.3 s across them.
    assert sum(r["pace_wait_s"] for r in pages) >= 0.9, [r["pace_wait_s"] for r in pages]
    assert all(r["pace_wait_s"] >= 0 for r in rows)
