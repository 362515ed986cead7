"""ld+json objects of a page."""

from lxml import html

from corpus_pipeline.extract.structured_data import structured_data


def page(*scripts: str) -> html.HtmlElement:
    tags = "".join(f'<script type="application/ld+json">{s}</script>' for s in scripts)
    return html.document_fromstring(f"<html><head>{tags}</head><body><p>text</p></body></html>")


def test_objects_come_in_document_order_outer_first():
    document = page(
        '{"@context": "https://schema.org", "@graph": [{"@type": "WebPage", "author": {"@type": "Person"}}, {"@type": "Article"}]}',
        '[{"@type": "Product"}]',
    )
    assert [o.get("@type") for o in structured_data(document).objects] == [None, "WebPage", "Person", "Article", "Product"]


def test_broken_and_absurdly_deep_json_is_skipped():
    deep = "[" * 200_000 + "]" * 200_000
    document = page("{not json", deep, '{"@type": "Article"}')
    assert [o["@type"] for o in structured_data(document).objects] == ["Article"]


def test_other_scripts_are_ignored():
    document = html.document_fromstring('<html><head><script>var a = {"@type": "Article"};</script></head></html>')
    assert list(structured_data(document).objects) == []
