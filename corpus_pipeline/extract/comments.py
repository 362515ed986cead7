"""Reader comments under a post: not the post's content, unless the page is a discussion thread.

trafilatura leaves comment sections out by itself (``include_comments=False``); the second opinion reads the
page's source and would bring them back, so it is told where they are. They are found the way trafilatura
finds them: by the id or class of their container (``comments``, ``comment-list``, ``disqus_thread``...).
"""

from __future__ import annotations

import re

from lxml import html

from corpus_pipeline.extract.second_opinion import css_attribute_selector

# An id or class starting with "comment" (not "commentary"), a comment widget's own id, or "post-comments".
_COMMENT_ID = re.compile(r"^(?:comment(?!ary)|comol|disqus_thread|dsq-comments)", re.IGNORECASE)
_COMMENT_CLASS = re.compile(r"^comment(?!ary)|(?:article|post)-comments", re.IGNORECASE)
_CONTAINER_TAGS = ("div", "section", "ol", "ul", "details")
# What every container's id or class holds, case aside as in the patterns above: a far cheaper test than they are.
_MAY_NAME_CONTAINER = re.compile("omment|disqus|comol|dsq-", re.IGNORECASE)


def remove_comment_sections(document: html.HtmlElement) -> list[str]:
    """Remove the page's comment containers, in place; returns a CSS selector for each, in document order."""
    selectors: dict[str, None] = {}  # ordered and unique: comment widgets repeat one id per reply
    for node in comment_sections(document):  # outermost only: dropping one leaves the others as they are
        attribute = "id" if _COMMENT_ID.search(node.get("id") or "") else "class"
        selectors[css_attribute_selector(attribute, node.get(attribute))] = None
        node.drop_tree()
    return list(selectors)


def comment_sections(document: html.HtmlElement) -> list[html.HtmlElement]:
    """The page's comment containers, outermost only, in document order (the tree is not changed)."""
    found: list[html.HtmlElement] = []
    for node in document.iter(*_CONTAINER_TAGS):
        id_, class_ = node.get("id"), node.get("class")
        if not ((id_ and _MAY_NAME_CONTAINER.search(id_)) or (class_ and _MAY_NAME_CONTAINER.search(class_))):
            continue  # the cheap test first: most elements name no comment
        if is_comment_section(node) and not any(ancestor in found for ancestor in node.iterancestors()):
            found.append(node)
    return found


def is_comment_section(node: html.HtmlElement) -> bool:
    """Whether ``node`` is a comment container by its own id or class (see ``comment_sections``)."""
    return node.tag in _CONTAINER_TAGS and bool(
        _COMMENT_ID.search(node.get("id") or "") or _COMMENT_CLASS.search(node.get("class") or "")
    )

