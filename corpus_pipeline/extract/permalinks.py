"""In-page link devices: a heading's permalink ("¶", "#", an icon), a footnote's way back ("↩"), a menu toggle."""

from __future__ import annotations

import re

from lxml import etree, html

_WORD = re.compile(r"\w")
_INTO_THE_PAGE = etree.XPath('//a[starts-with(@href, "#")]')


def remove_permalinks(document: html.HtmlElement) -> None:
    """Remove, in place, the links into the page (``href="#..."``) that hold no word: ``¶`` (Sphinx, MkDocs), ``#``
    (PyData), an icon font's glyph (Read the Docs), nothing (Docusaurus), a footnote's ``↩``. Every reader would keep
    one as a character glued to the text before it ("Installation¶"). A space takes the place of a link that held
    any character, so that it never joins the words on either side ("see→next" reads "see next")."""
    for link in _INTO_THE_PAGE(document):
        text = link.text_content()
        if _WORD.search(text) is None:
            if text:
                link.tail = " " + (link.tail or "")
            link.drop_tree()
