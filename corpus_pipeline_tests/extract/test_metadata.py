"""Dates come from the page's metadata and main content, never from the website's header, footer or sidebars."""

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.metadata import heuristic_date, page_dates
from corpus_pipeline.extract.page import HtmlPage, parse_html_page
from corpus_pipeline.extract.structured_data import structured_data
from corpus_pipeline_demo.site import build_demo_site
from corpus_pipeline_tests.support.page_chrome import without_page_chrome

NOW = datetime(2026, 11, 24, tzinfo=UTC)
SITE = parse_registry({"websites": [{"name": "s", "url": "http://127.0.0.1:8000/"}]}).websites[0]


def page(main: str, *, header: str = "", footer: str = "", aside: str = "") -> bytes:
    return f"""<html lang="en"><head><title>Rainwater tanks</title></head><body>
<header class="site-header"><a href="/">Riverside Garden</a>{header}</header>
<nav><a href="/">Home</a> <a href="/blog/">Blog</a></nav>
<main>{main}</main>
<aside>{aside}</aside>
<footer>{footer}</footer>
</body></html>""".encode()


PROSE = (
    "<h1>Rainwater tanks</h1><p>A tank under every gutter of the shed collects enough rain for the whole plot in "
    "summer, and the committee lends pumps to members who ask for one at the open hour.</p><p>Clean the filter "
    "every month and empty the tank before the first frost, or the ice will split its walls.</p>"
)


def parsed(body: bytes, url: str = "http://127.0.0.1:8000/blog/rainwater.html") -> dict:
    return parse_html_page(HtmlPage(url, body, "text/html", NOW), SITE)


@pytest.mark.parametrize(
    "chrome",
    [
        {"header": '<p class="tagline">Growing food by the river since 2019</p>'},
        {"footer": "<p>© 2018 Riverside Garden. Updated 4 May 2022.</p>"},
        {"footer": '<p>Site updated <time datetime="2022-05-04">4 May 2022</time></p>'},
        {"aside": '<h3>Archives</h3><p>Posted on 12 January 2020: our first harvest</p>'},
    ],
)
def test_dates_in_the_website_chrome_are_not_the_page_dates(chrome):
    record = parsed(page(PROSE, **chrome))
    assert record["published"] is None
    assert record["date"] is None


def test_a_date_in_the_main_text_or_the_article_byline_is_found():
    in_text = parsed(page(PROSE.replace("<p>A tank", "<p>Posted on 3 March 2021.</p><p>A tank"), header="<p>since 2019</p>"))
    assert in_text["published"] == datetime(2021, 3, 3, tzinfo=UTC)
    byline = '<article><header><h1>Rainwater tanks</h1><time datetime="2021-03-03T10:00:00Z">3 March</time></header></article>'
    document = html.document_fromstring(page(byline + PROSE, footer='<time datetime="2022-05-04">4 May</time>'))
    assert page_dates(document, "https://example.org/p", structured_data(document).objects) == (datetime(2021, 3, 3, 10, tzinfo=UTC),) * 2


def test_the_demo_site_tagline_dates_no_page(tmp_path):
    facts = build_demo_site(tmp_path / "site")
    declared = {"/blog/post-01.html", "/blog/post-02.html", "/blog/post-03.html", "/blog/post-04.html",
                "/blog/post-04-reprint.html"}
    pages = sorted((tmp_path / "site").rglob("*.html"))
    assert len(pages) >= 30
    for path in pages:
        site_path = "/" + path.relative_to(tmp_path / "site").as_posix()
        record = parsed(path.read_bytes(), f"http://127.0.0.1:8000{site_path}")
        if site_path in declared:
            assert record["published"] is not None and record["published"].year == 2026, site_path
        else:
            assert record["published"] is None, (site_path, record["published"])
        if site_path in facts.dated_pages:
            assert record["date"] == facts.dated_pages[site_path], site_path


def test_a_date_written_far_from_the_title_is_not_the_publication_date():
    # A history paragraph deep in the page quotes a year and a day: it dates an event, not the page.
    filler = "".join(f"<p>Step {n}: fill the watering can from the tank and water the beds along the fence.</p>" for n in range(20))
    record = parsed(page(PROSE + filler + "<p>The first tank was installed on 3 March 2001 by the founders.</p>"))
    assert record["published"] is None
    near_title = parsed(page(PROSE.replace("</h1>", "</h1><p>3 March 2021</p>") + filler))
    assert near_title["published"] == datetime(2021, 3, 3, tzinfo=UTC)


def test_section_numbers_are_not_dates():
    headings = "".join(
        f"<h2>{number}. Partitioning the disks</h2><p>Each disk gets a partition table before anything else.</p>"
        for number in ("4.2.10.4", "4.2.12.1", "10.4.1", "15.4.1")
    )
    record = parsed(page("<h1>Installation</h1>" + headings))
    assert record["published"] is None


# Pages whose dates htmldate's markup search finds at each of its steps, and one where it finds none.
MARKUP_DATED_PAGES = (
    '<html><head><meta property="article:published_time" content="2021-03-04T10:00:00+00:00">'
    '<meta property="article:modified_time" content="2022-05-06T11:00:00+00:00"></head><body><p>Text</p></body></html>',
    '<html><body><div class="post"><abbr class="published" title="2020-01-02">2 Jan</abbr><p>Text</p></div></body></html>',
    '<html><body><p class="date">Posted 2019-07-08</p><p>Updated 2023-02-01</p></body></html>',
    '<html><body><p>Text</p><script>var built = "2018-09-10T08:00:00";</script><p>Stand: 03.04.2017</p></body></html>',
    '<html><body><p>Text</p><p>Datum: 05.06.2016</p></body></html>',
    '<html><head><link rel="canonical" href="https://example.org/2015/11/12/post.html"></head><body><p>x</p></body></html>',
    "<html><body><h1>Undated</h1><p>Nothing here says when.</p></body></html>",
    # Dates in ld+json only (htmldate's JSON search), a timestamp with its time in the text.
    '<html><head><script type="application/ld+json">{"datePublished": "2017-03-04", "dateModified": "2018-04-05"}'
    "</script></head><body><p>Text</p></body></html>",
    "<html><body><p>Text</p><p>Built 2016-02-03 10:11:12 by the robot</p></body></html>",
    # What find_date prunes before its searches (an svg's title, a label, the Wayback Machine's banner).
    '<html><body><p>Text</p><svg><title>Drawn 2014-02-03</title></svg><p>Stand: 03.04.2017</p></body></html>',
    '<html><body><label>Posted 2013-01-02</label><div id="wm-ipp">Captured 2012-01-01</div><p>x</p></body></html>',
    # The banner alone (nothing else to prune), then its id as text, not an id.
    '<html><body><div id="wm-ipp-base">Captured 2012-01-01</div><p>Released 2013-01-02</p></body></html>',
    '<html><body><p>Captured "wm-ipp 2012-01-01</p><p>Released 2013-01-02</p></body></html>',
    '<html><body><p>Text</p><iframe>2011-05-06</iframe><script>var d = "2010-01-02";</script><p>y</p></body></html>',
    # Dates only the last step reads (the text's), one only in an attribute, one in a comment.
    "<html><body><p>Text 2019-07-08 and more &amp; &lt;more&gt;</p></body></html>",
    '<html><body><p title="2019-07-08">Text</p><!-- 2001-01-01 --></body></html>',
    "<html><body><p>Released 2019-<!-- -->07-08</p><p>x</p></body></html>",
)


@pytest.mark.parametrize("page", MARKUP_DATED_PAGES)
@pytest.mark.parametrize("original", [False, True])
def test_the_markup_search_is_find_date_s_and_leaves_the_tree_as_it_was(page, original):
    from htmldate import find_date

    from corpus_pipeline.core.dates import parse_date

    found = find_date(html.document_fromstring(page), extensive_search=False, original_date=original,
                      outputformat="%Y-%m-%dT%H:%M:%S%z", url="https://example.org/post")
    tree = html.document_fromstring(page)
    source = html.tostring(tree)
    if found or not original:  # else the publication date goes on to the text next to the title
        assert heuristic_date(tree, "https://example.org/post", original) == (parse_date(found) if found else None)
    assert html.tostring(tree) == source, "the tree given is left as it was"


CHROMED_PAGES = (
    page(PROSE, header='<p class="tagline">since 2019</p>', footer="<p>© 2018. Updated 4 May 2022.</p>"),
    page(PROSE.replace("</h1>", "</h1><p>3 March 2021</p>"), aside="<p>Posted on 12 January 2020</p>"),
    page("<p>Intro</p>" + PROSE.replace("<h1>", '<div class="sidebar">Note 2020-01-02</div>tail<h1>'),
         footer='<time datetime="2022-05-04">4 May</time>'),
    page("<svg><title>2014-02-03</title></svg><p>no title here, 5 June 2015</p>", header="<p>2016-01-01</p>"),
)


@pytest.mark.parametrize("body", CHROMED_PAGES)
def test_page_dates_reads_the_page_without_its_chrome_and_leaves_it_as_it_was(body):
    document = html.document_fromstring(body)
    source = html.tostring(document)
    # The same searches on a copy of the page without its chrome.
    without_chrome = without_page_chrome(document)
    expected = tuple(heuristic_date(without_chrome, "https://example.org/p", original) for original in (False, True))
    assert page_dates(document, "https://example.org/p", structured_data(document).objects) == expected
    assert html.tostring(document) == source, "the page is put back as it was"


def test_the_text_near_the_title_of_a_page_without_h1_is_its_start():
    from corpus_pipeline.extract.metadata import TITLE_TEXT_AFTER, text_near_title

    words = " ".join(f"word{n}" for n in range(40))
    document = html.document_fromstring("<html><body>" + "".join(f"<p>{n} {words}</p>" for n in range(100)) + "</body></html>")
    pieces = text_near_title(document)
    assert pieces[0].startswith("0 word0") and sum(map(len, pieces)) - len(pieces[-1]) < TITLE_TEXT_AFTER
    assert sum(map(len, pieces)) >= TITLE_TEXT_AFTER, "a piece that crosses the edge is kept whole"


def test_iso_dates_in_the_markup_are_found():
    page = '<html><body><div class="para">Released 2021-04-29 14:41:00 to mirrors</div></body></html>'
    document = html.document_fromstring(page)
    assert heuristic_date(document, "http://127.0.0.1:8000/a.html") == datetime(2021, 4, 29, 14, 41, tzinfo=UTC)
    loose = html.document_fromstring('<html><body><div class="para">Released 2021-04-29 to mirrors</div></body></html>')
    assert heuristic_date(loose, "http://127.0.0.1:8000/a.html") == datetime(2021, 4, 29, tzinfo=UTC)


def _day(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


# Each page's declared dates (last modification, publication): ld+json first, then meta tags, then the first <time>
# outside the chrome.
DECLARED_PAGES = (
    (
        '<html><head><script type="application/ld+json">{"dateModified": "2018-04-05", "datePublished": "2017-03-04"}'
        "</script></head><body><p>x</p></body></html>",
        (_day(2018, 4, 5), _day(2017, 3, 4)),
    ),
    (
        '<html><head><meta name="dcterms.date" content="2016-01-02"><meta property="og:updated_time" '
        'content="2019-01-02"></head><body><p>x</p></body></html>',
        (_day(2019, 1, 2), _day(2016, 1, 2)),
    ),
    (
        '<html><body><header><time datetime="2001-01-01">then</time></header><p><time datetime="2015-06-07">June</time>'
        "</p></body></html>",
        (_day(2015, 6, 7), _day(2015, 6, 7)),
    ),
    (
        '<html><head><script type="application/ld+json">{"dateCreated": "2014-02-03"}</script>'
        '<meta name="date" content="2013-01-02"></head><body><time datetime="2012-01-01">x</time></body></html>',
        (_day(2014, 2, 3), _day(2014, 2, 3)),
    ),
)


@pytest.mark.parametrize(("page", "expected"), DECLARED_PAGES)
def test_page_dates_reads_the_declared_dates_once_for_both(page, expected):
    document = html.document_fromstring(page)
    assert page_dates(document, "http://127.0.0.1:8000/a.html", structured_data(document).objects) == expected


def _normalized_in_full(code: str | None) -> str | None:
    """normalize_lang as first written (module-level regular expressions, nothing remembered)."""
    import re

    if not code:
        return None
    primary = re.split(r"[-_]", code.strip().lower(), maxsplit=1)[0]
    return primary if re.fullmatch(r"[a-z]{2}", primary) else None


@given(code=st.none() | st.text(alphabet="aBzZ-_ \tİK1é", max_size=7) | st.sampled_from(["en-US", "pt_br", "FR", " de ", "x"]))
def test_language_codes_remembered_are_normalized_as_in_full(code: str | None) -> None:
    from corpus_pipeline.extract.metadata import normalize_lang

    assert normalize_lang(code) == _normalized_in_full(code)
    assert normalize_lang(code) == _normalized_in_full(code)  # the remembered answer too


def test_a_comment_dates_the_comment_not_the_post():
    # A classic WordPress theme writes the post's date as text; only the comments carry <time> elements.
    page = html.fromstring("""<html><body><main><article>
      <header><h1>Release 0.6.3</h1><ul class="post-meta"><li><a href="/2019/06/24/r/">June 24, 2019</a></li></ul>
      </header><div class="entry-content"><p>Fixed a regression in the connection pool.</p></div>
      <div id="comments" class="comments-wrapper"><ol class="comment-list"><li><article>
        <time datetime="2019-06-25T13:07:00+00:00">June 25, 2019 at 1:07 pm</time><p>Thanks!</p></article></li></ol>
      </div></article></main></body></html>""")
    _, published = page_dates(page, "https://blog.example/2019/06/24/r/", structured_data(page).objects)
    assert published is not None and published.date().isoformat() == "2019-06-24"


# Date material for whole pages: meta tags of each kind htmldate reads (by name, property, itemprop, http-equiv), time
# and abbr elements with and without their shortcut classes, elements whose class or id cues a date, and free text,
# each carrying a date in one of the formats htmldate parses (or none, or a year out of its range).
_DATES = st.sampled_from([
    "2021-03-04", "2019-11-02T10:11:12+00:00", "04.03.2021", "March 4, 2021", "4 March 2021", "2021/03/04", "1990-01-02",
    "2031-05-06", "3/4/21", "2021", "no date", "",
])
_META_KEYS = st.sampled_from([
    ("name", "date"), ("name", "last-modified"), ("name", "lastmod"), ("name", "modified"), ("name", "dc.date"),
    ("property", "og:updated_time"), ("property", "article:modified_time"), ("property", "article:published_time"),
    ("itemprop", "datePublished"), ("itemprop", "dateModified"), ("itemprop", "dateUpdate"), ("itemprop", "dateCreated"),
    ("itemprop", "copyrightYear"), ("http-equiv", "date"), ("http-equiv", "last-modified"), ("pubdate", "pubdate"),
])
_CLASSES = st.sampled_from(["", "date", "updated", "published", "entry-date", "byline", "post-meta", "footer-info-lastmod"])
_PIECES = st.one_of(
    st.tuples(_META_KEYS, _DATES).map(lambda k: f'<meta {k[0][0]}="{k[0][1]}" content="{k[1]}">'),
    st.tuples(_CLASSES, _DATES, _DATES).map(lambda k: f'<time class="{k[0]}" datetime="{k[1]}">{k[2]}</time>'),
    st.tuples(_CLASSES, _DATES, _DATES).map(lambda k: f'<abbr class="{k[0]}" title="{k[1]}">{k[2]}</abbr>'),
    st.tuples(st.sampled_from(["p", "div", "span", "small", "footer"]), _CLASSES, _DATES).map(
        lambda k: f'<{k[0]} class="{k[1]}">Posted {k[2]} by Ann</{k[0]}>'
    ),
    st.tuples(_DATES, _DATES).map(lambda k: f"<p>Text {k[0]} and later {k[1]}.</p>"),
)


@settings(max_examples=300, deadline=None)  # dateparser's first call loads its languages (a second or more)
@given(st.lists(_PIECES, max_size=6))
def test_a_page_whose_markup_holds_no_publication_date_holds_no_modification_date(pieces):
    # page_dates searches the last modification only where the publication date's search found one: the two searches
    # read the same candidates and differ in which they prefer. Its answer is theirs, each run in full.
    document = html.document_fromstring(f"<html><head></head><body><h1>Tanks</h1>{''.join(pieces)}</body></html>")
    url = "https://example.org/p"
    declared = _declared(document)
    both = tuple(heuristic_date(without_page_chrome(document), url, original) for original in (False, True))
    expected = (declared[0] or both[0], declared[1] or both[1])
    assert page_dates(document, url, structured_data(document).objects) == expected


def _declared(document: html.HtmlElement) -> tuple[datetime | None, datetime | None]:
    from corpus_pipeline.extract.metadata import _declared_dates

    return tuple(_declared_dates(document, structured_data(document).objects))


def test_a_date_in_a_code_sample_dates_the_sample_not_the_page():
    sample = '<pre><code>logging.info("2010-12-12 11:41:42 started")\n# $Date: 2025-05-20 15:48:27 $</code></pre>'
    filler = "".join(f"<p>Step {n}: configure the handler and the formatter of the logger.</p>" for n in range(15))
    document = html.document_fromstring(page(PROSE + filler + sample + "<p>Then run it.</p>"))
    source = html.tostring(document)
    assert page_dates(document, "https://example.org/p", structured_data(document).objects) == (None, None)
    assert html.tostring(document) == source, "the code blocks are put back as they were"
    # The same date in the text is the page's.
    dated = html.document_fromstring(page(PROSE + filler + "<p>Released 2010-12-12 11:41:42 to mirrors</p>"))
    assert page_dates(dated, "https://example.org/p", structured_data(dated).objects)[0] == datetime(
        2010, 12, 12, 11, 41, 42, tzinfo=UTC
    )


def test_a_date_written_in_a_preformatted_block_next_to_the_title_is_read():
    # A plain-text document in a <pre> (a man page, an RFC) writes its date next to its title.
    body = "<h1>GREP(1)</h1><pre>GNU grep 3.12        Published 16 January 2026        GREP(1)\n\nNAME grep</pre>"
    document = html.document_fromstring(page(body))
    assert page_dates(document, "https://example.org/p", structured_data(document).objects)[1] == datetime(
        2026, 1, 16, tzinfo=UTC
    )
