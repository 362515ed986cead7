"""Cookie-consent banners and privacy dialogs: page furniture every extractor reads as text.

Consent platforms (OneTrust, Cookiebot, Quantcast, Didomi...) and hand-made cookie bars ship pages of legal prose
(purposes, vendors, "These cookies are necessary...") inside the static HTML. Their containers name themselves
in their id or class, which is steadier evidence than their wording, which varies by language and vendor.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lxml import etree, html

from corpus_pipeline.extract.second_opinion import css_attribute_selector

# A consent platform's own name, or a cookie/consent/GDPR word joined to a banner-like one ("cookie-banner",
# "consent_bar", "cookieprefpopup"), in a lower-cased id or class. "cookie" alone is not enough: a baking site's
# recipe cards say it too.
_CONSENT_NAME = re.compile(
    r"onetrust|cookiebot|didomi|usercentrics|truste-consent|qc-cmp|sp_message|cookieyes|cky-consent|cmplz|"
    r"borlabs|klaro|osano|iubenda|termly|moove_gdpr|gdpr|privacy-cmp|"
    r"(cookie|consent)[-_]?(banner|bar|notice|popup|modal|dialog|message|compliance|pref|policy|law|wall|overlay|"
    r"alert|notification|settings|box|container|wrapper|consent|control|layer)"
)
# Every name above contains one of these words. Plain substring tests are far cheaper than the pattern, and
# most pages contain none of them in any id or class (not "cky" nor "truste": their names say "consent" too).
_HINTS = ("cookie", "consent", "gdpr", "cmp", "onetrust", "didomi", "usercentrics", "sp_message", "borlabs", "klaro",
          "osano", "iubenda", "termly")
_HINT = re.compile("|".join(_HINTS))
# Attribute values, not elements: no Python object per element.
_IDS = etree.XPath("//@id", smart_strings=False)
_CLASSES = etree.XPath("//@class", smart_strings=False)


def remove_consent_banners(document: html.HtmlElement) -> list[str]:
    """Remove cookie-consent containers from a parsed page, in place; returns a CSS selector for each, so that
    extractors reading the page's HTML source can leave the same containers out."""
    doomed: dict[html.HtmlElement, None] = {}  # ordered, with set lookups: a hostile page may name thousands
    for node in _consent_named(document):  # in document order: a container comes before what it holds
        if node.tag not in ("html", "body") and node not in doomed and not any(
            ancestor in doomed for ancestor in node.iterancestors()
        ):
            doomed[node] = None
    selectors = []
    for node in doomed:
        attribute = "id" if node.get("id") else "class"
        selectors.append(css_attribute_selector(attribute, node.get(attribute)))
        node.drop_tree()
    return selectors


def _consent_named(document: html.HtmlElement) -> list[html.HtmlElement]:
    """Elements whose id or class names a consent banner, in document order."""
    values = set(_IDS(document) + _CLASSES(document))  # each once: a page repeats its classes on many elements
    names = ("\n".join(values) + "\n").lower()
    # One search over all the names (a line each) before any element's, the pattern only on the lines holding a hint:
    # a hint alone (a recipe card's "cookie") names no banner.
    if not _has_hint(names) or not any(
        _CONSENT_NAME.search(names, names.rfind("\n", 0, hint.start()) + 1, names.find("\n", hint.end()))
        for hint in _HINT.finditer(names)
    ):
        return []
    named = {value for value in values if _HINT.search(lowered := value.lower()) and _CONSENT_NAME.search(lowered)}
    return [node for node in _elements(document) if node.get("id") in named or node.get("class") in named]


def _elements(document: html.HtmlElement) -> Iterator[html.HtmlElement]:
    """The elements of the whole tree of ``document``, as ``//*`` finds them: a page parsed with a second ``<html>``
    holds it beside the root."""
    root = document.getroottree().getroot()
    for top in [*reversed(list(root.itersiblings(preceding=True))), root, *root.itersiblings()]:
        yield from top.iter(etree.Element)


def _has_hint(text: str) -> bool:
    return any(hint in text for hint in _HINTS)
