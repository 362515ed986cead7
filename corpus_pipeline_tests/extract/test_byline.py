"""Bylines, datelines, reading times and author notes: an article's metadata written out in its reading."""

from datetime import UTC, datetime

from lxml import html

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.byline import page_authors, without_metadata_lines
from corpus_pipeline.extract.page import HtmlPage, parse_html_page
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.structured_data import structured_data

PUBLISHED = datetime(2024, 3, 12, 9, 30, tzinfo=UTC)
STORY = [
    "Community gardens turn vacant lots into shared plots where neighbours grow vegetables together.",
    "They also become meeting places, where skills and seeds are exchanged across generations.",
    "The city now plans twelve more of them by the end of the year, one in every district.",
]


def reading(*lines: str) -> str:
    return "\n".join(lines)


def test_byline_dateline_and_reading_time_at_the_edges_go():
    text = reading("By Jane Doe", "March 12, 2024 · 6 min read", *STORY, "Jane Doe")
    assert without_metadata_lines(text, ("Jane Doe",), (PUBLISHED,)) == reading(*STORY)


def test_a_date_written_in_another_time_zone_is_the_page_s_date():
    text = reading("Published on March 13, 2024 at 01:15 am", *STORY)
    assert without_metadata_lines(text, (), (PUBLISHED,)) == reading(*STORY)


def test_a_line_naming_anything_but_the_page_s_metadata_stays():
    # Another month's date is an event's, not the page's (a day number alone reads as a clock's: it is not checked).
    other_date = reading("July 20, 2023", *STORY)
    assert without_metadata_lines(other_date, ("Jane Doe",), (PUBLISHED,)) == other_date
    other_words = reading("By Jane Doe and the parks department", *STORY)
    assert without_metadata_lines(other_words, ("Jane Doe",), (PUBLISHED,)) == other_words
    sentence = reading("Jane Doe wrote this on March 12, 2024, after a long walk through the gardens", *STORY)
    assert without_metadata_lines(sentence, ("Jane Doe",), (PUBLISHED,)) == sentence


def test_only_the_first_and_last_lines_are_judged():
    middle = reading(*STORY, "By Jane Doe", *STORY, *STORY)
    assert without_metadata_lines(middle, ("Jane Doe",), (PUBLISHED,)) == middle
    off = ExtractionSettings(metadata_edge_lines=0)
    edge = reading("By Jane Doe", *STORY)
    assert without_metadata_lines(edge, ("Jane Doe",), (PUBLISHED,), off) == edge


def test_a_closing_note_that_opens_with_the_author_s_full_name_goes():
    note = "Jane Doe is a staff writer who covers city parks and urban farming."
    assert without_metadata_lines(reading(*STORY, note), ("Jane Doe",), ()) == reading(*STORY)
    # A one-word author is a team or a site, whose own story may open a sentence with its name.
    team = "Riverside tends the gardens with volunteers every weekend."
    assert without_metadata_lines(reading(*STORY, team), ("Riverside",), ()) == reading(*STORY, team)
    # The same note opening the story is its first paragraph, not a closing note.
    assert without_metadata_lines(reading(note, *STORY, *STORY), ("Jane Doe",), ()) == reading(note, *STORY, *STORY)


def test_dates_at_the_ends_of_the_calendar_do_not_break_the_reading():
    for date in (datetime.min, datetime.max):
        assert without_metadata_lines(reading(*STORY), (), (date,)) == reading(*STORY)


def test_authors_are_read_from_ld_json_and_meta_tags():
    document = html.document_fromstring(
        "<html><head><script type='application/ld+json'>"
        '{"@type": "NewsArticle", "author": [{"@type": "Person", "name": "Jane Doe"}, "Sam Roe"]}</script>'
        "<meta name='author' content='Ann Lee'><meta property='article:author' content='https://example.org/ann'>"
        "</head><body><p>Text</p></body></html>"
    )
    assert page_authors(document, structured_data(document).objects) == ("Jane Doe", "Sam Roe", "Ann Lee")


def test_an_article_record_leaves_its_byline_out_and_other_pages_keep_theirs():
    paragraphs = "".join(f"<p>{line}</p>" for line in STORY * 2)
    body = f"<article><h1>Growing together</h1><p>By Jane Doe</p><p>March 12, 2024</p>{paragraphs}</article>"
    head = "<title>Growing together</title><meta name='author' content='Jane Doe'>"
    declared = '<script type="application/ld+json">{"@type": "NewsArticle", "datePublished": "2024-03-12"}</script>'
    site = parse_registry({"websites": [{"name": "site", "url": "http://127.0.0.1:8000/"}]}).websites[0]

    def content(head: str) -> str:
        page = f"<html lang='en'><head>{head}</head><body>{body}</body></html>".encode()
        record = parse_html_page(HtmlPage("http://127.0.0.1:8000/post.html", page, "text/html", PUBLISHED), site)
        return record["content"]

    article = content(head + declared)
    assert STORY[0] in article and "Jane Doe" not in article and "March 12" not in article
    assert "By Jane Doe" in content(head)  # no declared article: the rule does not run
    assert DEFAULT_SETTINGS.metadata_edge_lines > 0


def test_an_ordinal_date_and_a_share_bar_at_the_edges_go():
    text = reading("Share this article", "Last updated on March 12th, 2024 at 09:27 am", *STORY, "Link copied!")
    assert without_metadata_lines(text, (), (PUBLISHED,)) == reading(*STORY)
    # The share bar's words without one of its actions are a sentence's: "Print this page" goes, "This page" stays.
    kept = reading("This page", *STORY)
    assert without_metadata_lines(kept, (), (PUBLISHED,)) == kept


def test_the_page_s_tags_under_their_label_at_the_edges_go():
    text = reading(*STORY, "Tags: Gardens, Cities, Volunteers", "Posted in Community")
    assert without_metadata_lines(text, (), ()) == reading(*STORY)
    # "Topics include ..." is a sentence that starts like a label: it stays.
    sentence = reading(*STORY, "Topics include soil, seeds and water rights.")
    assert without_metadata_lines(sentence, (), ()) == sentence
