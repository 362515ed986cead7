from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from lxml import etree, html

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.decode import decode_html
from corpus_pipeline.extract.page import HtmlPage, parse_html_pages

XHTML = (
    '<?xml version="1.0" encoding="ISO-8859-1" standalone="no"?>\n'
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
    '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Paquets</title></head>'
    "<body><div class='chapter'><h1>Gestion des paquets</h1><p>{}</p></div></body></html>"
)
PROSE = "Le système de paquets garde une trace de chaque fichier installé, et dpkg sait lequel appartient à quoi. " * 3


def test_an_xhtml_page_is_decoded_by_its_xml_declaration_and_parses():
    text = decode_html(XHTML.format(PROSE).encode("iso-8859-1"))
    assert not text.lstrip().startswith("<?xml")
    assert "système" in text
    assert html.fromstring(text).findtext(".//h1") == "Gestion des paquets"


def test_an_xhtml_page_goes_through_extraction_with_its_text():
    website = parse_registry({"websites": [{"name": "site", "url": "http://127.0.0.1:8000/", "default_lang": "fr"}]})
    page = HtmlPage(
        url="http://127.0.0.1:8000/ch02.fr.html",
        body=XHTML.format(PROSE).encode("iso-8859-1"),
        content_type="text/html",
        fetched_at=datetime(2026, 11, 24, tzinfo=UTC),
    )
    (record,) = parse_html_pages([page], website.websites[0], None, workers=1)
    assert record["error"] is None
    assert "dpkg sait lequel appartient" in record["content"]


@given(st.binary(max_size=300))
def test_no_decoded_page_is_refused_by_lxml_for_its_encoding_declaration(body):
    text = decode_html(b'<?xml version="1.0" encoding="utf-8"?>' + body)
    try:
        html.document_fromstring(text)
    except etree.ParserError:
        pass  # nothing left to parse ("Document is empty"): not the refusal this test is about
    except ValueError as error:
        raise AssertionError(f"lxml refused the decoded text: {error}") from error
