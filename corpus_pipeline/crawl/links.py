"""Links of an HTML page, as the crawler needs them: hrefs and hreflang alternates."""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree, html

from corpus_pipeline.core.urls import absolutize


@dataclass(frozen=True)
class PageLinks:
    """Absolute links of a page in document order (each once), and its translations by language."""

    links: tuple[str, ...] = ()
    alternates: dict[str, str] = field(default_factory=dict)


def extract_links(body: bytes, page_url: str) -> PageLinks:
    """All ``<a href>`` targets and ``<link rel=alternate hreflang>`` of a page; broken HTML gives what can be read."""
    if not body or not body.strip():
        return PageLinks()
    try:
        parser = html.HTMLParser(recover=True, huge_tree=False, remove_comments=True)
        document = html.document_fromstring(body, parser=parser)
    except (etree.ParserError, ValueError):
        return PageLinks()
    base = page_url
    for node in document.iter("base"):
        if node.get("href"):
            base = absolutize(node.get("href"), page_url) or page_url
            break
    links: dict[str, None] = {}
    hrefs_seen: set[str] = set()
    alternates: dict[str, str] = {}
    for node in document.iter("a", "area", "link"):
        href = node.get("href")
        if not href:
            continue
        if node.tag == "link":
            rel = (node.get("rel") or "").lower().split()
            lang = (node.get("hreflang") or "").strip().lower()
            target = absolutize(href, base)
            if "alternate" in rel and lang and target and lang not in alternates:
                alternates[lang] = target
            continue
        if (node.get("rel") or "").lower() == "nofollow":
            continue
        # Fragments never name another document: drop them before the (costly) join, and join each
        # spelling once per page (an index page links to the same page under hundreds of anchors).
        href = href.split("#", 1)[0].strip()
        if not href or href in hrefs_seen:
            continue
        hrefs_seen.add(href)
        target = absolutize(href, base)
        if target:
            links.setdefault(target)
    return PageLinks(tuple(links), alternates)
