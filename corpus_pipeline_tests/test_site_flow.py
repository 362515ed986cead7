"""The flow the parsed_pages, canonical_url_groups and corpus assets run, on the core functions alone.

Survey the website (template per language, sitemap listing, inbound links), parse every page with the
model, add the survey's facts to each record, group by canonical URL, deduplicate.
"""

from __future__ import annotations

import gzip
from datetime import datetime, timezone
from pathlib import Path

import polars as pl
import pytest

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.urls import canonical_url
from corpus_pipeline.dedup.corpus import deduplicate
from corpus_pipeline.dedup.groups import build_canonical_url_groups
from corpus_pipeline.dedup.settings import DEFAULT_URLS_TO_IGNORE
from corpus_pipeline.demo.site import BASE_URL_PLACEHOLDER, build_demo_site
from corpus_pipeline.extract.page import HtmlPage, parse_html_pages
from corpus_pipeline.extract.site_survey import survey_site

BASE = "http://127.0.0.1:8765"
NOW = datetime(2026, 11, 24, tzinfo=timezone.utc)


def served(path: Path) -> bytes:
    """A file of the demo site as its server sends it (absolute URLs filled in, gzip sitemaps read)."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.replace(BASE_URL_PLACEHOLDER.encode(), BASE.encode())


def page_url(root: Path, path: Path) -> str:
    """Where the demo server serves a file: folders' index.html at the folder's URL."""
    return f"{BASE}/{path.relative_to(root).as_posix()}".removesuffix("index.html")


@pytest.fixture(scope="module")
def demo_flow(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo") / "site"
    facts = build_demo_site(root)
    website = parse_registry({"websites": [{"name": "demo", "url": f"{BASE}/", "langs": ["fr"]}]}).websites[0]
    pages = sorted(
        (HtmlPage(page_url(root, path), served(path), "text/html", NOW, hreflang="fr" if "/fr/" in path.as_posix() else None)
         for path in root.rglob("*.html")),
        key=lambda page: page.url,
    )
    sitemaps = [served(path) for path in root.glob("sitemap*")]

    # What the assets run, in this order.
    survey = survey_site(((page.url, page.hreflang, page.body) for page in pages), sitemaps, workers=2)
    records = [record | survey.facts_for(record["url"]) for record in parse_html_pages(pages, website, survey.boilerplate, workers=2)]
    parsed = pl.DataFrame(records, schema=pl.from_arrow(RECORD_SCHEMA.empty_table()).schema)
    groups, _ = build_canonical_url_groups(parsed.lazy(), urls_to_ignore=DEFAULT_URLS_TO_IGNORE)
    corpus, _ = deduplicate(groups, workers=1)
    return facts, parsed, corpus


def url(path: str) -> str:
    return canonical_url(BASE + path)


def test_the_originals_win_over_the_reprint_and_the_draft(demo_flow):
    facts, parsed, corpus = demo_flow
    kept = set(corpus["canonical_url"])
    absorbed = {entry["url"]: entry["reason"] for entries in corpus["absorbed"].to_list() for entry in entries or []}
    for (original, copy), reason in ((facts.exact_duplicate, "same_content"), (facts.near_duplicate, "near_duplicate")):
        assert url(original) in kept and url(copy) not in kept, (original, copy)
        assert absorbed[url(copy)] == reason
    facts_of = {row["url"]: row for row in parsed.select("url", "in_sitemap", "inlinks").iter_rows(named=True)}
    # Both copies are in the demo's sitemap: what decides is that the site's pages link to the originals only.
    for original, copy in (facts.exact_duplicate, facts.near_duplicate):
        assert facts_of[BASE + original]["in_sitemap"] and facts_of[BASE + copy]["in_sitemap"]
        assert facts_of[BASE + original]["inlinks"] > 0 == facts_of[BASE + copy]["inlinks"]


def test_no_record_is_dated_by_the_site_tagline(demo_flow):
    _, _, corpus = demo_flow
    dated = corpus.filter(pl.col("published").is_not_null())
    assert dated.height >= 4
    assert dated.filter(pl.col("published").dt.year() != 2026).height == 0


def test_the_template_goes_and_every_page_keeps_its_own_text(demo_flow):
    _, parsed, corpus = demo_flow
    for content in corpus["content"]:
        for template in ("Quay Street", "Subscribe", "since 2019"):
            assert template not in content
    # Pages listed only in the template's sidebar or the sitemap are still whole: each post keeps its last paragraph.
    posts = parsed.filter(pl.col("url").str.contains("/blog/post-"))
    assert posts.height >= 8 and posts.filter(pl.col("content").str.len_chars() < 300).height == 0
