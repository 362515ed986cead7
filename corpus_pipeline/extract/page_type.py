"""What a page says it is (article, product, forum thread), from its structured data."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from lxml import html

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings

# schema.org types, most telling first: a forum thread in an article template is a thread. Not "Comment": WordPress
# marks blog comments with it (article benchmark: three such posts lost 0.02 to 0.10 F1 each read as threads).
_FORUM_TYPES = {"discussionforumposting", "qapage", "question", "answer"}
# Question and Answer inside an FAQPage are a shop's or a service's FAQ section, not a thread.
_THREAD_TYPES = {"discussionforumposting", "qapage"}
_PRODUCT_TYPES = {"product", "productgroup", "offer", "individualproduct"}
_ARTICLE_TYPES = {
    "article", "newsarticle", "blogposting", "techarticle", "scholarlyarticle", "reportagenewsarticle",
    "analysisnewsarticle", "opinionnewsarticle", "socialmediaposting", "liveblogposting",
}
# What a list page (a blog's index, a topic page) declares. og:type is weak evidence: SEO plugins set "article"
# on every page of a site, so the page's own schema.org data saying it is a list outranks it.
_LIST_TYPES = {"collectionpage", "itemlist", "searchresultspage"}


def declared_page_type(
    document: html.HtmlElement, schema_types: tuple[str, ...], settings: ExtractionSettings = DEFAULT_SETTINGS
) -> str | None:
    """``forum``, ``product`` or ``article`` when the page's ``schema_types`` or og:type say so; else None, as for a
    page listing articles (``settings.min_listed_articles``, or a CollectionPage or ItemList only og:type calls one)."""
    types = Counter(schema_types)
    declared = set(types) | {t.lower() for t in _og_types(document)}
    if declared & (_THREAD_TYPES if "faqpage" in declared else _FORUM_TYPES):
        return "forum"
    if declared & _PRODUCT_TYPES:
        return "product"
    if declared & _ARTICLE_TYPES:
        articles = sum(types[t] for t in _ARTICLE_TYPES)
        if articles >= settings.min_listed_articles or (not articles and declared & _LIST_TYPES):
            return None
        return "article"
    return None


def _og_types(document: html.HtmlElement) -> Iterator[str]:
    for meta in document.iter("meta"):
        if (meta.get("property") or meta.get("name") or "").strip().lower() == "og:type":
            yield (meta.get("content") or "").strip().split(".")[0]  # og:type "article", "product.item"

