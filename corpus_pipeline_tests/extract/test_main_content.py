"""Automatic main content, steered by the page's declared type."""

import json

from lxml import html

from corpus_pipeline.extract.main_content import extract_main_content

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


def _extract(page: str) -> str:
    return extract_main_content(html.fromstring(page), lambda: html.fromstring(page), page, URL, [])


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


def test_a_sidebar_of_one_word_links_never_joins_an_article():
    widgets = "".join(
        f'<div class="widget"><h4>{name}</h4><ul>{"".join(f"<li><a href=/t/{n}>topic{n}</a></li>" for n in range(25))}</ul></div>'
        for name in ("Categories", "Tags", "Archives", "Authors")
    )
    page = f"<html><body><article><h1>Flood levels</h1><p>{PARAGRAPHS[0]}</p></article><div>{widgets}</div></body></html>"
    text = _extract(page)
    assert PARAGRAPHS[0] in text
    assert "topic3" not in text


def test_an_article_the_parser_buries_in_a_popup_is_still_read():
    # One <div> is left open, so lxml ignores </aside> and nests the whole page in the popup; browsers do not.
    popup = '<aside class="popup-overlay"><div class="outer"><div class="popup">Sign up for our newsletter.</div></aside>'
    paragraphs = "".join(f"<p>{text}</p>" for text in PARAGRAPHS)
    text = _extract(_article_page(f"{popup}<article><h1>Flood levels</h1>{paragraphs}</article>"))
    assert all(paragraph in text for paragraph in PARAGRAPHS)
