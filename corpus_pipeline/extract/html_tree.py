"""Parsing HTML into lxml.html trees whose elements lxml creates without calling back into Python."""

from __future__ import annotations

from lxml import etree, html

# lxml.html's own parser picks each element's class in a Python method, called every time Python touches an element
# it has not yet wrapped (thousands a page); the same classes, picked by lxml's C lookups: the form elements' by name.
_FORM_CLASSES = {
    "form": html.FormElement,
    "input": html.InputElement,
    "label": html.LabelElement,
    "select": html.SelectElement,
    "textarea": html.TextareaElement,
}


def parse_html(source: str | bytes) -> html.HtmlElement:
    """The document tree of an HTML page, parsed by a recovering parser (comments dropped, ``huge_tree`` off) giving
    the classes of ``lxml.html``."""
    parser = html.HTMLParser(recover=True, huge_tree=False, remove_comments=True)
    by_tag = etree.ElementNamespaceClassLookup(
        etree.ElementDefaultClassLookup(
            element=html.HtmlElement,
            comment=html.HtmlComment,
            pi=html.HtmlProcessingInstruction,
            entity=html.HtmlEntity,
        )
    )
    by_tag.get_namespace(None).update(_FORM_CLASSES)
    parser.set_element_class_lookup(by_tag)
    return html.document_fromstring(source, parser=parser)



def text_content(node: etree._Element) -> str:
    """``node.text_content()``: its text and its descendants', serialized by lxml rather than read by an XPath
    evaluation (a third of the time)."""
    return etree.tostring(node, method="text", encoding=str, with_tail=False)
