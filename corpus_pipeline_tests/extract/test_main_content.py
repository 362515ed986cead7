"""Automatic main content, steered by the page's declared type."""

import json
import re
from collections.abc import Callable
from dataclasses import replace

import trafilatura
from lxml import html

from corpus_pipeline.extract.card_grid import card_grid_cards
from corpus_pipeline.extract.main_content import Extraction, extract_main_content
from corpus_pipeline.extract.second_opinion import resiliparse_main_text
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS

URL = "https://news.example.org/2024/flood-levels"
PARAGRAPHS = [
    f"Part {i} of the report explains how the river authority measured flood levels across the valley in "
    f"spring {2000 + i}, and what the readings mean for the farms downstream."
    for i in range(8)
]


def _article_page(body: str, **ld_fields) -> str:
    ld = json.dumps({"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Flood levels", **ld_fields})
    return (
        f'<html><head><title>Flood levels</title><script type="application/ld+json">{ld}</script></head>'
        f"<body>{body}</body></html>"
    )


def _extract(page: str, skipped: tuple[str, ...] = ()) -> str:
    return extract_main_content(html.fromstring(page), lambda: html.fromstring(page), page, URL, list(skipped)).text


def test_an_article_loses_the_promotion_boxes_inside_its_body():
    box = '<div class="article-bottom"><p>Join our free weekly quiz, with prizes for the readers who follow the valley news.</p></div>'
    paragraphs = [f"<p>{text}</p>" for text in PARAGRAPHS]
    page = _article_page(f"<article><h1>Flood levels</h1>{''.join(paragraphs[:4])}{box}{''.join(paragraphs[4:])}</article>")
    text = _extract(page)
    assert text.split("\n")[-len(PARAGRAPHS):] == PARAGRAPHS
    assert "quiz" not in text


def test_an_article_whose_text_only_its_structured_data_holds_is_still_read():
    """Script-rendered news pages ship a placeholder; precision alone would keep just that."""
    page = _article_page('<div id="app"><h1>Flood levels</h1><p>Loading…</p></div>', articleBody=" ".join(PARAGRAPHS))
    assert all(paragraph in _extract(page) for paragraph in PARAGRAPHS)


def test_a_listicle_whose_entries_trafilatura_drops_gets_them_from_the_second_opinion():
    """The entries sit in a container whose class says footer: both trafilatura modes keep the introduction only."""
    intro = (
        "<p>The stars are back in town, in a big way, and here are the places you can book tonight.</p>"
        "<p>Below are the honorees that take reservations, from newly starred kitchens to the established names, "
        "and a few casual spots the inspectors singled out for value. You are getting a fine meal at any of them.</p>"
    )
    entries = "".join(
        f'<article class="venue"><h3>Station {i}</h3><div class="venue-excerpt"><p>{text}</p></div></article>'
        for i, text in enumerate(PARAGRAPHS)
    )
    page = _article_page(f'<h1>Flood levels</h1><div class="page-body">{intro}</div><div class="page-footer">{entries}</div>')
    text = _extract(page)
    assert "honorees that take reservations" in text
    assert all(paragraph in text for paragraph in PARAGRAPHS)


def test_a_forum_thread_keeps_its_replies():
    ld = json.dumps({"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Pump advice"})
    replies = "".join(
        f'<div class="comment"><p class="author">user{i}</p><p>{text}</p></div>' for i, text in enumerate(PARAGRAPHS[1:4])
    )
    page = (
        f'<html><head><script type="application/ld+json">{ld}</script></head><body><article><h1>Pump advice</h1>'
        f'<p>{PARAGRAPHS[0]}</p></article><section id="comments">{replies}</section></body></html>'
    )
    assert all(text in _extract(page) for text in PARAGRAPHS[:4])


def test_a_blog_posts_reader_comments_never_join_it():
    """trafilatura leaves comments out; the second opinion, reading the source, must not bring them back."""
    comments = "".join(
        f'<li class="comment"><p class="author">reader{i}</p><p>Thanks for the write-up, reader {i} here: our farm '
        f"lost its lower field to the water in {1990 + i}, and nobody from the authority ever came to measure.</p></li>"
        for i in range(30)
    )
    page = (
        f"<html><head><title>Flood levels</title></head><body><div class='post'><h1>Flood levels</h1>"
        f"{''.join(f'<p>{text}</p>' for text in PARAGRAPHS[:3])}</div>"
        f'<div id="comments"><h3>30 comments</h3><ol class="comment-list">{comments}</ol></div></body></html>'
    )
    text = _extract(page)
    assert all(paragraph in text for paragraph in PARAGRAPHS[:3])
    assert "lower field" not in text


def _programs_page() -> str:
    # Classes trafilatura reads as teasers of related content: it keeps only each card's last line.
    cards = "".join(
        f'<div class="teaser related"><a href="/programs/{i}"><span>Certificate in distributed systems design, '
        f"cohort {i}</span></a><p>Online, {2 + i} weeks</p></div>"
        for i in range(24)
    )
    return (
        "<html><head><title>Programs</title></head><body><h1>Programs</h1>"
        f"<p>{PARAGRAPHS[0]}</p><div class='results'>{cards}</div></body></html>"
    )


def test_a_listing_keeps_its_introduction_and_every_record_of_its_grid():
    lines = _extract(_programs_page()).split("\n")
    assert PARAGRAPHS[0] in lines
    for i in range(24):
        assert lines.count(f"Certificate in distributed systems design, cohort {i}") == 1
        assert lines.count(f"Online, {2 + i} weeks") == 1


def test_an_article_whose_ranked_entries_are_cards_keeps_every_entry():
    # trafilatura takes two entries in three for teasers of related content, from their classes.
    entries = "".join(
        f'<div class="entry card{"" if i % 3 == 0 else " teaser related"}"><h3>Station {i}</h3><p>{text}</p></div>'
        for i, text in enumerate(PARAGRAPHS * 2)
    )
    text = _extract(_article_page(f"<h1>Flood levels</h1><div class='ranking'>{entries}</div>"))
    assert all(paragraph in text for paragraph in PARAGRAPHS)


def _teasers(count: int) -> str:
    return "".join(
        f'<div class="story card teaser related"><h3>Story {i}</h3><p>Council approves the new tram line {i} through the old harbour '
        f"district after a decade of debate, with the first trains promised before the winter holidays of {2030 + i}.</p></div>"
        for i in range(count)
    )


# In these two, the second opinion leaves the teasers out (``skipped``), as Resiliparse did on the news sites where
# they took over the story: otherwise it would count them as text the article reading missed.
def test_teasers_of_other_stories_never_join_an_article():
    page = _article_page(
        f"<article><h1>Flood levels</h1>{''.join(f'<p>{text}</p>' for text in PARAGRAPHS[:3])}</article>"
        f"<div class='more'>{_teasers(12)}</div>"
    )
    text = _extract(page, skipped=(".teaser",))
    assert PARAGRAPHS[0] in text and "tram line" not in text


def test_an_article_shown_as_the_first_of_a_stream_of_stories_is_read_alone():
    story = f'<div class="story card"><h1>Flood levels</h1>{"".join(f"<p>{text}</p>" for text in PARAGRAPHS[:4])}</div>'
    page = _article_page(f"<div class='stream'>{story}{_teasers(12)}</div>")
    text = _extract(page, skipped=(".teaser",))
    assert PARAGRAPHS[3] in text and "tram line" not in text


def test_a_sidebar_of_one_word_links_never_joins_an_article():
    # Four widgets of many short lines: a page's furniture, where a shop's records are many cards of a few lines.
    widgets = "".join(
        f'<div class="widget"><h4>{name}</h4><ul>{"".join(f"<li><a href=/t/{n}>topic{n}</a></li>" for n in range(25))}</ul></div>'
        for name in ("Categories", "Tags", "Archives", "Authors")
    )
    page = f"<html><body><article><h1>Flood levels</h1><p>{PARAGRAPHS[0]}</p></article><div>{widgets}</div></body></html>"
    text = _extract(page)
    assert PARAGRAPHS[0] in text
    assert "topic3" not in text


def _shop_page(count: int) -> str:
    # Records of short lines (a name, a price, one colour swatch a line: under 2.5 words a line, like a menu's), all
    # links, below a paragraph: trafilatura keeps the paragraph alone.
    cards = "".join(
        f"<li class='product'><a href='/cup-{i}'><h2>Glass cup {i}oz</h2><span>${12 + i}.00</span></a>"
        + "".join(f"<div class='swatch'><a href='/cup-{i}?colour={c}'>{c}</a></div>" for c in ("Amber", "Lilac", "Sandstone"))
        + "</li>"
        for i in range(count)
    )
    return f"<html><body><div class='intro'><p>{PARAGRAPHS[0]}</p></div><ul class='products'>{cards}</ul></body></html>"


def test_many_short_records_of_a_shop_join_its_text():
    text = _extract(_shop_page(12))
    assert PARAGRAPHS[0] in text
    assert all(f"Glass cup {i}oz" in text for i in range(12))
    assert text.count("Sandstone") == 12


def test_an_article_the_parser_buries_in_a_popup_is_still_read():
    # One <div> is left open, so lxml ignores </aside> and nests the whole page in the popup; browsers do not.
    popup = '<aside class="popup-overlay"><div class="outer"><div class="popup">Sign up for our newsletter.</div></aside>'
    paragraphs = "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
    text = _extract(_article_page(f"{popup}<article><h1>Flood levels</h1>{paragraphs}</article>"))
    assert all(paragraph in text for paragraph in PARAGRAPHS)


def _counted_copies(page: str) -> tuple[list[int], Callable[[], html.HtmlElement]]:
    """A ``fresh_document`` for ``page`` that counts how often it is asked for."""
    calls = [0]

    def fresh_document():
        calls[0] += 1
        return html.fromstring(page)

    return calls, fresh_document


# A page that loses a comment section needs a fresh copy of itself for a second reading (trafilatura reads a copy of
# the tree it is given, so a page that lost nothing is its own fresh copy).
READER_COMMENTS = '<div id="comments"><p>Great report, thanks!</p></div>'


def test_a_fast_reading_that_agrees_with_the_second_opinion_is_not_redone():
    page = f"<html><body><main><h1>Flood levels</h1>{''.join(f'<p>{p}</p>' for p in PARAGRAPHS)}</main></body></html>"
    calls, fresh_document = _counted_copies(page)
    main = extract_main_content(html.fromstring(page), fresh_document, page, URL, [])
    assert all(paragraph in main.text for paragraph in PARAGRAPHS)
    assert calls == [0]
    assert main.extraction is Extraction.TRAFILATURA_FAST


def test_a_fast_reading_far_shorter_than_the_second_opinion_is_redone_in_full():
    """The second opinion reads ``text``; here it holds eight times the words the parsed page does."""
    short = f"<html><body><main><h1>Flood levels</h1><p>{PARAGRAPHS[0]}</p></main>{READER_COMMENTS}</body></html>"
    long_ = f"<html><body><main><h1>Flood levels</h1>{''.join(f'<p>{p}</p>' for p in PARAGRAPHS)}</main></body></html>"
    calls, fresh_document = _counted_copies(short)
    main = extract_main_content(html.fromstring(short), fresh_document, long_, URL, [])
    assert calls == [1]
    assert PARAGRAPHS[0] in main.text
    assert main.extraction is Extraction.SECOND_OPINION_MERGED, "the full reading was still short: the second opinion filled it"


def test_a_page_that_lost_no_comment_section_is_read_again_without_a_fresh_copy():
    short = f"<html><body><main><h1>Flood levels</h1><p>{PARAGRAPHS[0]}</p></main></body></html>"
    long_ = f"<html><body><main><h1>Flood levels</h1>{''.join(f'<p>{p}</p>' for p in PARAGRAPHS)}</main></body></html>"
    plain = replace(DEFAULT_SETTINGS, second_opinion_merge=False)
    calls, fresh_document = _counted_copies(short)
    main = extract_main_content(html.fromstring(short), fresh_document, long_, URL, [], plain)
    assert calls == [0]
    assert main.extraction is Extraction.TRAFILATURA_FULL
    assert main.text == trafilatura.extract(short, url=URL, include_comments=False, include_tables=True)


def test_trafilatura_leaves_the_tree_it_reads_as_it_was():
    """What lets a page that lost no comment section serve as its own fresh copy."""
    page = _article_page(f"<nav><a href='/'>Home</a></nav><main><h1>Flood levels</h1><p>{PARAGRAPHS[0]}</p></main>")
    document = html.fromstring(page)
    before = html.tostring(document)
    for fast in (True, False):
        assert trafilatura.extract(document, url=URL, fast=fast, include_comments=False, include_tables=True)
        assert html.tostring(document) == before


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def test_a_fast_reading_stands_from_exactly_its_minimum_share_of_the_second_opinion():
    """The fast-mode check decides every page that is not an article (wcxb-dev: most of them)."""
    short = f"<html><body><main><h1>Flood levels</h1><p>{PARAGRAPHS[0]}</p></main>{READER_COMMENTS}</body></html>"
    long_ = f"<html><body><main><h1>Flood levels</h1>{''.join(f'<p>{p}</p>' for p in PARAGRAPHS)}</main></body></html>"
    plain = replace(DEFAULT_SETTINGS, second_opinion_merge=False, headings_restored=False, min_fast_share=0.0)
    found = _words(extract_main_content(html.fromstring(short), lambda: html.fromstring(short), long_, URL, [], plain).text)
    share = found / _words(resiliparse_main_text(long_))
    for min_share, redone in ((share - 1e-9, False), (share + 1e-9, True)):
        calls, fresh_document = _counted_copies(short)
        main = extract_main_content(html.fromstring(short), fresh_document, long_, URL, [], replace(plain, min_fast_share=min_share))
        assert (calls == [1]) is redone
        assert main.extraction is (Extraction.TRAFILATURA_FULL if redone else Extraction.TRAFILATURA_FAST)


def test_a_card_grid_joins_only_when_it_holds_more_than_the_minimum_growth_times_the_reading():
    """The growth guard decides which listings and collections get their grid."""
    page = _programs_page()
    without_grid = replace(DEFAULT_SETTINGS, card_grids=False)
    reading = extract_main_content(html.fromstring(page), lambda: html.fromstring(page), page, URL, [], without_grid).text
    grid = sum(_words(line) for card in card_grid_cards(html.fromstring(page)) for line in card)
    growth = grid / _words(reading)
    assert growth > DEFAULT_SETTINGS.min_grid_growth, "the default joins this grid"
    for min_growth, joins in ((growth - 1e-6, True), (growth, False)):
        main = extract_main_content(
            html.fromstring(page), lambda: html.fromstring(page), page, URL, [], replace(DEFAULT_SETTINGS, min_grid_growth=min_growth)
        )
        assert (main.extraction is Extraction.CARD_GRID_ADDED) is joins
        assert ("systems design, cohort 23" in main.text) is joins


def test_an_article_keeps_its_precise_reading_from_exactly_the_minimum_share_of_the_second_opinion():
    """The precision guard decides every article (wcxb-dev: 605 of 1,497 pages are read in precision mode)."""
    box = '<div class="article-bottom"><p>Join our free weekly quiz, with prizes for the readers who follow the valley news.</p></div>'
    page = _article_page(f"<article><h1>Flood levels</h1>{''.join(f'<p>{p}</p>' for p in PARAGRAPHS[:3])}{box}</article>")
    # The guard weighs the precise reading as read, its headline included.
    plain = replace(
        DEFAULT_SETTINGS, headings_restored=False, headline_left_out=False, card_grids=False, min_precise_share=0.0
    )
    precise = extract_main_content(html.fromstring(page), lambda: html.fromstring(page), page, URL, [], plain)
    assert precise.extraction is Extraction.TRAFILATURA_PRECISION
    share = _words(precise.text) / _words(resiliparse_main_text(page))
    assert share < 1, "precision left the box out, the second opinion kept it"
    for min_share, stands in ((share - 1e-9, True), (share + 1e-9, False)):
        main = extract_main_content(
            html.fromstring(page), lambda: html.fromstring(page), page, URL, [], replace(plain, min_precise_share=min_share)
        )
        assert (main.extraction is Extraction.TRAFILATURA_PRECISION) is stands
        assert ("weekly quiz" in main.text) is not stands, "the default mode keeps the box"


def test_a_reading_that_opens_with_the_headline_loses_it_but_keeps_the_title_words_further_down():
    """The title has its own column; trafilatura keeps an article's <h1> as the reading's first line."""
    story = "Flood levels rose again in the valley"
    paragraphs = [f"<p>{text}</p>" for text in PARAGRAPHS]
    page = (
        f"<html><head><title>{story} | Valley News</title></head><body><main><article><h1>{story}</h1>"
        f"{''.join(paragraphs[:4])}<h2>{story}</h2>{''.join(paragraphs[4:])}</article></main></body></html>"
    )
    lines = _extract(page).split("\n")
    assert lines == [*PARAGRAPHS[:4], story, *PARAGRAPHS[4:]]
    kept = extract_main_content(
        html.fromstring(page), lambda: html.fromstring(page), page, URL, [], replace(DEFAULT_SETTINGS, headline_left_out=False)
    )
    assert kept.text.split("\n")[0] == story


def test_a_page_loses_its_comment_sections():
    page = f"<html><body><main><h1>Flood levels</h1>{''.join(f'<p>{p}</p>' for p in PARAGRAPHS)}</main>{READER_COMMENTS}</body></html>"
    reading = extract_main_content(html.fromstring(page), lambda: html.fromstring(page), page, URL, [])
    assert "Great report" not in reading.text and PARAGRAPHS[0] in reading.text


def test_a_reading_carries_its_word_count_only_when_it_is_its_texts():
    """The count a finished reading carries for the line arbiter is its own text's, whichever way the grid goes."""
    from corpus_pipeline.extract import main_content
    from corpus_pipeline.extract.card_grid import CardGrid
    from corpus_pipeline.extract.text import WORD

    page = _programs_page()
    reading = "Programs we run\nsystems design, cohort 23"
    carried = 0
    for min_growth in (0.0, 2.0, 1000.0):
        settings = replace(DEFAULT_SETTINGS, min_grid_growth=min_growth)
        grid = CardGrid(html.fromstring(page), settings)
        for cards in (grid, None):
            finished = main_content._finished(reading, Extraction.TRAFILATURA_FAST, [], (), cards, settings)
            if finished.words is not None:
                carried += 1
                assert finished.words == len(WORD.findall(finished.text))
    assert carried  # the grid's check counted the reading


def test_each_reading_is_trafilatura_s_own_in_its_mode():
    """The fast reading stands when its length agrees with the second opinion's, else the full one replaces it."""
    from corpus_pipeline.extract.main_content import _checked_trafilatura

    page = _article_page(f"<main><h1>Flood levels</h1>{''.join(f'<p>{p}</p>' for p in PARAGRAPHS)}</main>")
    document = html.fromstring(page)
    fast = trafilatura.extract(page, url=URL, fast=True, include_comments=False, include_tables=True)
    full = trafilatura.extract(page, url=URL, include_comments=False, include_tables=True)
    words = _words(fast)
    assert _checked_trafilatura(document, lambda: document, URL, words, 1.0, DEFAULT_SETTINGS) == (fast, True, words)
    assert _checked_trafilatura(document, lambda: document, URL, 10 * words, 1.0, DEFAULT_SETTINGS) == (full, False, None)
