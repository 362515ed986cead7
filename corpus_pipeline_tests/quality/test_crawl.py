from datetime import UTC, datetime

from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.quality.checks import GatePolicy, refusal_cause
from corpus_pipeline.quality.crawl import judge_crawl

NOW = datetime(2026, 11, 24, tzinfo=UTC)


def crawl(warehouse: Warehouse, *rows: dict):
    with warehouse.writer("raw_pages", "site", RAW_PAGES_SCHEMA) as out:
        for row in rows:
            out.write({"website": "site", "fetched_at": NOW, "kind": "html", "source": "sitemap", **row})
    return warehouse.path("raw_pages", "site")


def page(n: int, **overrides) -> dict:
    return {"url": f"http://site.test/{n}", "outcome": "fetched", "body": b"<p>x</p>", **overrides}


def test_a_crawl_where_nothing_came_back_names_the_commonest_error(tmp_path):
    good = crawl(Warehouse(tmp_path / "good"), *(page(n) for n in range(5)))
    refused = "connection refused to 127.0.0.1:8765"
    bad = crawl(
        Warehouse(tmp_path / "bad"),
        {"url": "http://site.test/robots.txt", "outcome": "error", "kind": None, "source": "robots", "error": refused},
        *(page(n, outcome="error", kind=None, body=None, error=refused) for n in range(3)),
        page(9, outcome="error", kind=None, body=None, error="timeout"),
    )
    outcomes = judge_crawl(bad, good, GatePolicy())
    assert refusal_cause(outcomes) == f"0 of 5 pages fetched: {refused}"


def test_a_healthy_recrawl_passes_every_blocking_check(tmp_path):
    current = crawl(Warehouse(tmp_path / "current"), *(page(n) for n in range(4)))
    new = crawl(Warehouse(tmp_path / "new"), *(page(n, outcome="not_modified") for n in range(3)))
    assert refusal_cause(judge_crawl(new, current, GatePolicy())) is None


def test_a_url_listed_twice_is_refused(tmp_path):
    new = crawl(Warehouse(tmp_path), page(1), page(1))
    assert refusal_cause(judge_crawl(new, None, GatePolicy())) == "1 URLs appear more than once"
