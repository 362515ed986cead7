"""schema.org data a page embeds as ld+json: every object, however deeply nested or grouped."""

from __future__ import annotations

import json
from collections.abc import Iterator

from lxml import html


def ld_json_objects(document: html.HtmlElement) -> Iterator[dict]:
    """Each JSON object of the page's ld+json scripts, outer objects first; unreadable scripts are skipped."""
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
