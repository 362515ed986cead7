"""Pages and documents that would take the night: each is stopped at its budget, recorded, and the run goes on."""

from datetime import UTC, datetime

import pytest

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.page import ExtractionBudget, HtmlPage, parse_html_pages

NOW = datetime(2026, 11, 24, tzinfo=UTC)
PROSE = "Volunteers repair bicycles every Saturday in the old tram depot, and anyone may bring one along. " * 4


def nested_divs(depth: int) -> bytes:
    return b"<html><body>" + b"<div>" * depth + b"<p>deep</p>" + b"</div>" * depth + b"</body></html>"


def page(number: int, body: bytes | None = None) -> HtmlPage:
    body = body or f"<html><body><article><h1>Post {number}</h1><p>{number}. {PROSE}</p></article></body></html>".encode()
    return HtmlPage(url=f"http://127.0.0.1:8000/{number}.html", body=body, content_type="text/html", fetched_at=NOW)


def website():
    return parse_registry({"websites": [{"name": "site", "url": "http://127.0.0.1:8000/"}]}).websites[0]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_nested_div_bomb_and_a_slow_page_are_recorded_and_the_other_pages_are_fine(workers):
    # A depth limit of 30,000 lets 25,000 nested divs through unflattened, and Resiliparse needs about 14 s for
    # that depth (it grows with the square): stopped at the 3 s budget. 50,000 are flattened to 30,000: as slow.
    budget = ExtractionBudget(page_time_s=3, max_markup_depth=30_000)
    pages = [page(0), page(1, nested_divs(50_000)), page(2), page(3, nested_divs(25_000)), page(4), page(5)]
    records = list(parse_html_pages(pages, website(), None, workers=workers, budget=budget))

    assert [record["url"] for record in records] == [p.url for p in pages]
    assert records[1]["error"] == records[3]["error"] == "extraction budget exceeded: 3 s"
    for over_budget in (records[1], records[3]):
        assert over_budget["content"] == "" and over_budget["kind"] == "html" and over_budget["website"] == "site"
    for number in (0, 2, 4, 5):
        assert records[number]["error"] is None
        assert f"{number}. Volunteers repair bicycles" in records[number]["content"]


def test_the_default_budget_reads_the_bomb_flattened_well_within_its_time():
    bomb = page(0, nested_divs(50_000).replace(b"deep", PROSE.encode()))
    records = list(parse_html_pages([bomb, page(1)], website(), None, workers=1, budget=ExtractionBudget(page_time_s=10)))
    assert records[0]["error"] is None and "Volunteers repair bicycles" in records[0]["content"]
    assert records[1]["error"] is None and "Volunteers" in records[1]["content"]


def test_the_budgets_are_run_configuration():
    from corpus_pipeline.resources import CrawlerConfig

    config = CrawlerConfig(page_time_budget_s=12, max_markup_depth=400, ocr_time_budget_s=90)
    assert config.extraction_budget() == ExtractionBudget(page_time_s=12, max_markup_depth=400)
    assert config.pdf_settings(website()).ocr_budget_s == 90
    unlimited = CrawlerConfig(page_time_budget_s=0, ocr_time_budget_s=0)
    assert unlimited.extraction_budget().page_time_s is None and unlimited.pdf_settings(website()).ocr_budget_s is None
