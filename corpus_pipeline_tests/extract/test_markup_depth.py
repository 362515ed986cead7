"""Markup nested past the limit read flattened: every text kept in order, none of the page refused, a hostile page
within its budget; the parsed tree tells a page nested past the limit."""

import re
from collections import Counter
from datetime import UTC, datetime
from html import escape

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.html_tree import parse_html
from corpus_pipeline.extract.markup_depth import flatten_markup, tree_deeper_than
from corpus_pipeline.extract.page import HtmlPage, parse_html_page

# A news article: its paragraphs are what a reader must get back, however broken the page's markup.
TITLE = "Flood defences hold as the river reaches its highest level in forty years"
PARAGRAPHS = [
    "The river Alder rose to 5.83 metres at the Millbrook gauge on Tuesday night, its highest reading since the "
    "winter of 1984, but the new flood walls along the town's eastern bank held through the peak.",
    "Around two hundred households in the low streets behind the old wool market had been told to prepare to "
    "leave. By dawn the water had begun to fall, and the evacuation notice was lifted shortly after nine o'clock.",
    "The walls, finished only last spring after three years of work, replaced earth banks that failed twice in the "
    "past decade. Engineers from the county council walked the full length of the defences before sunrise.",
    "\"We saw seepage at two joints near the railway bridge, which is what we expected at that pressure,\" said "
    "Margaret Osei, who led the inspection. \"Nothing we found threatens the structure.\"",
    "Further downstream the picture was less settled. Farmland between Hollin and Stayne lay under water for a "
    "second day, and the road to the ferry crossing remained closed to all traffic.",
    "Farmers there say the fields flood more often than they did a generation ago. Several have asked the "
    "environment agency to restore an old overflow channel that was filled in during the nineteen seventies.",
    "The agency said it would publish a review of the whole catchment before the end of the year, including the "
    "cost of reopening the channel and of raising the embankment that carries the ferry road.",
    "Volunteers from the rowing club spent the night ferrying sandbags to the almshouses on Water Lane, where "
    "elderly residents had refused to leave their homes without their cats and a kettle.",
    "Schools in the town reopened on Wednesday morning, although the primary school on Quay Street will stay "
    "closed until its boiler room, which took in a foot of water, has been pumped out and inspected.",
    "Forecasters expect drier weather for the rest of the week. The river is not expected to fall back to its "
    "normal level for several days, and residents have been asked to keep away from the towpath.",
]
ARTICLE = "\n".join(PARAGRAPHS)
CHROME = (
    "<header><a href='/'>The Millbrook Courier</a><nav><a href='/news'>News</a> <a href='/sport'>Sport</a> "
    "<a href='/weather'>Weather</a> <a href='/letters'>Letters</a></nav></header>"
)
FOOTER = "<footer><p>© 2024 The Millbrook Courier. All rights reserved.</p><a href='/privacy'>Privacy</a></footer>"
WORD = re.compile(r"\w+")


def website():
    return parse_registry({"websites": [{"name": "courier", "url": "http://127.0.0.1:8000/"}]}).websites[0]


def html_page(source: str) -> HtmlPage:
    return HtmlPage(
        url="http://127.0.0.1:8000/news/flood-defences.html",
        body=source.encode(),
        content_type="text/html; charset=utf-8",
        fetched_at=datetime(2024, 11, 20, tzinfo=UTC),
    )


def news_page(body: str) -> str:
    return (
        f"<!DOCTYPE html><html lang='en'><head><title>{TITLE} | The Millbrook Courier</title>"
        f"<meta property='og:site_name' content='The Millbrook Courier'></head><body>{CHROME}<main><article>"
        f"<h1>{TITLE}</h1><p class='byline'>By Daniel Reyes, 20 November 2024</p><div class='article-body'>{body}"
        f"</div></article></main>{FOOTER}</body></html>"
    )


def unclosed_on_every_line(depth: int, opening: str) -> str:
    """The article with ``opening`` left open before every line of it, ``depth`` of them in all (a CMS bug)."""
    lines = [line for paragraph in PARAGRAPHS for line in _lines(paragraph)]
    per_line = -(-depth // len(lines))
    body, line_number = [], 0
    for paragraph in PARAGRAPHS:
        body.append("<div class='article-paragraph'>")
        for line in _lines(paragraph):
            body.append(opening * per_line + escape(line) + "\n")
            line_number += 1
        body.append("<br>")
    return "".join(body)


def _lines(paragraph: str) -> list[str]:
    words = paragraph.split()
    return [" ".join(words[start : start + 8]) for start in range(0, len(words), 8)]


def word_recall(extracted: str, expected: str) -> float:
    want = Counter(WORD.findall(expected.lower()))
    got = Counter(WORD.findall(extracted.lower()))
    return sum((want & got).values()) / sum(want.values())


@pytest.mark.parametrize("depth", [1500, 5000])
@pytest.mark.parametrize("opening", ["<div class='line'><font face='Georgia'>", "<b>", "<font size='3'><span>"])
def test_a_news_article_nested_thousands_of_levels_deep_is_read_not_dropped(depth, opening):
    source = news_page(unclosed_on_every_line(depth, opening))
    assert tree_deeper_than(parse_html(source), 250)  # the parser itself nests it past the limit
    record = parse_html_page(html_page(source), website())
    assert record["error"] is None and record["extraction"] != "no_document"
    assert record["title"] == TITLE
    assert word_recall(record["content"], ARTICLE) >= 0.9
    assert "All rights reserved" not in record["content"]


def test_paragraphs_each_leaving_a_font_open_are_read():
    # The parser closes the <font> with its paragraph: 2,000 counted levels that never nest (refused until now).
    body = "".join(f"<p><font face='Arial'>{escape(line)}</p>" for paragraph in PARAGRAPHS for line in _lines(paragraph)) * 30
    source = news_page(body)
    assert source.count("<font") > 1000 and max(_depths(parse_html(source))) < 10
    record = parse_html_page(html_page(source), website())
    assert record["error"] is None and word_recall(record["content"], ARTICLE) >= 0.9


def test_a_flattened_article_keeps_its_paragraphs_apart():
    source = news_page(unclosed_on_every_line(1500, "<div class='line'><font face='Georgia'>"))
    flat = flatten_markup(source, 250)
    body = parse_html(flat).find(".//div[@class='article-body']")
    assert flat != source and max(_depths(parse_html(flat))) <= 251
    # Every line of the article is the text of an element of its own, in order, down to the last one. The page's
    # footer, which lxml nests inside the unclosed elements, is still a footer (readers drop it).
    holding_text = [element for element in body.iter() if element.text and element.text.strip()]
    assert [element.text.strip() for element in holding_text[:-1]] == [line for paragraph in PARAGRAPHS for line in _lines(paragraph)]
    assert [element.tag for element in holding_text[-4:]] == ["div", "div", "div", "footer"]


def test_a_page_within_the_limit_is_left_as_it_is():
    source = news_page("".join(f"<p>{escape(paragraph)}</p>" for paragraph in PARAGRAPHS))
    assert flatten_markup(source, 250) is source


def test_a_nested_div_bomb_is_flattened_and_read():
    bomb = "<html><body>" + "<div>" * 200_000 + f"<p>{escape(ARTICLE)}</p>" + "</div>" * 200_000 + "</body></html>"
    record = parse_html_page(html_page(bomb), website())
    assert record["error"] is None and word_recall(record["content"], ARTICLE) >= 0.9


def test_a_deeper_limit_still_flattens_what_lies_past_it():
    source = news_page(unclosed_on_every_line(1500, "<b>"))
    record = parse_html_page(html_page(source), website(), max_markup_depth=60)
    assert record["error"] is None and word_recall(record["content"], ARTICLE) >= 0.9


TAGS = ("div", "font", "b", "span", "p", "section", "em", "h2", "blockquote", "a", "li")


@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(("open", "close", "text")), st.sampled_from(TAGS), st.text("abcxyz", min_size=1, max_size=6)),
        max_size=80,
    ),
    deep=st.integers(0, 600),
    limit=st.integers(2, 40),
)
def test_flattening_keeps_all_text_in_order_and_bounds_the_depth(steps, deep, limit):
    pieces, texts = ["<html><body>", "<div>" * deep], []
    for step, tag, text in steps:
        if step == "open":
            pieces.append(f"<{tag}>")
        elif step == "close":
            pieces.append(f"</{tag}>")
        pieces.append(text)
        texts.append(text)
    flat = flatten_markup("".join(pieces) + "</body></html>", limit)
    tree = parse_html(flat)
    assert "".join(tree.itertext()) == "".join(texts)
    assert max(_depths(tree)) <= max(limit + 1, 3)  # html and body always, one void element below the limit


def _depths(tree):
    depth = 0
    for event, _ in etree.iterwalk(tree, events=("start", "end")):
        depth += 1 if event == "start" else -1
        yield depth


def test_the_parsed_tree_tells_a_page_nested_past_the_limit_or_past_what_lxml_keeps():
    def nested(divs: int):
        return parse_html("<html><body>" + "<div>" * divs + "text" + "</div>" * divs + "</body></html>")

    assert not tree_deeper_than(nested(48), 50) and tree_deeper_than(nested(49), 50)  # html and body are 2 levels
    assert not tree_deeper_than(nested(253), 1000) and tree_deeper_than(nested(5000), 1000)  # cut at 256: maybe deeper
