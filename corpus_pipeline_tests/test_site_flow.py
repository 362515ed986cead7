"""The flow the parsed_pages, canonical_url_groups and corpus assets run, on the core functions alone.

Survey the website (template per language, sitemap listing, inbound links), parse every page with the
model, add the survey's facts to each record, group by canonical URL, deduplicate.
"""

from __future__ import annotations

import gzip
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from corpus_pipeline.core.raw_pages import iter_documents, iter_sitemaps
from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.core.schema import RAW_PAGES_SCHEMA, RECORD_SCHEMA
from corpus_pipeline.core.urls import canonical_url
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.dedup.corpus import deduplicate
from corpus_pipeline.dedup.groups import build_canonical_url_groups
from corpus_pipeline.dedup.settings import DEFAULT_URLS_TO_IGNORE
from corpus_pipeline.extract.page import HtmlPage, parse_html_pages
from corpus_pipeline.extract.site_survey import survey_site
from corpus_pipeline_demo.content import POSTS
from corpus_pipeline_demo.site import BASE_URL_PLACEHOLDER, build_demo_site

BASE = "http://127.0.0.1:8765"
NOW = datetime(2026, 11, 24, tzinfo=UTC)


def served(path: Path) -> bytes:
    """A file of the demo site as its server sends it: absolute URLs filled in (gzip sitemaps stay gzip)."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        return gzip.compress(gzip.decompress(data).replace(BASE_URL_PLACEHOLDER.encode(), BASE.encode()), mtime=0)
    return data.replace(BASE_URL_PLACEHOLDER.encode(), BASE.encode())


def page_url(root: Path, path: Path) -> str:
    """Where the demo server serves a file: folders' index.html at the folder's URL."""
    return f"{BASE}/{path.relative_to(root).as_posix()}".removesuffix("index.html")


def raw_pages(root: Path, warehouse: Warehouse) -> Path:
    """A raw_pages partition holding the demo site's pages and sitemaps, as a crawl records them."""
    with warehouse.writer("raw_pages", "demo", RAW_PAGES_SCHEMA) as out:
        for path in sorted(root.rglob("*")):
            kind = "html" if path.suffix == ".html" else "sitemap" if path.name.startswith("sitemap") else None
            if kind:
                url = page_url(root, path)
                out.write({
                    "website": "demo", "url": url, "final_url": url, "outcome": "fetched", "kind": kind,
                    "content_type": "text/html" if kind == "html" else "application/xml", "indexable": kind == "html",
                    "hreflang": "fr" if "/fr/" in url else None, "fetched_at": NOW, "body": served(path),
                })
    return warehouse.path("raw_pages", "demo")


def html_pages(raw_path: Path) -> Iterator[HtmlPage]:
    """What the parsed_pages asset reads of raw_pages."""
    for row in iter_documents(raw_path, kind="html"):
        yield HtmlPage(row["final_url"] or row["url"], row["body"], row["content_type"], row["fetched_at"],
                       hreflang=row["hreflang"])


@pytest.fixture(scope="module")
def demo_flow(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo") / "site"
    facts = build_demo_site(root)
    website = parse_registry({"websites": [{"name": "demo", "url": f"{BASE}/", "langs": ["fr"]}]}).websites[0]
    raw_path = raw_pages(root, Warehouse(tmp_path_factory.mktemp("warehouse")))

    # What the assets run, in this order.
    survey = survey_site(
        ((page.url, page.hreflang, page.body) for page in html_pages(raw_path)), iter_sitemaps(raw_path), workers=2
    )
    records = [
        record | survey.facts_for(record["url"])
        for record in parse_html_pages(html_pages(raw_path), website, survey.boilerplate, workers=2)
    ]
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
    # Every post keeps every paragraph of its own, whether the sidebar's "Recent posts" links to it or not.
    content_of = dict(zip(parsed["url"], parsed["content"]))
    for post in POSTS:
        for paragraph in post.paragraphs:
            assert paragraph in content_of[f"{BASE}/blog/{post.slug}.html"], post.slug


TOPICS = ["tomatoes", "bicycles", "compost", "bees", "rainwater", "orchards", "seeds", "slugs"]
TEMPLATE = {
    "en": ("Home News Shop", "Copyright Riverside Garden. All rights reserved. Privacy policy and legal notice."),
    "de": ("Startseite Neuigkeiten Laden", "Urheberrecht Riverside Garten. Alle Rechte vorbehalten. Impressum."),
    "fr": ("Accueil Actualités Boutique", "Droits d'auteur Jardin Riverside. Tous droits réservés. Mentions légales."),
}


GERMAN = "Boden Wasser Samen Blatt Wurzel Frühling Herbst Frost Ernte Beet Schuppen Fluss Mitglied Spaten Korb Sonne"


def german_text(topic: str) -> list[str]:
    """Sentences of their own for each topic, so that no two translated pages are near duplicates."""
    chooser, words = random.Random(topic), GERMAN.split()
    return [f"{topic.title()}: " + " ".join(chooser.choice(words) for _ in range(18)) + "." for _ in range(2)]


def english_text(topic: str) -> list[str]:
    """Real English prose (the demo site's posts), one post per topic."""
    return list(POSTS[TOPICS.index(topic)].paragraphs)


def multilingual_page(topic: str, lang: str, translated: bool) -> bytes:
    """A page of a Hugo-like site: /en/, /de/ and /fr/ copies with hreflang; untranslated ones keep English text."""
    menu, footer = TEMPLATE[lang]
    paragraphs = english_text(topic) if lang == "en" or not translated else german_text(topic)
    alternates = "".join(f'<link rel="alternate" hreflang="{a}" href="{BASE}/{a}/{topic}.html">' for a in TEMPLATE)
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"""<html lang="{lang}"><head><title>{topic}</title>{alternates}</head><body>
<div class="menu">{menu}</div><div class="content"><h1>{topic.title()}</h1>{body}</div>
<div class="footer">{footer}</div></body></html>""".encode()


@pytest.fixture(scope="module")
def multilingual_flow(tmp_path_factory):
    warehouse = Warehouse(tmp_path_factory.mktemp("warehouse"))
    with warehouse.writer("raw_pages", "docs", RAW_PAGES_SCHEMA) as out:
        # In crawl order: each English page, then its alternates; half the topics are left untranslated.
        for index, topic in enumerate(TOPICS):
            for lang in TEMPLATE:
                url = f"{BASE}/{lang}/{topic}.html"
                out.write({
                    "website": "docs", "url": url, "final_url": url, "outcome": "fetched", "kind": "html",
                    "content_type": "text/html", "indexable": True, "hreflang": None if lang == "en" else lang,
                    "fetched_at": NOW, "body": multilingual_page(topic, lang, translated=index % 2 == 0),
                })
    raw_path = warehouse.path("raw_pages", "docs")
    website = parse_registry({"websites": [{"name": "docs", "url": f"{BASE}/", "markup": "div"}]}).websites[0]
    survey = survey_site(((p.url, p.hreflang, p.body) for p in html_pages(raw_path)), iter_sitemaps(raw_path), workers=1)
    records = [r | survey.facts_for(r["url"]) for r in parse_html_pages(html_pages(raw_path), website, survey.boilerplate, workers=1)]
    parsed = pl.DataFrame(records, schema=pl.from_arrow(RECORD_SCHEMA.empty_table()).schema)
    groups, _ = build_canonical_url_groups(parsed.lazy(), urls_to_ignore=[])
    corpus, _ = deduplicate(groups, workers=1)
    return parsed, corpus


def test_untranslated_copies_take_no_english_text_away(multilingual_flow):
    parsed, corpus = multilingual_flow
    english = parsed.filter(pl.col("url").str.contains("/en/"))
    assert english.height == len(TOPICS)
    for page in english.iter_rows(named=True):
        topic = page["url"].rsplit("/", 1)[1].removesuffix(".html")
        for line in english_text(topic):
            assert line in page["content"], (page["url"], line)
    for content in parsed["content"]:
        for menu, footer in TEMPLATE.values():
            assert menu not in content and footer not in content
    # The copies' text is the originals': the corpus keeps the English pages.
    kept = set(corpus["url"])
    assert all(f"{BASE}/en/{topic}.html" in kept for topic in TOPICS)
    assert not any(f"/{lang}/{topic}.html" in url for url in kept for lang in ("de", "fr") for topic in TOPICS[1::2])
