"""schema.org data a page embeds: its ld+json objects, however deeply nested or grouped, and the types it declares.

A page's dates, kind, type and authors all read it: its parse reads it once, from the tree as first parsed (before any
element is removed), and hands it to them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import NamedTuple

from lxml import etree, html

# Attribute values alone: libxml2 hands back strings, builds no element for Python.
_ITEMTYPES = etree.XPath("//@itemtype", smart_strings=False)


class StructuredData(NamedTuple):
    """A page's ld+json objects, outer objects first (unreadable scripts skipped), and the schema.org types it declares
    (microdata, then ld+json), lower-cased, once per declaration."""

    objects: tuple[dict, ...]
    types: tuple[str, ...]


def structured_data(document: html.HtmlElement) -> StructuredData:
    """The :class:`StructuredData` of the page ``document`` holds."""
    objects = tuple(_ld_json_objects(document))
    types = [t.rstrip("/").rsplit("/", 1)[-1].lower() for value in _ITEMTYPES(document) for t in value.split()]
    for item in objects:
        declared = item.get("@type")
        for kind in declared if isinstance(declared, list) else [declared]:
            if isinstance(kind, str):
                types.append(kind.rsplit("/", 1)[-1].lower())
    return StructuredData(objects, tuple(types))


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
