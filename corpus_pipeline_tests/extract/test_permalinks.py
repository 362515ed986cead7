"""A link into the page that holds no word (a heading's "¶", a footnote's "↩") is no part of the text."""

import re
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.page import HtmlPage, parse_html_page
from corpus_pipeline.extract.permalinks import remove_permalinks

SITE = parse_registry({"websites": [{"name": "s", "url": "http://127.0.0.1:8000/"}]}).websites[0]
WORDS = re.compile(r"\w+")
PROSE = "<p>" + "Clean the filter of the pump every month before the first frost of the winter comes. " * 3 + "</p>"


def parsed(main: str) -> dict:
    body = f"<html><head><title>Pumps</title></head><body><main>{main}</main></body></html>".encode()
    return parse_html_page(HtmlPage("http://127.0.0.1:8000/pumps.html", body, "text/html", datetime.now(UTC)), SITE)


def test_a_heading_s_permalink_is_not_in_the_text_or_the_markdown():
    record = parsed(
        '<h1>Pumps<a class="headerlink" href="#pumps" title="Link to this heading">¶</a></h1>'
        f'<h2 id="care">Care<a class="headerlink" href="#care">\uf0c1</a></h2>{PROSE}'
        f'<h2 id="frost"><a class="hash-link" href="#frost">\u200b</a>Frost#</h2>{PROSE}'
    )
    assert "Care" in record["content"].split("\n")
    assert "## Care" in record["markdown"].split("\n")
    assert "¶" not in record["markdown"] and "\uf0c1" not in record["content"] and "(#" not in record["markdown"]
    assert "Frost#" in record["content"], "a '#' written in the heading itself is its text"


def test_a_footnote_s_way_back_goes_and_links_with_words_stay():
    record = parsed(
        f'{PROSE}<p>Drain it first.<a href="#fnref1" class="footnote-ref">1</a></p>'
        '<ol><li id="fn1">Open the valve at the bottom. <a href="#fnref1" class="footnote-backref">↩</a></li></ol>'
    )
    assert "↩" not in record["content"]
    assert "Open the valve at the bottom." in record["content"]
    assert "Drain it first.1" in record["content"], "a footnote's number is a word"
    document = html.fragment_fromstring('<p><a href="#top">Back to top</a> <a href="#top">↑</a></p>')
    remove_permalinks(document)
    assert document.text_content().strip() == "Back to top"


def test_a_wordless_link_between_two_words_leaves_a_space():
    document = html.fragment_fromstring('<p>see<a href="#next">→</a>next and <a href="#x">¶</a> more</p>')
    remove_permalinks(document)
    assert document.text_content() == "see next and   more"


_PIECES = st.lists(
    st.sampled_from(["word", "two words", " ", "¶", "#", "↩", "\u200b", ".", "x1", ""]), min_size=0, max_size=3
).map("".join)
_FRAGMENT = st.lists(
    st.one_of(
        _PIECES,
        st.tuples(st.sampled_from(["#a", "#", "/page", "https://example.org/#a"]), _PIECES).map(
            lambda link: f'<a href="{link[0]}">{link[1]}</a>'
        ),
        st.tuples(st.sampled_from(["h2", "p", "span", "li"]), _PIECES).map(lambda el: f"<{el[0]}>{el[1]}</{el[0]}>"),
    ),
    max_size=8,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_FRAGMENT)
def test_the_text_keeps_its_words_and_loses_only_wordless_links_into_the_page(fragment):
    document = html.fragment_fromstring(f"<div>{fragment}</div>")
    before = document.text_content()
    remove_permalinks(document)
    assert WORDS.findall(document.text_content()) == WORDS.findall(before)
    left = [link for link in document.iter("a") if (link.get("href") or "").startswith("#")]
    assert all(WORDS.search(link.text_content()) for link in left), "every link into the page left holds a word"
