"""HTML pages to records: metadata, markup, hostile input."""

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.page import HtmlPage, parse_html_page, parse_html_pages

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
ARTICLE = (
    "Community gardens turn vacant lots into shared plots where neighbours grow vegetables together. "
    "They also become meeting places, where skills and seeds are exchanged across generations. "
) * 3


def website(**options):
    return parse_registry({"websites": [{"name": "site", "url": "http://127.0.0.1:8000/", **options}]}).websites[0]


def html_page(body: str | bytes, url="http://127.0.0.1:8000/post.html", content_type="text/html; charset=utf-8", **extra):
    data = body.encode() if isinstance(body, str) else body
    return HtmlPage(url=url, body=data, content_type=content_type, fetched_at=NOW, **extra)


def document(head="", body="", lang="en"):
    return f"<html lang='{lang}'><head>{head}</head><body>{body}</body></html>"


def test_metadata_is_read_before_boilerplate_is_removed():
    head = (
        "<title>Growing together | Riverside Garden</title>"
        "<meta property='og:description' content='A short summary.'>"
        "<link rel='alternate' hreflang='fr-FR' href='/fr/post.html'>"
        "<link rel='canonical' href='/post.html?utm_source=x'>"
    )
    body = f"<header><h1>Site banner</h1></header><nav>Home About</nav><article><h1>Growing together</h1><h2>Why</h2><p>{ARTICLE}</p><h2>How</h2></article><footer>Contact us</footer>"
    record = parse_html_page(html_page(document(head, body)), website())
    assert record["title"] == "Growing together"
    assert record["h1"] == ["Site banner", "Growing together"]
    assert record["h2"] == ["Why", "How"]
    assert record["excerpt"] == "A short summary."
    assert record["alternates"] == [{"lang": "fr", "url": "http://127.0.0.1:8000/fr/post.html"}]
    assert record["canonical_url"] == "http://127.0.0.1:8000/post.html"
    assert "vacant lots" in record["content"] and "Contact us" not in record["content"] and "Home About" not in record["content"]
    assert record["kind"] == "html" and record["error"] is None and record["lang"] == "en"


@pytest.mark.parametrize(
    ("head", "body", "expected"),
    [
        ('<script type="application/ld+json">{"@graph": [{"datePublished": "2024-01-02T10:00:00+02:00", "dateModified": "2024-03-04T23:30:00-05:00"}]}</script>', "", datetime(2024, 3, 5, 4, 30, tzinfo=UTC)),
        ('<meta property="article:published_time" content="2023-07-01T08:00:00+09:00">', "", datetime(2023, 6, 30, 23, 0, tzinfo=UTC)),
        ("", '<time datetime="2022-12-31">31 Dec</time>', datetime(2022, 12, 31, tzinfo=UTC)),
        ('<meta name="date" content="2021-05-06T07:08:09Z">', "", datetime(2021, 5, 6, 7, 8, 9, tzinfo=UTC)),
    ],
)
def test_dates_in_many_formats_become_utc(head, body, expected):
    record = parse_html_page(html_page(document(head, body + f"<p>{ARTICLE}</p>")), website())
    assert record["date"] == expected


def test_date_falls_back_to_sitemap_lastmod_then_http_last_modified():
    lastmod = datetime(2020, 1, 1, tzinfo=UTC)
    http = datetime(2019, 1, 1, tzinfo=UTC)
    body = document(body=f"<p>{ARTICLE}</p>")
    assert parse_html_page(html_page(body, sitemap_lastmod=lastmod, http_last_modified=http), website())["date"] == lastmod
    assert parse_html_page(html_page(body, http_last_modified=http), website())["date"] == http


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Growing together | Riverside Garden", "Growing together"),
        ("Riverside Garden - Growing together in the city", "Growing together in the city"),
        ("News — Riverside", "News — Riverside"),  # what would remain is too short
        ("A plain title", "A plain title"),
    ],
)
def test_titles_lose_site_names_unless_too_short(raw, expected):
    from corpus_pipeline.extract.metadata import clean_title

    assert clean_title(raw) == expected


@pytest.mark.parametrize(("code", "expected"), [("pt_br", "pt"), ("en-US", "en"), ("FR", "fr"), ("zzz-1", None), ("", None)])
def test_language_codes_are_normalized(code, expected):
    from corpus_pipeline.extract.metadata import normalize_lang

    assert normalize_lang(code) == expected


def test_detection_overrides_a_confidently_wrong_declaration():
    record = parse_html_page(html_page(document(body=f"<p>{ARTICLE}</p>", lang="fr"), url="http://127.0.0.1:8000/fr/post.html"), website())
    assert record["lang"] == "en"
    french = "Les jardins partagés transforment des terrains vagues en parcelles où les voisins cultivent ensemble. " * 4
    record = parse_html_page(html_page(document(body=f"<p>{french}</p>", lang="")), website(default_lang="de"))
    assert record["lang"] == "fr"


def test_markup_forms_select_each_element_once_in_document_order():
    body = "<div class='post intro'><h1>Title</h1><p>First part.</p></div><article><p>Second part.</p></article><div class='post'><p>Third part.</p></div>"
    page = html_page(document(body=body))
    both = parse_html_page(page, website(markup=[["div", {"class": "post"}], "h1", "article"]))
    assert both["content"] == "Title\n\nFirst part.\n\nSecond part.\n\nThird part."
    css = parse_html_page(page, website(markup="div.intro > p"))
    assert css["content"] == "First part."


def test_code_blocks_are_a_website_option():
    body = f"<p>{ARTICLE}</p><pre>print('hello')</pre>"
    assert "print" in parse_html_page(html_page(document(body=body)), website(markup="body"))["content"], "kept by default"
    assert "print" not in parse_html_page(html_page(document(body=body)), website(markup="body", keep_code_blocks=False))["content"]


def test_a_page_that_leaves_a_few_words_is_recorded_as_no_document():
    shell = html_page(document(body="<div id='app'><a href='/'>Shopname</a><p>Loading your basket...</p></div>"))
    record = parse_html_page(shell, website())
    assert record["content"] == ""
    assert "too little text" in record["error"] and "Loading your basket" in record["error"], "the words are kept in the error"
    assert "Loading" in parse_html_page(shell, website(min_content_words=0))["content"]
    assert "Loading" in parse_html_page(shell, website(markup="div"))["content"], "markup text is kept, however short"


def test_a_page_with_as_many_words_as_the_minimum_is_a_document_and_one_fewer_is_not():
    shell = html_page(document(body="<div id='app'><a href='/'>Shopname</a><p>Loading your basket...</p></div>"))
    assert "Loading" in parse_html_page(shell, website(min_content_words=4))["content"]
    record = parse_html_page(shell, website(min_content_words=5))
    assert record["content"] == "" and "too little text for a document: 4 words" in record["error"]


def test_a_page_of_menus_alone_is_recorded_as_no_document():
    entries = ["How it works", "For providers", "Membership benefits", "Insurance programme", "Resource hub", "Join us today"]
    menu = "".join(f"<li><a href='/{n}'>{entry}</a></li>" for n, entry in enumerate(entries))
    record = parse_html_page(html_page(document(body=f"<ul class='menu'>{menu}</ul>")), website())
    assert record["content"] == ""
    assert "no main content" in record["error"] and "Membership benefits" in record["error"], "the words are kept"
    article = parse_html_page(html_page(document(body=f"<ul class='menu'>{menu}</ul><article><p>{ARTICLE}</p></article>")), website())
    assert "vacant lots" in article["content"] and article["error"] is None
    assert "Membership benefits" in parse_html_page(html_page(document(body=f"<ul>{menu}</ul>")), website(markup="ul"))["content"]


def test_a_short_page_of_prose_that_resiliparse_skips_is_kept():
    # Resiliparse leaves out sections whose id says "copyright"; python3.11-doc's copyright page is one, and it is
    # still a page (its lines are prose, not a menu's).
    notice = (
        "<h1>Copyright</h1><p>Python and this documentation is:</p>"
        "<p>Copyright © 2001-2023 Python Software Foundation. All rights reserved.</p>"
        "<p>Copyright © 2000 BeOpen.com. All rights reserved.</p>"
        "<p>See History and License for complete license and permissions information.</p>"
    )
    record = parse_html_page(html_page(document(body=f"<div class='body'><section id='copyright'>{notice}</section></div>")), website())
    assert "BeOpen.com" in record["content"] and record["error"] is None


def test_charset_from_meta_and_detection():
    latin1 = document(head="<meta charset='iso-8859-1'>", body="<p>Les élèves étudient à l'école française.</p>").encode("latin-1")
    record = parse_html_page(html_page(latin1, content_type="text/html"), website(markup="body"))
    assert "élèves" in record["content"]
    cp1252 = document(body="<p>Café crème, déjà vu, naïve façade — « guillemets ».</p>" * 5).encode("cp1252")
    record = parse_html_page(html_page(cp1252, content_type="text/html"), website(markup="body"))
    assert "déjà" in record["content"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"", "empty body"),
        (b"\x00\x01\x02\xff\xfe" * 2000, "binary"),
        (b"<html><body>" + b"<div>" * 50_000 + b"deep" + b"</div>" * 50_000 + b"</body></html>", "too little text for a document: 1 words"),  # read flattened
        (b"<html><body><p>" + b"word " * 2_000_000 + b"</p></body></html>", None),
        (b"<<<>>><html<body><p>unclosed <b>bold <i>text", None),
    ],
)
def test_hostile_pages_never_raise_and_are_recorded(body, reason):
    record = parse_html_page(html_page(body), website())
    assert set(record) >= {"url", "content", "error"}
    if reason:
        assert reason in record["error"]
    else:
        assert record["content"] or record["error"]


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=2000))
def test_any_text_served_as_html_gives_a_record(text):
    record = parse_html_page(html_page(text), website())
    assert isinstance(record["content"], str)
    assert record["error"] is None or isinstance(record["error"], str)
    assert record["lang"] and len(record["lang"]) == 2


def test_markup_nested_past_the_limit_is_read_flattened_and_the_limit_is_a_setting():
    nested = document(body="<section>" * 60 + f"<p>{ARTICLE}</p>" + "</section>" * 60 + "<p>After the sections.</p>")
    whole = parse_html_page(html_page(nested), website())
    flattened = parse_html_page(html_page(nested), website(), max_markup_depth=50)
    for record in (whole, flattened):
        assert record["error"] is None and "Community gardens" in record["content"]
    assert flattened["content"] == whole["content"]


def test_a_long_list_without_end_tags_is_not_mistaken_for_deep_markup():
    items = "".join(f"<li>item {i} <p>a paragraph without its end tag" for i in range(3000))
    record = parse_html_page(html_page(document(body=f"<ul>{items}</ul><p>{ARTICLE}")), website())
    assert record["error"] is None and "item 2999" in record["content"]


def test_parallel_parsing_keeps_order_and_results():
    pages = [html_page(document(body=f"<article><p>Page number {i}. {ARTICLE}</p></article>"), url=f"http://127.0.0.1:8000/{i}.html") for i in range(12)]
    serial = [parse_html_page(p, website()) for p in pages]
    parallel = list(parse_html_pages(pages, website(), None, workers=2))
    assert [r["url"] for r in parallel] == [p.url for p in pages]
    assert [r["content"] for r in parallel] == [r["content"] for r in serial]


def test_parallel_parsing_chooses_each_language_as_a_page_alone_does():
    french = "Les jardins partagés transforment les terrains vagues en parcelles où les voisins cultivent ensemble. " * 3
    pages = [
        html_page(document(body=f"<p>{ARTICLE}</p>", lang="fr"), url="http://127.0.0.1:8000/fr/post.html"),  # English
        html_page(document(body=f"<p>{french}</p>", lang=""), url="http://127.0.0.1:8000/jardins.html"),
        html_page(document(body=f"<p>{french}</p>", lang="es"), url="http://127.0.0.1:8000/es/corto.html"),
        html_page(b"", url="http://127.0.0.1:8000/empty.html", hreflang="it"),
    ]
    serial = [parse_html_page(p, website(default_lang="de")) for p in pages]
    parallel = list(parse_html_pages(pages, website(default_lang="de"), None, workers=2))
    assert [r["lang"] for r in parallel] == [r["lang"] for r in serial] == ["en", "fr", "fr", "it"]
    assert parallel == serial  # nothing the parsing workers handed over is left in the records


def test_publication_and_modification_dates_are_both_kept():
    head = '<script type="application/ld+json">{"datePublished": "2024-01-02T10:00:00+02:00", "dateModified": "2024-03-04T00:00:00Z"}</script>'
    record = parse_html_page(html_page(document(head, f"<p>{ARTICLE}</p>")), website())
    assert record["published"] == datetime(2024, 1, 2, 8, 0, tzinfo=UTC)
    assert record["date"] == datetime(2024, 3, 4, tzinfo=UTC)


def test_publication_date_written_only_in_the_text_is_found():
    body = f"<article><p>Posted on March 3, 2021 by the garden team.</p><p>{ARTICLE}</p></article>"
    record = parse_html_page(html_page(document(body=body)), website())
    assert record["published"] == datetime(2021, 3, 3, tzinfo=UTC)
    assert record["date"] is None  # a date quoted in the text is no evidence of the last modification


def test_body_published_only_as_ld_json_is_extracted():
    # Script-rendered pages and forum threads ship their text as structured data and an empty shell.
    data = '{"@type": "DiscussionForumPosting", "headline": "Seed swap", "articleBody": "' + ARTICLE.strip() + '"}'
    head = f'<script type="application/ld+json">{data}</script>'
    record = parse_html_page(html_page(document(head, "<div id='app'><p>Loading</p></div>")), website())
    assert "vacant lots into shared plots" in record["content"]


def test_a_cookie_consent_dialog_never_reaches_the_content():
    purpose = (
        "<p>These cookies are necessary for the website to function and cannot be switched off in our systems, "
        "as they are set in response to your actions.</p>"
    )
    dialog = f"<div id='onetrust-consent-sdk'><div role='dialog'><h2>Privacy Preference Center</h2>{purpose * 4}</div></div>"
    record = parse_html_page(html_page(document(body=f"<main><h1>Gardens</h1><p>{ARTICLE}</p></main>{dialog}")), website())
    assert "neighbours grow vegetables" in record["content"]
    assert "cookies" not in record["content"] and "Privacy Preference" not in record["content"]


def test_every_record_says_which_path_produced_its_text():
    article = document(body=f"<article><h1>Growing together</h1><p>{ARTICLE}</p></article>")
    assert parse_html_page(html_page(article), website(markup="article"))["extraction"] == "markup"
    automatic = parse_html_page(html_page(article), website())
    assert automatic["content"] and automatic["extraction"] in {"trafilatura_fast", "trafilatura_full"}
    news = document(
        '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Growing together"}</script>',
        f"<article><h1>Growing together</h1><p>{ARTICLE}</p></article>",
    )
    assert parse_html_page(html_page(news), website())["extraction"] == "trafilatura_precision"
    for empty in (document(body=""), document(body="<div id='app'><p>Loading your basket...</p></div>")):
        record = parse_html_page(html_page(empty), website())
        assert record["content"] == "" and record["extraction"] == "no_document" and record["error"]


def test_records_have_exactly_the_schema_columns_pdf_sources_may_leave_out():
    from corpus_pipeline.core.schema import RECORD_COLUMNS

    record = parse_html_page(html_page(document(body=f"<p>{ARTICLE}</p>")), website())
    assert "extraction" in RECORD_COLUMNS
    assert set(record) <= set(RECORD_COLUMNS) and "extraction" in record
