"""extract/reuse: the survey's facts of a page survive the memo, and a page's parse key follows its inputs."""

import dataclasses
import random
from datetime import UTC, datetime

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.extract.boilerplate import BoilerplateModel, PageTemplate
from corpus_pipeline.extract.content_container import ContainerVote
from corpus_pipeline.extract.page import HtmlPage
from corpus_pipeline.extract.reuse import (
    FACTS_SCHEMA,
    LastNight,
    facts_of_row,
    kinds_key,
    parse_key,
    row_of_facts,
    sitemaps_input,
)
from corpus_pipeline.extract.site_page_kinds import COLUMNS as KIND_COLUMNS
from corpus_pipeline.extract.site_page_kinds import site_page_kinds
from corpus_pipeline.extract.site_survey import PageFacts

FACTS = PageFacts("fr", frozenset({1 << 95 | 7, 3 << 64 | 5, 12}), frozenset({"/a", "/b"}), ContainerVote("main", 40), False)
LS = (FACTS.language, row_of_facts(FACTS)["signatures"])  # packed, as the memo holds them
SITE = "http://site.test"
PAGE = HtmlPage("http://site.test/fr/a.html", b"<html></html>", "text/html", datetime(2026, 1, 1, tzinfo=UTC))


def test_page_facts_survive_the_memo_field_for_field():
    assert facts_of_row(row_of_facts(FACTS)) == FACTS
    assert facts_of_row(row_of_facts(PageFacts("", frozenset(), frozenset()))) == PageFacts("", frozenset(), frozenset())
    # A field added to PageFacts must be kept by the memo too, or kept pages would be surveyed differently.
    assert {f.name for f in dataclasses.fields(PageFacts)} == {"language", "signatures", "links", "container", "teaches"}


def test_the_parse_key_follows_the_template_blocks_the_page_shows_and_nothing_else():
    model = BoilerplateModel({"fr": PageTemplate(frozenset({12, 99}))}, ("main",))
    key = parse_key(PAGE, b"body", *LS, model, "v1")
    # A template block the page does not show, or another language's template: the same key.
    other_blocks = BoilerplateModel({"fr": PageTemplate(frozenset({12, 98})), "de": PageTemplate(frozenset({1}))}, ("main",))
    assert parse_key(PAGE, b"body", *LS, other_blocks, "v1") == key
    # A block the page shows joins or leaves the template, the containers, the code or the page change: a new key.
    assert parse_key(PAGE, b"body", *LS, BoilerplateModel({"fr": PageTemplate(frozenset({99}))}, ("main",)), "v1") != key
    assert parse_key(PAGE, b"body", *LS, BoilerplateModel(model.templates, ()), "v1") != key
    assert parse_key(PAGE, b"body", *LS, model, "v2") != key
    assert parse_key(PAGE, b"other", *LS, model, "v1") != key
    assert parse_key(dataclasses.replace(PAGE, hreflang="fr"), b"body", *LS, model, "v1") != key
    # The body's first fetch time is an input like the rest (the crawl moves it only with the body).
    assert parse_key(dataclasses.replace(PAGE, fetched_at=datetime.now(UTC)), b"body", *LS, model, "v1") != key


def _site_records() -> pl.DataFrame:
    """Five posts and a home page that holds their texts: a listing, and documents."""
    words = "garden soil water seed winter frost compost leaf root branch spring summer autumn harvest tomato".split()
    posts = {
        f"http://site.test/post-{n}.html": " ".join(random.Random(n).choice(words) for _ in range(120)) for n in range(5)
    }
    rows = [(url, text) for url, text in posts.items()] + [("http://site.test/", "\n\n".join(posts.values()))]
    return pl.DataFrame(
        {
            "url": [url for url, _ in rows],
            "canonical_url": [url for url, _ in rows],
            "title": [url for url, _ in rows],
            "h1": [[] for _ in rows],
            "content": [text for _, text in rows],
            "error": [None] * len(rows),
            "page_kind": [None] * len(rows),
            "page_kind_evidence": [""] * len(rows),
            "title_links": [[] for _ in rows],
            "alternates": [[] for _ in rows],
        },
        schema_overrides={
            "error": pl.String, "h1": pl.List(pl.String), "title_links": pl.List(pl.String),
            "alternates": pl.List(pl.Struct({"lang": pl.String, "url": pl.String})),
        },
    )


def test_the_page_kinds_are_kept_whatever_the_order_the_crawl_gives_the_pages(tmp_path):
    # The crawl's workers answer in any order: a night that reads the same records in another order keeps the
    # current version's kinds, each with its record, as the pass would decide them again.
    records = _site_records()
    kinds = site_page_kinds(records)
    assert set(kinds.page_kind) == {"listing", "document"}
    current = records.with_columns(
        pl.Series("page_kind", kinds.page_kind), pl.Series("page_kind_evidence", kinds.page_kind_evidence),
        pl.Series("title_inlinks", kinds.title_inlinks, dtype=pl.Int32),
    )
    current.write_parquet(tmp_path / "current.parquet")
    records.write_parquet(tmp_path / "draft.parquet")
    tonight = records.sample(fraction=1.0, shuffle=True, seed=3)
    assert tonight["url"].to_list() != records["url"].to_list()
    tonight.write_parquet(tmp_path / "tonight.parquet")

    key = kinds_key(tmp_path / "draft.parquet", KIND_COLUMNS)
    assert kinds_key(tmp_path / "tonight.parquet", KIND_COLUMNS) == key
    last_night = LastNight(records_path=tmp_path / "current.parquet", kinds_key=key)
    kept = last_night.page_kinds(key, tonight["url"])
    assert kept == site_page_kinds(tonight)
    # One record read differently: the pass runs again.
    edited = tonight.with_columns(pl.col("title").str.replace("post-1", "post-one"))
    edited.write_parquet(tmp_path / "edited.parquet")
    assert kinds_key(tmp_path / "edited.parquet", KIND_COLUMNS) != key
    # The same records read by new code: the pass runs again.
    assert kinds_key(tmp_path / "draft.parquet", KIND_COLUMNS, "parsed_pages code v2") != key


def test_a_sitemap_listing_is_kept_only_for_the_same_sitemaps_in_the_same_order_and_code():
    sitemaps = [(f"http://site.test/{name}.xml", f"<urlset><url><loc>http://site.test/{name}</loc></url></urlset>".encode())
                for name in ("a", "b")]
    before = sitemaps_input(sitemaps, "v1")
    assert sitemaps_input(list(sitemaps), "v1") == before
    # An entry listed by two sitemaps keeps the first lastmod it was given: another order may list otherwise.
    assert sitemaps_input(sitemaps[::-1], "v1") != before
    assert sitemaps_input([(sitemaps[0][0], sitemaps[0][1].replace(b"/a<", b"/c<")), sitemaps[1]], "v1") != before
    assert sitemaps_input([(sitemaps[0][0] + "?p=2", sitemaps[0][1]), sitemaps[1]], "v1") != before
    assert sitemaps_input(sitemaps[:1], "v1") != before
    assert sitemaps_input(sitemaps, "v2") != before


def test_every_pages_kept_facts_come_in_tonights_order_and_say_whether_they_are_last_nights_pages(tmp_path):
    memo = tmp_path / "memo.parquet"
    rows = [row_of_facts(PageFacts("en", frozenset({n}), frozenset({f"{SITE}/{n}"}))) | {
        "url": f"{SITE}/{n}", "body_digest": bytes([n]) * 16, "survey_key": bytes([n]) * 16,
    } for n in range(4)]
    pq.write_table(pa.Table.from_pylist(rows, schema=FACTS_SCHEMA), memo)
    last_night = LastNight(memo)
    shuffled = [(f"{SITE}/{n}", bytes([n]) * 16) for n in (2, 0, 3, 1)]
    facts, whole = last_night.kept_facts(shuffled)
    assert whole and facts.column("url").to_pylist() == [url for url, _ in shuffled]
    assert [facts_of_row(row).signatures for row in facts.to_pylist()] == [frozenset({n}) for n in (2, 0, 3, 1)]
    # A page gone since: every page tonight is kept, but not last night's pages.
    assert last_night.kept_facts(shuffled[:3])[1] is False
    # A page whose survey inputs changed, or a new page: no page's facts are taken whole.
    assert last_night.kept_facts([*shuffled[:3], (f"{SITE}/1", b"\x09" * 16)]) is None
    assert last_night.kept_facts([*shuffled, (f"{SITE}/9", b"\x09" * 16)]) is None
