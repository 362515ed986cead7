"""A listing's card grid: the repeated records that carry its content."""

import re
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from lxml import etree, html

from corpus_pipeline.extract.card_grid import CardGrid, _at_least_words, card_grid_cards
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS
from corpus_pipeline.extract.text import word_count

JOBS = [
    ("Senior data engineer", "Build the pipelines behind our energy forecasts, fully remote."),
    ("Site reliability engineer", "Keep forty clusters healthy across three regions."),
    ("Product designer", "Shape the tools that grid operators use every single day."),
    ("Technical writer", "Explain our forecasting APIs to the engineers who call them."),
    ("Support engineer", "Help utilities connect their meters to the platform."),
]


def _card(title: str, blurb: str, css: str = "job") -> str:
    return (
        f'<li class="{css} card"><h3><a href="/jobs/{title[:4]}">{title}</a></h3><p>{blurb}</p>'
        '<nav><a href="/save">Save</a> <a href="/share">Share</a></nav><script>track("impression")</script></li>'
    )


def _grid_lines(document: html.HtmlElement) -> list[str]:
    return [line for card in card_grid_cards(document) for line in card]


def _page(body: str) -> html.HtmlElement:
    return html.fromstring(f"<html><body>{body}</body></html>")


def test_the_largest_run_of_alike_siblings_is_read_card_by_card_without_their_menus():
    menu = "".join(f'<li class="menu"><a href="/{word}">{word} section</a></li>' for word in ("News", "Jobs", "Teams", "About"))
    cards = "".join(_card(title, blurb) for title, blurb in JOBS)
    document = _page(f'<ul class="top">{menu}</ul><h1>Open positions</h1><ul class="jobs">{cards}</ul>')
    assert _grid_lines(document) == [line for job in JOBS for line in job]


def test_a_grid_split_into_columns_is_read_whole_in_page_order_and_a_sidebar_list_stays_out():
    jobs = [*JOBS, *((f"{title}, second team", blurb) for title, blurb in JOBS[:3])]  # eight: four per column
    columns = "".join(f'<td><ul class="jobs">{"".join(_card(*job) for job in half)}</ul></td>' for half in (jobs[:4], jobs[4:]))
    sidebar = "".join(_card(f"Office {city}", "Run the office.") for city in ("Lisbon", "Oslo", "Porto", "Riga"))
    document = _page(f'<table class="index"><tr>{columns}</tr></table><div class="side"><ul class="jobs">{sidebar}</ul></div>')
    assert _grid_lines(document) == [line for job in jobs for line in job]
    one_column = replace(DEFAULT_SETTINGS, grid_column_levels=0)
    read_alone = [line for card in card_grid_cards(document, one_column) for line in card]
    assert read_alone in ([line for job in half for line in job] for half in (jobs[:4], jobs[4:]))  # one column only


def test_text_after_a_comment_inside_a_card_stays_in_its_line():
    """Templates mark where their blocks end with comments (WordPress: ``<!-- .entry-meta -->``)."""
    cards = "".join(
        f'<li class="job"><h3>{title}<!-- .title --></h3><p>{blurb.replace(" ", " <!-- cut -->", 1)}</p><!-- .job --></li>'
        for title, blurb in JOBS
    )
    assert _grid_lines(_page(f"<ul>{cards}</ul>")) == [line for job in JOBS for line in job]


def test_a_page_wrapper_beside_empty_layout_divs_is_not_a_grid():
    article = "<h1>Field notes</h1>" + "<p>The river rose two metres overnight. The lower meadow flooded again, as it does each spring.</p>" * 3
    layout = f'<div id="header">Notes</div><div id="wrapper">{article}</div><div id="credits">Photos by staff</div><div id="footer-bar">Contact</div>'
    assert card_grid_cards(_page(layout)) == []


def test_a_carousel_clone_of_a_card_is_read_once():
    cards = "".join(_card(title, blurb) for title, blurb in [*JOBS, JOBS[0]])
    lines = _grid_lines(_page(f"<ul>{cards}</ul>"))
    assert lines.count(JOBS[0][0]) == 1
    assert len(lines) == 2 * len(JOBS)


def test_menus_of_one_word_links_and_lone_blocks_are_no_grid():
    menu = "".join(f'<li class="menu"><a href="/{word}">{word}</a></li>' for word in ("News", "Jobs", "Teams", "About", "Blog"))
    columns = "".join(f'<div class="col"><p>{blurb}</p></div>' for _, blurb in JOBS[:3])  # three alike: too few
    assert card_grid_cards(_page(f"<ul>{menu}</ul>{columns}<p>One paragraph of prose.</p>")) == []


def test_cards_inside_page_furniture_are_not_records():
    cards = "".join(_card(title, blurb) for title, blurb in JOBS)
    assert card_grid_cards(_page(f"<footer><ul>{cards}</ul></footer><aside><ul>{cards}</ul></aside>")) == []


def test_deeply_nested_markup_is_walked_without_recursion():
    document = _page("<ul>" + "".join(_card(title, blurb) for title, blurb in JOBS) + "</ul>")
    innermost = document.find("body")
    for _ in range(5_000):  # deeper than Python's recursion limit
        innermost = etree.SubElement(innermost, "div")
    innermost.text = "The end of a very deep page."
    assert _grid_lines(document)[-1] == JOBS[-1][1]


@given(st.lists(st.tuples(st.from_regex(r"[A-Z][a-z]{2,8}( [a-z]{2,8}){1,3}", fullmatch=True),
                          st.from_regex(r"[A-Z][a-z]{2,8}( [a-z]{2,8}){3,8}\.", fullmatch=True)), min_size=4, max_size=12))
def test_every_distinct_card_is_read_once_in_page_order(cards):
    document = _page("<ul>" + "".join(_card(title, blurb) for title, blurb in cards) + "</ul>")
    distinct = list(dict.fromkeys(cards))
    assert _grid_lines(document) == [line for card in distinct for line in card]


# Texts whose words the card lines may split further than the page's text does (pieces joined by spaces), with
# punctuation inside words (ASCII or not), words beyond ASCII, and menus and scripts around.
_CARD_TEXT = st.lists(st.sampled_from(["a,b", "word", "x-y", "", " ", "é", "7", "a—b", "“q”", "中文", "ß"]), max_size=6).map(
    " ".join
)


@given(st.lists(st.tuples(_CARD_TEXT, _CARD_TEXT), min_size=0, max_size=8), st.booleans())
def test_a_grid_never_holds_more_words_than_its_bound_and_is_found_once(cards, in_columns):
    items = "".join(
        f'<li class="c"><b>{title}</b>x<i>{blurb}</i><nav>{title}</nav><script>{blurb}</script></li>'
        for title, blurb in cards
    )
    body = f"<table><tr><td><ul>{items}</ul></td><td><ul>{items}</ul></td></tr></table>" if in_columns else f"<ul>{items}</ul>"
    document = _page(body)
    found = card_grid_cards(document)
    grid = CardGrid(_page(body))
    bound = grid.max_words()
    grid.find()
    found_bound = grid.max_words()
    words = sum(len(re.findall(r"\w+", line)) for card in found for line in card)
    assert words <= bound and words <= found_bound
    assert grid.cards() == found and grid.cards() is grid.cards()
    assert words <= grid.max_words()


@given(st.text())
def test_a_text_s_bound_on_words_is_at_least_its_words_and_as_many_in_ascii(text):
    assert _at_least_words(text) >= word_count(text)
    if text.isascii():
        assert _at_least_words(text) == word_count(text)
