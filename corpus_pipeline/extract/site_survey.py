"""One pass over a website's pages, before extraction: its template and how its pages point at each other.

Each page is parsed once, on worker processes, for both the boilerplate model (per language) and the link graph; the
results are then added to every record.
"""

from __future__ import annotations

import dataclasses
import json
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from lxml import etree

from corpus_pipeline.extract.boilerplate import (
    BoilerplateLearner,
    BoilerplateModel,
    page_signatures,
    parse_page,
    template_language,
)
from corpus_pipeline.extract.content_container import ContainerVote, page_container, website_containers
from corpus_pipeline.extract.decode import decode_html
from corpus_pipeline.extract.page_kind import LISTING, declared_kind
from corpus_pipeline.extract.pool import map_in_windows
from corpus_pipeline.extract.site_links import SitemapListing, page_key, page_links, sitemap_listing

# A page as the survey reads it: where it was found, what the crawl knows of its language, its body.
Page = tuple[str, str | None, bytes]


@dataclass(frozen=True)
class SiteSurvey:
    """What the whole website says about each page: its template, its sitemap listing, its inbound links."""

    boilerplate: BoilerplateModel = field(default_factory=BoilerplateModel)
    listed: SitemapListing = field(default_factory=SitemapListing)
    inlinks: Mapping[str, int] = field(default_factory=dict)

    def facts_for(self, url: str, key_of: Callable[[str], str | None] = page_key) -> dict[str, bool | int]:
        """The record columns ``in_sitemap`` and ``inlinks`` of the document at ``url`` (fragment ignored);
        ``key_of`` is :func:`page_key` or a cache of it."""
        key = key_of(url)
        return {"in_sitemap": key in self.listed, "inlinks": self.inlinks.get(key, 0) if key else 0}


@dataclass(frozen=True)
class PageFacts:
    """What the survey reads on one page (kept between nights by extract/reuse.py for pages that did not change)."""

    language: str
    signatures: frozenset[int]
    links: frozenset[str]
    container: ContainerVote | None = None
    # A page its CMS declares a listing shows other pages' texts: it teaches the template learner nothing.
    teaches: bool = True


def survey_site(
    pages: Iterable[Any], sitemaps: Iterable[tuple[str, bytes]] = (), workers: int = 2,
    container_sample_every: int = 1,
    map_facts: Callable[[Callable[[Page], PageFacts], Iterable[Any], int], Iterable[PageFacts]] = map_in_windows,
    listed: SitemapListing | None = None,
) -> SiteSurvey:
    """Survey a website from its HTML pages, ``(url, lang_hint, body)`` in URL order (``url`` where the page was found,
    ``lang_hint`` raw_pages ``hreflang`` or None), and its sitemaps (``(address, body)`` each), streaming: memory
    holds one window of pages. One page in ``container_sample_every`` (chosen by URL: the same pages each night) votes
    for the element that holds the website's documents. ``map_facts`` reads each page's :class:`PageFacts` in order,
    with ``map_in_windows``'s signature; ``listed`` is the sitemaps' listing, when already read."""
    listing = listed if listed is not None else sitemap_listing(sitemaps)
    read = partial(_page_facts, sample_every=container_sample_every)
    return survey_of_facts(map_facts(read, pages, workers), listing)


def survey_of_facts(facts: Iterable[PageFacts], listed: SitemapListing) -> SiteSurvey:
    """The survey of a website whose pages' facts are ``facts`` (in the pages' order: the template learner compares
    neighbours) and whose sitemaps list ``listed``."""
    learner, inlinks, votes = BoilerplateLearner(), Counter[str](), []
    for page in facts:
        if page.teaches:
            learner.add(page.language, page.signatures)
        inlinks.update(page.links)  # a page's links are distinct: each linking page counts once
        votes.append(page.container)
    model = dataclasses.replace(learner.model(), containers=website_containers(votes))
    return SiteSurvey(model, listed, dict(inlinks))


def listing_json(listed: SitemapListing) -> str:
    """The sitemaps' listing as JSON, kept for a night whose sitemaps are the same (extract/reuse.py)."""
    lastmods = {key: moment.isoformat() for key, moment in listed.lastmods.items()}
    return json.dumps({"keys": sorted(listed.keys), "lastmods": lastmods})


def listing_of_json(text: str) -> SitemapListing:
    """The listing :func:`listing_json` wrote, equal to it field for field."""
    data = json.loads(text)
    lastmods = {key: datetime.fromisoformat(moment) for key, moment in data["lastmods"].items()}
    return SitemapListing(frozenset(data["keys"]), lastmods)


def _page_facts(page: Page, sample_every: int = 1) -> PageFacts:
    url, lang_hint, body = page
    votes = sample_every > 0 and zlib.crc32(url.encode()) % sample_every == 0
    text = decode_html(body) if body and votes else None
    document = parse_page(text if text is not None else body) if body else None
    if document is None:
        return PageFacts(template_language(None, url, lang_hint), frozenset(), frozenset())
    language, signatures = template_language(document, url, lang_hint), page_signatures(document)
    container = page_container(document, text) if text is not None else None
    return PageFacts(language, signatures, page_links(document, url), container, not _declared_listing(document))


def _declared_listing(document: etree._Element) -> bool:
    """Whether the page's body classes declare it a listing (WordPress's ``archive``, ``blog``, ``paged``...), which
    must not teach the template learner: neighbouring archives share the posts both show, and a post shown on two
    such pairs would be taken for template and stripped from its own page."""
    body = next(document.iter("body"), None)
    classes = (body.get("class") or "").lower().split() if body is not None else []
    return declared_kind([f"body:{name}" for name in classes]) == LISTING
