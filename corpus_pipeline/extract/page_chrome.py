"""The website's chrome around a page: header, footer, navigation, sidebars.

What the website wraps around every page speaks for the website ("since 2019",
"© 2024"), not for the page: page dates are never read there.
"""

from __future__ import annotations

import re
from copy import deepcopy

from lxml import etree, html

# Elements that say they are chrome, by tag, ARIA role or class/id; never inside the page's article or main.
CHROME_TAGS = ("header", "footer", "nav", "aside")
CONTENT_TAGS = ("article", "main")
CHROME_ROLES = frozenset({"banner", "contentinfo", "navigation", "complementary"})
CHROME_NAMES = frozenset({
    "header", "footer", "site-header", "site-footer", "masthead", "tagline", "site-tagline", "site-description",
    "copyright", "sidebar", "navbar", "breadcrumb", "breadcrumbs",
})
# An element that says it is chrome has a tag of CHROME_TAGS or one of these names in its lower-cased class, id or
# role: a prefilter built from the same sets, so that a name added to them is found too.
_CHROME_WORD = re.compile("|".join(sorted(map(re.escape, CHROME_NAMES | CHROME_ROLES), key=len, reverse=True)))
_CHROME_TAGGED = etree.XPath(" | ".join(f".//{tag}" for tag in CHROME_TAGS))
_NAMES_AND_ROLES = etree.XPath(".//@class | .//@id | .//@role")


def without_page_chrome(document: html.HtmlElement) -> html.HtmlElement:
    """A copy of ``document`` without the website's header, footer, navigation and sidebars.

    Chrome is an element that says so by its tag (``header``, ``footer``, ``nav``, ``aside``), ARIA role or
    class/id (``site-header``, ``tagline``...), unless it sits in the page's ``<article>`` or ``<main>``, where a
    header or footer holds the article's own byline and date, or holds the page's ``<h1>``.
    """
    copy = deepcopy(document)
    for node in _page_chrome(copy):
        node.drop_tree()
    return copy


def _page_chrome(document: html.HtmlElement) -> list[html.HtmlElement]:
    """The outermost chrome elements of a page: those that say so (:func:`_says_chrome`) with no ancestor that is
    the page's content (``article``, ``main``) or says so itself.

    Only the few elements that may say so are tested (a chrome tag, or a chrome word anywhere in a class, id or
    role): a walk testing every element was 0.7 ms of a Debian handbook page, ~2.5 % of its parse.
    """
    candidates = dict.fromkeys(_CHROME_TAGGED(document))
    for value in _NAMES_AND_ROLES(document):
        if _CHROME_WORD.search(value.lower()):
            candidates[value.getparent()] = None
    found = []
    for node in candidates:
        if not _says_chrome(node):
            continue
        for ancestor in node.iterancestors():
            if ancestor is document:
                found.append(node)
                break
            if ancestor.tag in CONTENT_TAGS or _says_chrome(ancestor):
                break
    return found


def in_page_chrome(node: html.HtmlElement) -> bool:
    """Whether ``node`` is, or is inside, the website's chrome."""
    in_content = False
    for element in [*reversed(list(node.iterancestors())), node]:
        if not in_content and _says_chrome(element):
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
