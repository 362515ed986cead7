"""extract/reuse: the survey's facts of a page survive the memo, and a page's parse key follows its inputs."""

import dataclasses
from datetime import UTC, datetime

from corpus_pipeline.extract.boilerplate import BoilerplateModel, PageTemplate
from corpus_pipeline.extract.content_container import ContainerVote
from corpus_pipeline.extract.page import HtmlPage
from corpus_pipeline.extract.reuse import facts_of_row, parse_key, row_of_facts
from corpus_pipeline.extract.site_survey import PageFacts

FACTS = PageFacts("fr", frozenset({1 << 95 | 7, 3 << 64 | 5, 12}), frozenset({"/a", "/b"}), ContainerVote("main", 40), False)
LS = (FACTS.language, FACTS.signatures)
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
    # What changes every night while the page does not is no input of its parse.
    assert parse_key(dataclasses.replace(PAGE, fetched_at=datetime.now(UTC)), b"body", *LS, model, "v1") == key
