"""HTML trees parsed with the C class lookups: the same elements, classes and text as lxml.html's own parser."""

from copy import deepcopy

from lxml import etree, html

from corpus_pipeline.extract.html_tree import parse_html

PAGE = """<!DOCTYPE html><html lang="de"><head><title>Kontakt</title></head><body>
<!-- a comment --><h1>Schreiben Sie uns</h1>
<FORM action="/send"><LABEL for="m">Mail</LABEL><INPUT id="m" name="mail" value="a@b.c">
<select name="topic"><option selected>Frage</option></select><textarea name="text">Hallo</textarea></FORM>
<p>Antwort in <b>zwei</b> Tagen &amp; mehr.<?php echo 1 ?></p></body></html>"""


def lxml_html_tree(source: str) -> html.HtmlElement:
    return html.document_fromstring(source, parser=html.HTMLParser(recover=True, huge_tree=False, remove_comments=True))


def test_elements_have_the_classes_and_text_of_lxml_html():
    ours, theirs = parse_html(PAGE), lxml_html_tree(PAGE)
    assert [(type(node), node.tag) for node in ours.iter()] == [(type(node), node.tag) for node in theirs.iter()]
    assert etree.tostring(ours) == etree.tostring(theirs)
    assert ours.text_content() == theirs.text_content()
    assert isinstance(ours.find(".//form"), html.FormElement)
    assert ours.find(".//input").value == "a@b.c"
    assert ours.find(".//textarea").value == "Hallo"
    assert ours.find(".//select").value == "Frage"
    assert ours.find(".//label").for_element is ours.find(".//input")


def test_a_copy_keeps_the_classes():
    copy = deepcopy(parse_html(PAGE))
    assert isinstance(copy.find(".//form"), html.FormElement)
    assert {type(node) for node in copy.iter("p", "h1", "b")} == {html.HtmlElement}


def test_bytes_are_read_with_their_declared_encoding():
    page = '<html><head><meta charset="iso-8859-1"></head><body><p>Grüße</p></body></html>'.encode("iso-8859-1")
    assert parse_html(page).findtext(".//p") == lxml_html_tree(page).findtext(".//p") == "Grüße"
