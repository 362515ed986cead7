"""Reader comments are found by their containers and leave the page."""

from lxml import html

from corpus_pipeline.extract.comments import remove_comment_sections
from corpus_pipeline.extract.second_opinion import resiliparse_main_text

POST = "<p>The library extends its opening hours through the exam season, from eight in the morning to midnight.</p>" * 3
REPLY = "<p>Great news, the reading room was always full by ten in the morning during the last exams.</p>"


def test_comment_lists_and_widgets_are_removed_and_named_for_the_source_readers():
    source = (
        f"<html><body><article>{POST}</article>"
        f'<section id="comments"><ol class="comment-list">{REPLY * 3}</ol></section>'
        f'<div id="disqus_thread">{REPLY}</div><div class="post-comments">{REPLY}</div></body></html>'
    )
    document = html.document_fromstring(source)
    selectors = remove_comment_sections(document)
    assert selectors == ['[id="comments"]', '[id="disqus_thread"]', '[class="post-comments"]']
    assert "reading room" not in document.text_content()
    assert "opening hours" in document.text_content()
    assert "reading room" not in resiliparse_main_text(source, selectors)


def test_commentary_and_a_comment_count_in_the_post_stay():
    source = (
        f'<html><body><article class="commentary">{POST}<span class="comment-count">3 comments</span></article>'
        "</body></html>"
    )
    document = html.document_fromstring(source)
    assert remove_comment_sections(document) == []
    assert "opening hours" in document.text_content() and "3 comments" in document.text_content()


def test_a_reply_widget_repeated_per_reply_is_named_once():
    replies = f'<div id="comment-container">{REPLY}</div>' * 50
    document = html.document_fromstring(f"<html><body>{POST}{replies}</body></html>")
    assert remove_comment_sections(document) == ['[id="comment-container"]']
    assert "reading room" not in document.text_content()


def test_a_container_named_through_a_character_reference_is_found():
    source = f'<html><body><article>{POST}</article><div id="c&#111;mments">{REPLY}</div></body></html>'
    assert remove_comment_sections(html.document_fromstring(source)) == ['[id="comments"]']


def test_a_container_named_in_capitals_is_found_as_the_chrome_search_finds_it():
    source = f'<html><body>{POST}<div id="COMMENTS">{REPLY}</div><ul class="Comment-List">{REPLY}</ul></body></html>'
    document = html.document_fromstring(source)
    assert remove_comment_sections(document) == ['[id="COMMENTS"]', '[class="Comment-List"]']
    assert "reading room" not in document.text_content()
