"""Cookie-consent banners and privacy dialogs: page furniture every extractor reads as text.

Consent platforms (OneTrust, Cookiebot, Quantcast, Didomi...) and hand-made cookie bars ship pages of legal prose
(purposes, vendors, "These cookies are necessary...") inside the static HTML. Their containers name themselves
in their id or class, which is steadier evidence than their wording, which varies by language and vendor.
"""

from __future__ import annotations

import re

from lxml import etree, html

# A consent platform's own name, or a cookie/consent/GDPR word joined to a banner-like one ("cookie-banner",
# "consent_bar", "cookiePrefPopup"). "cookie" alone is not enough: a baking site's recipe cards say it too.
_CONSENT_NAME = re.compile(
    r"onetrust|cookiebot|didomi|usercentrics|truste-consent|qc-cmp|sp_message|cookieyes|cky-consent|cmplz|"
    r"borlabs|klaro|osano|iubenda|termly|moove_gdpr|gdpr|privacy-cmp|"
    r"(cookie|consent)[-_]?(banner|bar|notice|popup|modal|dialog|message|compliance|pref|policy|law|wall|overlay|"
    r"alert|notification|settings|box|container|wrapper|consent|control|layer)",
    re.IGNORECASE,
)


def remove_consent_banners(document: html.HtmlElement) -> list[str]:
    """Remove cookie-consent containers from a parsed page, in place.

    Returns a CSS selector for each container removed, so that extractors reading the page's HTML source
    can leave the same containers out.
    """
    doomed = []
    walker = etree.iterwalk(document, events=("start",))
    for _, node in walker:
        if isinstance(node.tag, str) and node.tag not in ("html", "body") and _names_consent(node):
            doomed.append(node)
            walker.skip_subtree()  # whatever it holds goes with it
    selectors = []
    for node in doomed:
        attribute = "id" if node.get("id") else "class"
        selectors.append(f'[{attribute}="{_css_string(node.get(attribute))}"]')
        node.drop_tree()
    return selectors


def _css_string(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")


def _names_consent(node: html.HtmlElement) -> bool:
    return bool(_CONSENT_NAME.search(f"{node.get('id', '')} {node.get('class', '')}"))
