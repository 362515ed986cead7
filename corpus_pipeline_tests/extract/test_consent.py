"""Cookie-consent banners leave the page before any extractor reads it."""

from lxml import html

from corpus_pipeline.extract.consent import remove_consent_banners
from corpus_pipeline.extract.second_opinion import resiliparse_main_text

STORY = "<p>The ferry timetable changes on Monday, with two extra crossings every evening until September.</p>" * 3
NOTICE = "<p>We and our 600 partners store and access information on your device to personalise advertising.</p>"


def _page(body: str, root_class: str = "") -> str:
    return f'<html class="{root_class}"><body class="{root_class}"><main>{body}</main></body></html>'


def test_consent_platforms_and_cookie_bars_are_removed_and_named_for_the_source_readers():
    source = _page(
        f'{STORY}<div id="onetrust-consent-sdk"><div class="ot-pc">{NOTICE}</div></div>'
        f'<section class="site-cookie_banner js-slide">{NOTICE}</section>'
    )
    document = html.document_fromstring(source)
    selectors = remove_consent_banners(document)
    assert selectors == ['[id="onetrust-consent-sdk"]', '[class="site-cookie_banner js-slide"]']
    assert "partners" not in document.text_content()
    assert "ferry timetable" in document.text_content()
    assert "partners" not in resiliparse_main_text(source, selectors)


def test_a_baking_sites_cookie_recipes_and_a_consent_flag_on_the_page_root_stay():
    recipes = "".join(f'<div class="cookie-card"><h2>Oat cookies {i}</h2>{STORY}</div>' for i in range(3))
    document = html.document_fromstring(_page(recipes, root_class="cookie-banner-visible"))
    assert remove_consent_banners(document) == []
    assert document.text_content().count("Oat cookies") == 3


def test_selectors_survive_quotes_backslashes_and_newlines_in_class_names():
    source = _page(f'{STORY}<div class="cookie-bar &quot;x\\y\nz">{NOTICE}</div>')
    selectors = remove_consent_banners(html.document_fromstring(source))
    assert len(selectors) == 1
    assert "partners" not in resiliparse_main_text(source, selectors)


def test_a_page_of_twenty_thousand_banners_loses_them_all_and_keeps_its_story():
    """Membership checks are set lookups: a list would make this page quadratic."""
    banners = '<div class="cookie-banner"><p>Accept?</p></div>' * 20_000
    document = html.document_fromstring(_page(STORY + banners))
    assert len(remove_consent_banners(document)) == 20_000
    assert "Accept?" not in document.text_content() and "ferry timetable" in document.text_content()
