"""The website's content container: learned from its pages' votes, read on each page, refused where it misleads."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.content_container import (
    ContainerVote,
    container_elements,
    element_name,
    page_container,
    vote_name,
    website_containers,
)
from corpus_pipeline.extract.page import HtmlPage, parse_html_pages
from corpus_pipeline.extract.site_survey import survey_site

PROSE = [
    "The harbour office opens at seven and the first ferry leaves once the tide allows the crossing.",
    "Fishermen unload their catch along the quay while the market stalls are set up behind them.",
    "In winter the village empties and only the bakery and the post office keep their usual hours.",
    "A narrow path climbs from the church to the lighthouse, where the view reaches the outer islands.",
    "Visitors are asked to keep to the marked trails because the dunes are fragile in spring.",
    "The local museum keeps the logbooks of the old sailing ships and a model of the first lifeboat.",
]


def _page(number: int, *, table_rows: int = 0) -> str:
    paragraphs = "".join(f"<p>{PROSE[(number + i) % len(PROSE)]} Note {number}-{i}.</p>" for i in range(4))
    # A long data table: single-page readers often drop most of its rows.
    rows = "".join(f"<tr><td>berth {i}</td><td>{i * 3} metres</td></tr>" for i in range(table_rows))
    table = f"<table>{rows}</table>" if rows else ""
    return f"""<html><head><title>Page {number} | Harbour</title></head><body>
    <nav class="menu"><ul><li><a href="/">Home</a></li><li><a href="/about">About the harbour</a></li>
    <li><a href="/ferries">Ferry timetable and fares</a></li></ul></nav>
    <div id="post-{number}" class="post postid-{number}"><h1>Page {number}</h1>
      <div class="entry-content">{paragraphs}{table}</div></div>
    <footer class="site-footer"><p>Harbour office, Quay Street 1. Open every day of the year except holidays.</p>
    </footer></body></html>"""


def test_element_name_leaves_out_numbers_and_names_bare_elements_after_their_ancestor():
    document = html.fromstring('<html><body><div id="post-12" class="post postid-12"><div><p>x</p></div>'
                               '</div></body></html>')
    body, outer = document.find("body"), document.find(".//div")
    assert element_name(outer) == "div.post"
    assert vote_name(outer.find("div"), body) == "div.post>div"


def test_a_vote_names_its_container_alone_on_the_page():
    # One layout class for the header's, the content's and the footer's groups (WordPress block themes).
    document = html.fromstring(
        '<html><body><div class="site"><header class="wp-block-group"><p>Site</p></header>'
        '<main class="wp-block-group layout-flow"><div class="wp-block-group"><p>Text</p></div></main>'
        '<footer class="wp-block-group"><div class="wp-block-group"><p>Powered by</p></div></footer></div>'
        "</body></html>")
    content = document.find(".//main/div")
    name = vote_name(content, document.find("body"))
    assert name == "main.layout-flow.wp-block-group>div.wp-block-group"
    assert container_elements(document, (name,)) == [content]


def test_a_page_votes_for_the_element_holding_its_text():
    text = _page(1)
    vote = page_container(html.fromstring(text), text)
    assert vote is not None
    assert vote.name in {"div.entry-content", "div.post"}
    assert vote.words > 40


def test_the_website_keeps_names_many_pages_agree_on():
    votes = [ContainerVote("div.entry-content", 50)] * 8 + [ContainerVote("section#intro", 20), None]
    assert website_containers(votes) == ("div.entry-content",)
    assert website_containers([ContainerVote("div.entry-content", 50)] * 2) == ()  # two pages are not a website


def test_container_elements_outermost_and_in_order():
    document = html.fromstring('<html><body><div class="c"><div class="c">a</div></div><div class="c">b</div>'
                               "</body></html>")
    found = container_elements(document, ("div.c",))
    assert [e.text_content() for e in found] == ["a", "b"]


def _site() -> object:
    return parse_registry({"websites": [{"name": "harbour", "url": "http://127.0.0.1:9/"}]}).websites[0]


def test_a_website_of_one_template_reads_every_page_through_its_container_table_included():
    pages = [
        HtmlPage(f"http://127.0.0.1:9/p{i}", _page(i, table_rows=120 if i == 3 else 0).encode(), "text/html",
                 datetime.now(UTC))
        for i in range(12)
    ]
    survey = survey_site((p.url, None, p.body) for p in pages)
    assert survey.boilerplate.containers[:1] in (("div.entry-content",), ("div.post",))
    records = {r["url"]: r for r in parse_html_pages(pages, _site(), survey.boilerplate, workers=1)}
    table_page = records["http://127.0.0.1:9/p3"]
    assert table_page["extraction"] == "site_container"
    assert "berth 119" in table_page["content"] and "berth 0" in table_page["content"]
    for record in records.values():
        assert "Ferry timetable" not in record["content"]  # the menu stays out
        assert "Quay Street" not in record["content"]  # and so does the footer


def test_a_page_of_another_template_is_read_alone():
    pages = [HtmlPage(f"http://127.0.0.1:9/p{i}", _page(i).encode(), "text/html", datetime.now(UTC))
             for i in range(10)]
    other = ("<html><head><title>Contact</title></head><body><main><p>" + " ".join(PROSE) + "</p></main>"
             '<div class="entry-content"><p>Share this page.</p></div></body></html>')
    pages.append(HtmlPage("http://127.0.0.1:9/contact", other.encode(), "text/html", datetime.now(UTC)))
    survey = survey_site((p.url, None, p.body) for p in pages)
    records = {r["url"]: r for r in parse_html_pages(pages, _site(), survey.boilerplate, workers=1)}
    contact = records["http://127.0.0.1:9/contact"]
    # The container is there, but it misses what the page's own reader finds: the page is read alone.
    assert contact["extraction"] != "site_container"
    assert "lighthouse" in contact["content"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(PROSE), min_size=1, max_size=6), st.integers(min_value=0, max_value=30))
def test_a_vote_names_an_element_that_holds_the_readers_text(paragraphs, depth):
    # Whatever the wrapping, the voted element holds every paragraph the page's reader keeps.
    inner = "".join(f"<p>{p}</p>" for p in paragraphs)
    wrapped = "<div>" * depth + f'<div class="text">{inner}</div>' + "</div>" * depth
    text = f"<html><body><nav><a href='/'>Home</a> <a href='/x'>Elsewhere entirely</a></nav>{wrapped}</body></html>"
    document = html.fromstring(text)
    vote = page_container(document, text)
    if vote is None:
        return  # the reader kept nothing: no vote, nothing read through a container
    held = container_elements(document, (vote.name,))
    assert held
    assert all(p in " ".join(e.text_content() for e in held) for p in paragraphs)


def _post(number: int) -> str:
    story = PROSE[number % len(PROSE)]
    return f"""<html><head><title>Release {number}.0 | Harbour news</title></head><body>
    <nav><a href="/">Home</a> <a href="/news/">All the harbour news of the season</a></nav>
    <article class="post"><h1>Release {number}.0</h1><p class="meta">By harbourmaster</p>
      <p>{story} Entry {number}.</p><h3>Fixed</h3><ul><li>{PROSE[(number + 1) % len(PROSE)]} Item {number}.</li></ul>
      <h3>Added</h3><ul><li>{PROSE[(number + 2) % len(PROSE)]} Item {number}b.</li></ul>
      <p class="tags">Tags: harbour, release notes</p></article>
    <footer><p>Harbour office, Quay Street 1. Open every day of the year except holidays.</p></footer>
    </body></html>"""


def test_template_lines_at_the_container_edges_go_and_repeated_headings_inside_it_stay():
    pages = [HtmlPage(f"http://127.0.0.1:9/news/{i}/", _post(i).encode(), "text/html", datetime.now(UTC))
             for i in range(12)]
    survey = survey_site((p.url, None, p.body) for p in pages)
    assert survey.boilerplate.containers
    records = list(parse_html_pages(pages, _site(), survey.boilerplate, workers=1))
    for record in records:
        assert record["extraction"] == "site_container"
        lines = record["content"].split("\n\n")
        assert "Fixed" in lines and "Added" in lines  # on every page, but between the post's own lines
        assert "By harbourmaster" not in record["content"]  # the byline above the post
        assert "Tags:" not in record["content"]  # the tag line below it
        assert not lines[0].startswith("Release")  # the headline is the title's
