"""schema.org data a page embeds: its ld+json objects, however deeply nested or grouped, and the types it declares.

A page's dates, kind, type and authors all read it: it is read once per parsed tree, as the tree first is (before its
parse removes any element), and kept while the tree lives.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from weakref import WeakKeyDictionary

from lxml import etree, html

# Attribute values alone: libxml2 hands back strings, builds no element for Python.
_ITEMTYPES = etree.XPath("//@itemtype", smart_strings=False)
_READ: WeakKeyDictionary[html.HtmlElement, tuple[tuple[dict, ...], tuple[str, ...]]] = WeakKeyDictionary()


def ld_json_objects(document: html.HtmlElement) -> tuple[dict, ...]:
    """Each JSON object of the page's ld+json scripts, outer objects first; unreadable scripts are skipped."""
    return _structured_data(document)[0]


def schema_types(document: html.HtmlElement) -> tuple[str, ...]:
    """The schema.org types the page declares (microdata, then ld+json), lower-cased, once per declaration."""
    return _structured_data(document)[1]


def _structured_data(document: html.HtmlElement) -> tuple[tuple[dict, ...], tuple[str, ...]]:
    if (read := _READ.get(document)) is None:
        objects = tuple(_ld_json_objects(document))
        types = [t.rstrip("/").rsplit("/", 1)[-1].lower() for value in _ITEMTYPES(document) for t in value.split()]
        for item in objects:
            declared = item.get("@type")
            for kind in declared if isinstance(declared, list) else [declared]:
                if isinstance(kind, str):
                    types.append(kind.rsplit("/", 1)[-1].lower())
        read = _READ[document] = (objects, tuple(types))
    return read


def _ld_json_objects(document: html.HtmlElement) -> Iterator[dict]:
    for script in document.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json" or not script.text:
            continue
        try:
            data = json.loads(script.text)
        except (ValueError, RecursionError):  # broken or hostile (absurdly deep) JSON says nothing
            continue
        stack = [data]
        while stack:  # iterative: nesting depth never reaches Python's recursion limit
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(reversed(item))
            elif isinstance(item, dict):
                yield item
                stack.extend(reversed([v for v in item.values() if isinstance(v, (dict, list))]))
