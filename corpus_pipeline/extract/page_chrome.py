"""The website's chrome around a page: header, footer, navigation, sidebars; and its readers' comments.

What the website wraps around every page speaks for the website ("since 2019", "© 2024"), not for the page, and a
comment's date is the comment's: page dates are never read there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager

from lxml import etree, html

from corpus_pipeline.extract.comments import comment_sections, is_comment_section

# Elements that say they are chrome, by tag, ARIA role or class/id; never inside the page's article or main.
CHROME_TAGS = ("header", "footer", "nav", "aside")
CONTENT_TAGS = ("article", "main")
CHROME_ROLES = frozenset({"banner", "contentinfo", "navigation", "complementary"})
CHROME_NAMES = frozenset({
    "header", "footer", "site-header", "site-footer", "masthead", "tagline", "site-tagline", "site-description",
    "copyright", "sidebar", "navbar", "breadcrumb", "breadcrumbs",
})
# A prefilter for the elements that may say they are chrome by name, built from the same sets.
_CHROME_WORD = re.compile("|".join(sorted(map(re.escape, CHROME_NAMES | CHROME_ROLES), key=len, reverse=True)))


# A chrome element taken out of its page: the element (its tail still on it), its parent, its index there, the
# sibling before it (None: the parent's text) and that sibling's tail, or that text, before the element's tail joined.
_Dropped = tuple[html.HtmlElement, html.HtmlElement, int, "etree._Element | None", "str | None"]


def chrome_detached(document: html.HtmlElement) -> AbstractContextManager[html.HtmlElement]:
    """``document`` itself, not a copy, without the website's chrome and comment sections while the context lasts
    (:func:`detached`). Chrome is an element that says so by its tag (``header``, ``footer``, ``nav``, ``aside``),
    ARIA role or class/id (``site-header``, ``tagline``...), unless it sits in the page's ``<article>`` or ``<main>``
    (the article's own byline and date) or holds the page's ``<h1>``."""
    return detached(document, _page_chrome(document))


@contextmanager
def detached(document: html.HtmlElement, nodes: Iterable[html.HtmlElement]) -> Iterator[html.HtmlElement]:
    """``document`` itself, not a copy, without ``nodes`` (none inside another) while the context lasts: each is
    taken out as ``drop_tree`` takes it and put back as it was on exit, also when the reading fails; nothing may
    change the document meanwhile."""
    dropped: list[_Dropped] = []
    try:
        for node in nodes:
            dropped.append(_drop(node))
        yield document
    finally:
        # In reverse order, so that each element finds its siblings and texts as they were when it left.
        for node, parent, index, previous, text_before in reversed(dropped):
            if previous is not None:
                previous.tail = text_before
            else:
                parent.text = text_before
            parent.insert(index, node)


def _drop(node: html.HtmlElement) -> _Dropped:
    """Take ``node`` out of its page as ``drop_tree`` does, and say how to put it back."""
    parent = node.getparent()
    index = parent.index(node)
    previous = node.getprevious()
    text_before = previous.tail if previous is not None else parent.text
    if node.tail:
        joined = (text_before or "") + node.tail
        if previous is not None:
            previous.tail = joined
        else:
            parent.text = joined
    parent.remove(node)
    return node, parent, index, previous, text_before


def _page_chrome(document: html.HtmlElement) -> list[html.HtmlElement]:
    """The outermost chrome elements of a page (:func:`_says_chrome`) in document order, in one walk that enters
    neither the page's content (``article``, ``main``) nor the chrome it finds; then the comment sections outside."""
    found: list[html.HtmlElement] = []
    walk = etree.iterwalk(document, events=("start",))
    next(walk)  # the document itself
    for _, node in walk:
        tag = node.tag
        if tag in CONTENT_TAGS:
            walk.skip_subtree()  # nothing inside the page's content is chrome
        elif (tag in CHROME_TAGS or _names_chrome(node)) and _says_chrome(node):
            found.append(node)
            walk.skip_subtree()
    # Comments are no page's chrome, but their dates are theirs, wherever they sit (in the article too).
    chrome = set(found)
    found += [node for node in comment_sections(document) if not any(a in chrome for a in node.iterancestors())]
    return found


def _names_chrome(node: html.HtmlElement) -> bool:
    """Whether a chrome word stands anywhere in the element's lower-cased class, id or role (one search over the
    three joined by spaces, which no chrome word holds; an XPath selecting them costs more)."""
    get = node.get
    return _CHROME_WORD.search(f"{get('class') or ''} {get('id') or ''} {get('role') or ''}".lower()) is not None


def in_page_chrome(node: html.HtmlElement) -> bool:
    """Whether ``node`` is, or is inside, the website's chrome."""
    in_content = False
    for element in [*reversed(list(node.iterancestors())), node]:
        if is_comment_section(element) or (not in_content and _says_chrome(element)):
            return True
        in_content = in_content or element.tag in CONTENT_TAGS
    return False


def _says_chrome(node: html.HtmlElement) -> bool:
    names = f"{node.get('class') or ''} {node.get('id') or ''}".lower().split()
    says = node.tag in CHROME_TAGS or (node.get("role") or "").strip().lower() in CHROME_ROLES
    if not (says or any(name in CHROME_NAMES for name in names)):
        return False
    # A header holding the page's h1 is the page's own title block (with its byline), or a header whose unclosed
    # tags swallowed the page: wcxb-dev has both.
    return node.find(".//h1") is None
