"""distinct_vs_current: a soft outage (most pages sharing one title, body or text, unlike the current version) is
refused; pages that share a title on every night are not."""

from datetime import UTC, datetime

import polars as pl

from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA, RECORD_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.quality.checks import GatePolicy, refusal_cause
from corpus_pipeline.quality.crawl import judge_crawl
from corpus_pipeline.quality.distinct import (
    DistinctValues,
    distinct_vs_current,
    pages_distinct_vs_current,
    record_distinctness,
)

NOW = datetime(2026, 11, 28, tzinfo=UTC)
MAINTENANCE = b"<html><head><title>Down for maintenance</title></head><body><p>Back soon.</p></body></html>"


def crawl(warehouse: Warehouse, bodies: list[bytes]):
    with warehouse.writer("raw_pages", "site", RAW_PAGES_SCHEMA) as out:
        for n, body in enumerate(bodies):
            out.write({"website": "site", "url": f"http://site.test/{n}", "fetched_at": NOW, "kind": "html",
                       "source": "sitemap", "outcome": "fetched", "body": body})
    return warehouse.path("raw_pages", "site")


def page(title: str, text: str = "") -> bytes:
    return f"<html><head>\n<title>\n  {title}\n</title></head><body><p>{text or title}</p></body></html>".encode()


def records(warehouse: Warehouse, rows: list[tuple[str, str]]):
    frame = pl.DataFrame(
        [{"website": "site", "url": f"http://site.test/{n}", "canonical_url": f"http://site.test/{n}", "title": title,
          "content": text, "h1": [], "h2": []} for n, (title, text) in enumerate(rows)]
    )
    warehouse.write_frame("parsed_pages", "site", frame, RECORD_SCHEMA)
    return warehouse.path("parsed_pages", "site")


def test_a_night_of_maintenance_pages_is_refused_at_raw_pages_with_the_shared_title_in_one_line(tmp_path):
    current = crawl(Warehouse(tmp_path / "current"), [page(f"Post {n}") for n in range(10)])
    outage = crawl(Warehouse(tmp_path / "outage"), [MAINTENANCE] * 10)
    cause = refusal_cause(judge_crawl(outage, current, GatePolicy()))
    assert cause == (
        "10 of 10 pages share one title 'Down for maintenance' (a soft outage?): distinct titles 1 of 10, "
        "10 of 10 in the current version (max_distinct_drop_share 50%)"
    )


def test_maintenance_pages_that_differ_by_a_request_id_still_share_their_title(tmp_path):
    current = crawl(Warehouse(tmp_path / "current"), [page(f"Post {n}") for n in range(10)])
    outage = crawl(Warehouse(tmp_path / "outage"), [MAINTENANCE + f"<!-- request {n} -->".encode() for n in range(10)])
    outcome = pages_distinct_vs_current(outage, current, GatePolicy())
    assert not outcome.passed and outcome.cause is not None and "share one title" in outcome.cause
    assert outcome.metadata["distinct_body_share"] == 1.0, "the bodies alone would not have shown it"


def test_identical_bodies_without_a_title_are_refused_on_their_bodies(tmp_path):
    current = crawl(Warehouse(tmp_path / "current"), [f"<p>page {n}</p>".encode() for n in range(6)])
    outage = crawl(Warehouse(tmp_path / "outage"), [b"<p>Service unavailable</p>"] * 6)
    cause = refusal_cause(judge_crawl(outage, current, GatePolicy()))
    assert cause is not None and cause.startswith("6 of 6 pages share one body (a soft outage?): distinct bodies 1 of 6")


def test_pages_that_share_their_title_every_night_pass_even_on_the_first(tmp_path):
    shared = [page("Acme Intranet", f"text {n}") for n in range(8)]
    first = crawl(Warehouse(tmp_path / "first"), shared)
    assert pages_distinct_vs_current(first, None, GatePolicy()).passed, "a first night has nothing to differ from"
    second = crawl(Warehouse(tmp_path / "second"), shared + [page("Acme Intranet", "text 9")])
    assert pages_distinct_vs_current(second, first, GatePolicy()).passed


def test_a_fall_within_the_policy_passes_and_one_beyond_is_refused(tmp_path):
    current = crawl(Warehouse(tmp_path / "current"), [page(f"Post {n}") for n in range(10)])
    half_down = crawl(Warehouse(tmp_path / "half"), [page(f"Post {n}") for n in range(5)] + [MAINTENANCE] * 5)
    assert pages_distinct_vs_current(half_down, current, GatePolicy()).passed  # 6 of 10: down 40%
    most_down = crawl(Warehouse(tmp_path / "most"), [page(f"Post {n}") for n in range(3)] + [MAINTENANCE] * 7)
    assert not pages_distinct_vs_current(most_down, current, GatePolicy()).passed  # 4 of 10: down 60%
    assert pages_distinct_vs_current(most_down, current, GatePolicy(max_distinct_drop_share=1.0)).passed


def test_parsed_pages_sharing_one_text_under_their_own_titles_are_refused(tmp_path):
    current = records(Warehouse(tmp_path / "current"), [(f"Post {n}", f"The text of post {n}.") for n in range(8)])
    outage = records(Warehouse(tmp_path / "outage"), [(f"Post {n}", "We will be back soon.") for n in range(8)])
    outcome = distinct_vs_current(record_distinctness(outage), record_distinctness(current), GatePolicy())
    assert outcome.cause == (
        "8 of 8 pages share one text (a soft outage?): distinct texts 1 of 8, 8 of 8 in the current version "
        "(max_distinct_drop_share 50%)"
    )
    assert distinct_vs_current(record_distinctness(current), record_distinctness(current), GatePolicy()).passed


def test_distinct_values_count_a_missing_value_as_one_and_preview_the_commonest():
    titles = DistinctValues("title")
    for title in [None, None, "A very long title " * 10, "B"]:
        titles.add(title)
    measure = titles.measure()
    assert (measure.documents, measure.distinct, measure.most_common_count) == (4, 3, 2)
    assert measure.most_common == "(none)" and measure.share == 0.75

