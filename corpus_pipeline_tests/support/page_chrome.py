"""A copy of a page without its chrome: the reference that the chrome taken out in place (``chrome_detached``) and
the date searches on it are checked against."""

from copy import deepcopy

from lxml import html

from corpus_pipeline.extract.page_chrome import _page_chrome


def without_page_chrome(document: html.HtmlElement) -> html.HtmlElement:
    """A copy of ``document`` without the website's header, footer, navigation, sidebars and comment sections, each
    dropped as ``drop_tree`` drops it (``document`` is left as it was)."""
    copy = deepcopy(document)
    for node in _page_chrome(copy):
        node.drop_tree()
    return copy
