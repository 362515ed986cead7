"""Issue 42 through Dagster: a blog's corpus holds each post once, under the post's own URL, and no archive."""

from __future__ import annotations

import re

import dagster as dg
import polars as pl
import pytest

from corpus_pipeline.assets import ALL_ASSETS
from corpus_pipeline.core.urls import canonical_url
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", (text or "").lower()))


@pytest.fixture(scope="module")
def blog_run(blog_site, tmp_path_factory):
    base_url, facts = blog_site
    warehouse_dir = tmp_path_factory.mktemp("blog_warehouse")
    resources = {
        "crawler_config": CrawlerConfig(min_delay_s=0.0),
        "websites": WebsiteRegistry(),
        "warehouse": ParquetWarehouse(base_dir=str(warehouse_dir)),
    }
    assets = [a for a in ALL_ASSETS if a.key.to_user_string() in
              ("raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus")]
    result = dg.materialize(assets, partition_key="blog", resources=resources)
    assert result.success
    warehouse = Warehouse(warehouse_dir)
    return base_url, facts, warehouse.scan("parsed_pages", "blog").collect(), warehouse.scan("corpus", "blog").collect()


def test_every_archive_and_home_page_is_a_listing_kept_out_of_the_corpus(blog_run):
    base_url, facts, parsed, corpus = blog_run
    listings = {canonical_url(base_url + path) for path in facts.listings}
    kinds = dict(zip(parsed["canonical_url"], parsed["page_kind"], strict=True))
    assert listings <= set(kinds), listings - set(kinds)
    assert {url: kinds[url] for url in listings if kinds[url] != "listing"} == {}
    assert corpus.filter(pl.col("page_kind") != "document").height == 0
    assert not listings & set(corpus["canonical_url"]) and not listings & set(corpus["url"])


def test_every_post_is_in_the_corpus_under_its_own_url_with_its_own_date(blog_run):
    base_url, facts, _, corpus = blog_run
    rows = {row["canonical_url"]: row for row in corpus.iter_rows(named=True)}
    for post in facts.posts:
        row = rows.get(canonical_url(base_url + post.path))
        assert row is not None, post.path
        assert row["url"] == base_url + post.path and row["page_kind"] == "document"
        assert row["published"] == post.published, post.path
        assert _words(post.article.paragraphs[0]) in _words(row["content"]), post.path


def test_no_post_text_stands_in_two_corpus_rows(blog_run):
    _, facts, _, corpus = blog_run
    texts = [_words(text) for text in corpus["content"]]
    for post in facts.posts:
        opening = _words(post.article.paragraphs[0])
        assert sum(opening in text for text in texts) == 1, post.path


def test_listings_link_to_the_posts_by_their_titles(blog_run):
    base_url, facts, parsed, _ = blog_run
    inlinks = dict(zip(parsed["canonical_url"], parsed["title_inlinks"], strict=True))
    assert all(inlinks[canonical_url(base_url + post.path)] >= 3 for post in facts.posts)


def test_the_indexes_of_the_archives_are_listings_by_their_links(blog_run):
    # The tag cloud's and the months' lines name the archives as the links do ("garden3", "March 2024 (2)"), not as
    # the archives' titles do ("Topic: garden", "Month: March 2024").
    base_url, _, parsed, _ = blog_run
    evidence = dict(zip(parsed["url"], parsed["page_kind_evidence"], strict=True))
    for path in ("/topics/", "/months/"):
        assert "link-list:" in (evidence[base_url + path] or ""), (path, evidence[base_url + path])
