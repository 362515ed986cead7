"""Both readings of a page are the ones trafilatura.extract returns, whichever is asked for first."""

from pathlib import Path

import pytest
import trafilatura
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html

from corpus_pipeline.extract.html_tree import parse_html
from corpus_pipeline.extract.trafilatura_main_pass import page_text, page_text_bound
from corpus_pipeline.extract.trafilatura_reading import TrafilaturaReading
from corpus_pipeline_tests.support.demo_documents import demo_and_given_documents

URL = "http://127.0.0.1:8000/page.html"
PARAGRAPH = (
    "<p>The committee meets on the first Monday of every month in the hall behind the library, and every member "
    "may bring a question about the plots, the water or the shared tools to the open hour before it.</p>"
)
FORUM_SCHEMA = (
    '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "DiscussionForumPosting",'
    ' "headline": "Frost on the tanks"}</script>'
)
# Pages that take trafilatura's less common paths: a short page (the recovery of stray text and the baseline), a
# page of div soup (readability and justext compared), a thread whose replies sit in comment containers, a page
# whose main text is a small part of a long page (the recall escalation), an empty body, paragraphs with a teaser
# block (which the recovery keeps in fast mode only).
PAGES = {
    "short": "<html><body><div><span>Only a few words here.</span></div><p>And one short line.</p></body></html>",
    "div soup": "<html><body>" + "".join(
        f"<div class='x{i}'>Line {i} of a page written without paragraphs, in divs only, long enough to count as "
        f"text for the extractors that read it.</div>" for i in range(12)
    ) + "</body></html>",
    "thread": f"<html><head>{FORUM_SCHEMA}</head><body><article><h1>Frost on the tanks</h1>{PARAGRAPH}</article>"
    "<div class='comments'>" + "".join(
        f"<div class='comment'><p>Reply {i}: we empty ours in October and turn them over, which has kept them "
        f"whole for three winters now.</p></div>" for i in range(4)
    ) + "</div></body></html>",
    "small article in a long page": "<html><body><nav>" + "".join(
        f"<li><a href='/p{i}'>Entry number {i} of a long menu of the site</a></li>" for i in range(80)
    ) + f"</nav><article><p>A short note.</p></article><div class='sidebar'>{PARAGRAPH * 6}</div></body></html>",
    "article": f"<html><body><header><a href='/'>Home</a></header><main><h1>Tanks</h1>{PARAGRAPH * 5}</main>"
    "<footer>Copyright the committee</footer></body></html>",
    "empty": "<html><body></body></html>",
    "paragraphs, with a teaser": "<html><body><div class='teaser'><p>Read the whole story of the frost on the "
    f"tanks inside.</p></div><div class='box'>{PARAGRAPH * 2}</div></body></html>",
}
OPTIONS = [  # as main_content reads pages (trafilatura's own default includes comments)
    {"include_comments": False},
    {"include_comments": True},
    {"include_comments": False, "favor_precision": True},
]


def _extracted(document: html.HtmlElement, fast: bool, **options) -> str:
    return trafilatura.extract(
        document, url=URL, fast=fast, include_tables=True, output_format="txt", **options
    ) or ""


def _documents(tmp_path: Path) -> dict[str, html.HtmlElement]:
    return demo_and_given_documents(tmp_path, PAGES)


@pytest.mark.parametrize("options", OPTIONS, ids=["default", "comments", "precision"])
def test_both_readings_are_trafilaturas_in_either_order(tmp_path: Path, options: dict) -> None:
    documents = _documents(tmp_path)
    modes_differ = 0
    for name, document in documents.items():
        fast, full = _extracted(document, True, **options), _extracted(document, False, **options)
        modes_differ += fast != full
        source = html.tostring(document)
        fast_first = TrafilaturaReading(document, URL, **options)
        assert (fast_first.fast(), fast_first.full()) == (fast, full), name
        assert html.tostring(document) == source, name  # read, never edited
        full_first = TrafilaturaReading(document, URL, **options)
        assert (full_first.full(), full_first.fast()) == (full, fast), name
        assert TrafilaturaReading(document, URL, **options).full() == full, name
    assert modes_differ  # the pages tell the modes apart: a reading that ignored the mode would fail above


def test_the_reading_keeps_its_own_copy_of_the_page() -> None:
    document = parse_html(PAGES["article"])
    expected = _extracted(document, False, include_comments=False)
    reading = TrafilaturaReading(document, URL)
    reading.fast()
    main = document.find(".//main")
    assert main is not None
    main.drop_tree()
    assert reading.full() == expected
    assert "committee meets" in expected


def test_an_empty_page_reads_as_nothing_in_both_modes() -> None:
    reading = TrafilaturaReading(parse_html(PAGES["empty"]), URL)
    assert (reading.fast(), reading.full()) == ("", "")


_PAGE_PARTS = st.sampled_from([
    "<div>", "</div>", "<p>", "</p>", "<li>", "<aside>", "</aside>", "<footer>", "<script>var x = 1;</script>",
    "<style>p {}</style>", "<!-- note -->", "<br>", "<h2>", "</h2>", "<td>", "word ", "  \n\t", "\u00a0", "\x0b",
    "<a href='/x'>link</a>", "<form>", "</form>", "<table><tr><td>cell</td></tr></table>",
])


@given(st.lists(_PAGE_PARTS, max_size=40))
@settings(max_examples=300, deadline=None)
def test_the_page_text_bound_is_never_below_the_page_text(parts: list[str]) -> None:
    document = parse_html("<html><body>" + "".join(parts) + "</body></html>")
    bound = page_text_bound(document)
    try:
        text = page_text(document)
    except ValueError:  # a control character lxml refuses (trafilatura's reading fails too): no bound is given
        assert bound is None
        return
    assert bound is None or bound >= len(text)


def test_the_page_text_bound_of_the_demo_pages(tmp_path: Path) -> None:
    for name, document in _documents(tmp_path).items():
        bound = page_text_bound(document)
        assert bound is not None and bound >= len(page_text(document)), name
