"""Every crawl decision is one FetchOutcome, stored as its plain string."""

import pyarrow as pa

from corpus_pipeline.core.outcomes import USABLE_OUTCOMES, FetchOutcome
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA
from corpus_pipeline.crawl.crawler import crawl_website
from corpus_pipeline_tests.crawl.conftest import make_website
from corpus_pipeline_tests.support.http_server import LoopbackSite, Route


def test_the_enum_keeps_the_stored_strings():
    assert {"fetched", "not_modified", "unchanged_lastmod"} == USABLE_OUTCOMES
    assert FetchOutcome("private_address") is FetchOutcome.PRIVATE_ADDRESS


def test_rows_of_a_hostile_crawl_hold_plain_outcome_strings(hostile_settings):
    routes = {
        "/": Route(body='<a href="/gone">g</a><a href="/img">i</a><a href="/meta">m</a><a href="/login/">l</a>'),
        "/img": Route(body=b"\x89PNG\r\n\x1a\n", content_type="image/png"),
        "/meta": Route(status=302, headers={"Location": "http://169.254.169.254/"}),
    }
    with LoopbackSite(routes) as site:
        rows = list(crawl_website(make_website(site.url("/"), mode="crawl"), hostile_settings))
    outcomes = {row["outcome"] for row in rows}
    assert outcomes >= {"fetched", "http_error", "unsupported_type", "private_address", "no_follow"}
    assert all(type(row["outcome"]) is str for row in rows), "no enum member leaks into the Parquet rows"
    assert pa.Table.from_pylist(rows, schema=RAW_PAGES_SCHEMA).num_rows == len(rows)
