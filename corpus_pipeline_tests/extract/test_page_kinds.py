"""Page kinds (issue 42): what a page declares, and what the website's other records show it is."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import polars as pl
from lxml import html

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.page import HtmlPage, parse_html_page
from corpus_pipeline.extract.page_kind import declared_kind, link_list, link_names, page_declarations, title_links
from corpus_pipeline.extract.site_page_kinds import site_page_kinds
from corpus_pipeline.extract.structured_data import structured_data

SITE = "http://blog.test"
_WORDS = (
    "garden soil water seed winter frost compost leaf root branch spring summer autumn harvest tomato bean pea "
    "onion garlic potato carrot beet radish lettuce spinach kale cabbage pepper squash melon berry apple pear plum "
    "cherry orchard fence shed path bed mulch worm bee bird rain sun shade wind cloud stone gravel clay sand"
).split()


def _text(seed: int, words: int = 120) -> str:
    pick = random.Random(seed)
    sentences = []
    while sum(len(s.split()) for s in sentences) < words:
        sentences.append(" ".join(pick.choice(_WORDS) for _ in range(12)).capitalize() + ".")
    lines = [" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)]
    return "\n\n".join(lines)


def _record(
    path: str, content: str, *, title: str | None = None, declared: str = "", links=(), kind=None, h1=None
) -> dict:
    return {
        "url": SITE + path,
        "canonical_url": SITE + path,
        "title": title or path,
        "h1": [h1] if h1 else [],
        "content": content,
        "error": None,
        "page_kind": kind,
        "page_kind_evidence": declared,
        "title_links": [SITE + link for link in links],
    }


def _kinds(records: list[dict]) -> dict[str, str | None]:
    result = site_page_kinds(pl.DataFrame(records))
    return {r["url"][len(SITE) :]: kind for r, kind in zip(records, result.page_kind, strict=True)}


def _excerpt(text: str, words: int = 55) -> str:
    return " ".join(text.split()[:words]) + " [...]"


POSTS = {f"/2024/0{n}/1{n}/post-{n}/": _text(n) for n in range(1, 6)}


def test_a_page_of_other_posts_full_texts_is_a_listing_and_the_posts_are_documents():
    home = "\n\n".join(POSTS.values())
    records = [_record(path, text) for path, text in POSTS.items()] + [_record("/", home)]
    kinds = _kinds(records)
    assert kinds["/"] == "listing"
    assert all(kinds[path] == "document" for path in POSTS)


def test_a_page_of_excerpts_is_a_listing():
    tag = "\n\n".join(f"Post {n}\n\n{_excerpt(text)}" for n, text in enumerate(POSTS.values()))
    records = [_record(path, text) for path, text in POSTS.items()] + [_record("/topics/soil/", tag)]
    assert _kinds(records)["/topics/soil/"] == "listing"


def test_a_month_archive_holding_one_post_is_the_listing_by_its_title_link():
    (path, text), *_ = POSTS.items()
    records = [_record(path, text), _record("/2024/01/", text, links=[path])]
    kinds = _kinds(records)
    assert kinds == {path: "document", "/2024/01/": "listing"}


def test_the_same_text_with_canonical_declarations_decides_without_links():
    (path, text), *_ = POSTS.items()
    records = [
        _record(path, text, declared="canonical:self"),
        _record("/2024/01/", text, declared="canonical:none"),
    ]
    assert _kinds(records) == {path: "document", "/2024/01/": "listing"}


def test_two_copies_with_nothing_to_tell_them_apart_stay_documents_for_the_dedup():
    (path, text), *_ = POSTS.items()
    kinds = _kinds([_record(path, text), _record("/copy/", text)])
    assert kinds == {path: "document", "/copy/": "document"}


def test_a_document_quoting_another_posts_opening_stays_a_document():
    first, second = list(POSTS.values())[:2]
    quoting = _text(99, 400) + "\n\nAs I wrote before: " + _excerpt(first, 30)
    kinds = _kinds([_record("/a/", first), _record("/b/", second), _record("/c/", quoting)])
    assert kinds == {"/a/": "document", "/b/": "document", "/c/": "document"}


def test_a_declared_post_that_embeds_two_teasers_stays_a_document():
    first, second = list(POSTS.values())[:2]
    post = _text(77, 600) + "\n\n" + _excerpt(first, 25) + "\n\n" + _excerpt(second, 25)
    records = [_record("/a/", first), _record("/b/", second), _record("/c/", post, declared="body:single")]
    assert _kinds(records)["/c/"] == "document"


def test_a_list_of_linked_titles_is_a_listing():
    titles = {path: f"The story of the {n} garden" for n, path in enumerate(POSTS)}
    index = "\n\n".join(f"{title}\n\nMarch {n}, 2024" for n, title in enumerate(titles.values()))
    records = [_record(path, text, title=titles[path]) for path, text in POSTS.items()]
    records.append(_record("/archives/", index, links=list(POSTS)))
    assert _kinds(records)["/archives/"] == "listing"


def test_an_index_of_linked_titles_with_bylines_and_summaries_is_a_listing():
    # A Pelican index page: each entry adds a date, a byline, a category, tags, a summary of its own and "read more".
    titles = {path: f"The story of the {n} garden" for n, path in enumerate(POSTS)}
    index = "\n\n".join(
        f"{title}\n\nPublished: 2024-03-0{n}\n\nBy Ann\n\nIn Garden.\n\ntags: spring\n\nNotes of the season.\n\nread more"
        for n, title in enumerate(titles.values())
    )
    records = [_record(path, text, title=titles[path]) for path, text in POSTS.items()]
    records.append(_record("/index2.html", index, links=list(POSTS)))
    kinds = _kinds(records)
    assert kinds["/index2.html"] == "listing"
    assert all(kinds[path] == "document" for path in POSTS)


def test_an_archive_of_dated_titles_without_heading_links_is_a_listing():
    # Pelican's archives.html: a date line, then the post's title in a <dd>; no heading links to the posts.
    titles = {path: f"Release {n}.0.{n}" for n, path in enumerate(POSTS)}
    archive = "Archives\n\n" + "\n\n".join(f"March 0{n}, 2024\n\n{title}" for n, title in enumerate(titles.values()))
    records = [_record(path, text, title=titles[path]) for path, text in POSTS.items()]
    records.append(_record("/archives.html", archive, title="Archives"))
    kinds = _kinds(records)
    assert kinds["/archives.html"] == "listing"
    assert all(kinds[path] == "document" for path in POSTS)


def test_a_tag_cloud_naming_tag_pages_with_counts_is_a_listing():
    records = [_record(path, text, title=f"Story {n}") for n, (path, text) in enumerate(POSTS.items())]
    records += [
        _record("/tag/bugfix-release.html", _excerpt(_text(21)), title="Tag: bugfix release"),
        _record("/tag/feature-release.html", _excerpt(_text(22)), title="Tag: feature release"),
        _record("/tags.html", "bugfix release (13)\n\nfeature release (32)", title="Tags"),
    ]
    assert _kinds(records)["/tags.html"] == "listing"


def test_a_page_with_text_of_its_own_around_a_list_of_titles_stays_a_document():
    titles = {path: f"Story {n}" for n, path in enumerate(POSTS)}
    guide = _text(31, words=40) + "\n\n" + "\n\n".join(titles.values()) + "\n\n" + _text(32, words=40)
    records = [_record(path, text, title=titles[path]) for path, text in POSTS.items()]
    records.append(_record("/guide/", guide, title="A guide"))
    assert _kinds(records)["/guide/"] == "document"


def test_a_post_whose_headings_link_elsewhere_but_whose_text_lists_no_titles_stays_a_document():
    # A related-posts box links other posts from its headings, outside the post's own text.
    records = [_record(path, text, title=f"Story {n}") for n, (path, text) in enumerate(POSTS.items())]
    records.append(_record("/2024/07/17/post-7/", _text(7), title="Story 7", links=list(POSTS)))
    assert _kinds(records)["/2024/07/17/post-7/"] == "document"


def test_declared_archive_without_shown_posts_is_still_a_listing_and_an_error_page_is_an_error_page():
    records = [
        _record(
            "/category/empty/",
            "Nothing here yet, come back later when we have written something.",
            declared="body:archive canonical:none",
            kind="listing",
        ),
        _record("/missing/", "Sorry, the page you were looking for is not here.", title="Page not found"),
    ]
    assert _kinds(records) == {"/category/empty/": "listing", "/missing/": "error_page"}


def test_title_inlinks_count_listings_linking_to_a_page_by_title():
    home = "\n\n".join(POSTS.values())
    records = [_record(path, text) for path, text in POSTS.items()] + [_record("/", home, links=list(POSTS))]
    result = site_page_kinds(pl.DataFrame(records))
    assert result.title_inlinks == [1] * len(POSTS) + [0]


def _page(body_class: str = "", head: str = "", body: str = "") -> html.HtmlElement:
    return html.fromstring(f'<html><head>{head}</head><body class="{body_class}">{body}</body></html>')


def _declarations(document: html.HtmlElement, url: str, rel_canonical: str | None) -> dict:
    return page_declarations(document, url, rel_canonical, structured_data(document).types)


def test_wordpress_body_classes_declare_listings_documents_and_error_pages():
    archive = _declarations(_page("archive category category-news"), SITE + "/category/news/", None)
    assert archive["page_kind"] == "listing" and "body:archive" in archive["page_kind_evidence"]
    post = _declarations(_page("single single-post postid-7"), SITE + "/p/", SITE + "/p/")
    assert post["page_kind"] is None and "canonical:self" in post["page_kind_evidence"]
    assert declared_kind(post["page_kind_evidence"].split()) is None
    missing = _declarations(_page("error404"), SITE + "/nope/", None)
    assert missing["page_kind"] == "error_page"
    blog = _declarations(_page("home blog paged paged-2"), SITE + "/page/2/", None)
    assert blog["page_kind"] == "listing" and "pagination" in blog["page_kind_evidence"]


def test_structured_data_declares_a_collection():
    head = '<script type="application/ld+json">{"@type": "CollectionPage", "name": "News"}</script>'
    declared = _declarations(_page(head=head), SITE + "/news/", None)
    assert declared["page_kind"] == "listing" and "ld:collectionpage" in declared["page_kind_evidence"]


def test_title_links_are_the_same_host_links_of_headings_and_bookmarks():
    body = (
        '<h1><a href="/">Blog</a></h1><h2 class="entry-title"><a href="/a/">A</a></h2>'
        '<a rel="bookmark" href="/b/#more">B</a><a href="/c/">not a title</a>'
        '<h2><a href="http://elsewhere.test/x/">off site</a></h2><h2><a href="/list/">itself</a></h2>'
    )
    assert title_links(_page(body=body), SITE + "/list/") == [SITE + "/", SITE + "/a/", SITE + "/b/"]


def test_a_link_with_another_rel_is_a_title_link_in_a_heading_only():
    body = '<a rel="home" href="/home/">Home</a><h3><span><a rel="nofollow" href="/d/">D</a></span></h3>'
    assert title_links(_page(body=body), SITE + "/list/") == [SITE + "/d/"]


def test_a_month_archive_of_one_dated_title_is_a_listing_even_marked_up_as_an_article():
    # jekyll-seo-tag marks every page up as a BlogPosting, its date archives too.
    titles = {path: f"Release {n}.0.{n}" for n, path in enumerate(POSTS)}
    records = [_record(path, text, title=titles[path], declared="ld:article") for path, text in POSTS.items()]
    records.append(
        _record("/2024/03/", "1 post\n\nMarch 3, 2024\n\nRelease 1.0.1", title="March 2024", declared="ld:article")
    )
    records.append(_record("/2024/", "Release 1.0.1\n\nRelease 2.0.2", title="2024", declared="ld:article"))
    kinds = _kinds(records)
    assert kinds["/2024/03/"] == "listing"
    assert kinds["/2024/"] == "listing"
    assert all(kinds[path] == "document" for path in POSTS)


def test_a_short_post_with_a_line_named_like_a_tag_stays_a_document():
    records = [_record(path, text, title=f"Story {n}") for n, (path, text) in enumerate(POSTS.items())]
    records += [
        _record("/tag/bugfix-release.html", _excerpt(_text(21)), title="Tag: bugfix release"),
        _record("/release-0-11.html", "Bugfix release\n\nFixed an uncaught value error.", title="Release 0.11"),
    ]
    assert _kinds(records)["/release-0-11.html"] == "document"


def test_entries_of_a_title_and_a_date_on_one_line_make_a_listing():
    # Chirpy's and a Hugo theme's archives: "structlog 0.4.1 Dec 19, 2013", "Aug 20 attrs 15.1.0".
    titles = {path: f"gardenlog {n}.{n}.1" for n, path in enumerate(POSTS)}
    records = [_record(path, text, title=titles[path], declared="ld:article") for path, text in POSTS.items()]
    lines = [f"{title} Dec 1{n}, 2013" for n, title in enumerate(titles.values())]
    records.append(_record("/2013/", "\n\n".join(lines), title="2013", declared="ld:article"))
    records.append(_record("/archives/2013-12/", "1 posts\n\nDec 10 gardenlog 0.0.1", title="December 2013"))
    kinds = _kinds(records)
    assert kinds["/2013/"] == "listing"
    assert kinds["/archives/2013-12/"] == "listing"
    assert all(kinds[path] == "document" for path in POSTS)


def test_a_tiny_declared_post_naming_itself_and_parts_of_other_titles_stays_a_document():
    # A WordPress release post: "Initial release", then an image caption repeating its own title.
    titles = {path: f"gardenlog 0.{n}.0" for n, path in enumerate(POSTS)}
    records = [_record(path, text, title=titles[path], declared="body:single") for path, text in POSTS.items()]
    records.append(_record("/initial/", _excerpt(_text(40)), title="Initial release notes"))
    records.append(
        _record(
            "/0-9-0/",
            "Initial release\n\nIllustration: gardenlog 0.9.0",
            title="gardenlog 0.9.0",
            declared="body:single",
        )
    )
    assert _kinds(records)["/0-9-0/"] == "document"


def test_a_link_to_the_next_page_of_a_list_declares_pagination_a_link_to_the_next_chapter_does_not():
    first_page = _declarations(_page(head='<link rel="next" href="/category/news/page/2/">'),
                              SITE + "/category/news/", None)
    assert "pagination" in first_page["page_kind_evidence"]
    # Sphinx, DocBook and MkDocs name the next and previous chapters: documents of their own.
    chapter = _declarations(_page(head='<link rel="next" href="apt.html"><link rel="prev" href="intro.html">'),
                           SITE + "/en-US/packaging.html", None)
    assert "pagination" not in chapter["page_kind_evidence"]


def test_untranslated_copies_of_a_chapter_stay_documents_for_the_dedup():
    # A multilingual manual: the French folder holds the English chapters not yet translated, word for word.
    chapters = {f"/en-US/chapter-{n}.html": text for n, text in enumerate(POSTS.values())}
    head = '<link rel="prev" href="chapter-0.html"><link rel="next" href="chapter-2.html">'
    records = []
    for folder in ("/en-US/", "/fr-FR/"):
        for n, (path, text) in enumerate(chapters.items()):
            address = path.replace("/en-US/", folder)
            declared = _declarations(_page(head=head), SITE + address, None)["page_kind_evidence"]
            records.append(_record(address, text, title=f"Chapter {n}", declared=declared))
    assert set(_kinds(records).values()) == {"document"}


def test_a_page_showing_most_of_its_partial_translations_stays_a_document():
    # The Debian handbook: a German and a French chapter translate the opening and leave most of the rest in English,
    # the last sections left out.
    english = _text(60, words=300).split()
    body = " ".join(english[40:220])
    pages = {"/en-US/apt.html": " ".join(english),
             "/de-DE/apt.html": "Die Pakete werden geladen und geprüft. " * 6 + "\n\n" + body,
             "/fr-FR/apt.html": "Les paquets sont chargés et vérifiés. " * 6 + "\n\n" + body}
    alternates = [{"lang": path[1:3], "url": SITE + path} for path in pages]
    records = [_record(path, text, title="APT", declared="canonical:none") | {"alternates": alternates}
               for path, text in pages.items()]
    records += [_record(path, text) for path, text in POSTS.items()]
    assert set(_kinds(records).values()) == {"document"}


# Chirpy's tag cloud (each link's count in a span inside it) and an index of month archives (the count beside it).
TAG_CLOUD = "".join(
    f'<div><a class="tag" href="/tags/{tag}/">{tag}<span>{count}</span></a></div>'
    for tag, count in (("added", 32), ("changed", 23), ("fixed", 29), ("removed", 7))
)
MONTHS = "<ul>" + "".join(
    f'<li><a href="/{year}/">{year}</a> (2)<ul><li><a href="/{year}/06/">June {year}</a> (1)</li>'
    f'<li><a href="/{year}/03/">March {year}</a> (1)</li></ul></li>'
    for year in (2024, 2025)
) + "</ul>"
TEMPLATE = '<nav><a href="/">Home</a><a href="/about/">About</a></nav>'


def test_a_page_whose_lines_are_its_links_to_the_website_is_a_list_of_links():
    tags = _page(body=TEMPLATE + TAG_CLOUD)
    assert link_list("added32\n\nchanged23\n\nfixed29\n\nremoved7", link_names(tags, SITE + "/tags/")) == 4
    months = _page(body=TEMPLATE + MONTHS)
    lines = "2024 (2)\n\nJune 2024 (1)\n\nMarch 2024 (1)\n\n2025 (2)\n\nJune 2025 (1)\n\nMarch 2025 (1)"
    assert link_list(lines, link_names(months, SITE + "/months/")) == 6


def test_a_short_post_with_a_heading_named_like_a_tag_link_is_no_list_of_links():
    # WordPress: a two-line release post, its change heading named like the tag its template links to.
    post = _page(body=TEMPLATE + '<h2>Fixed</h2><p>Support windows newlines.</p><a href="/tag/fixed/">Fixed</a>'
                 '<a href="/author/editor/">editor</a><a href="/category/releases/">Releases</a>')
    names = link_names(post, SITE + "/2021/05/10/dotenv-9-0-2/")
    assert {"fixed", "editor", "releases"} <= names
    assert link_list("Fixed\n\nSupport windows newlines.\n\neditor", names) == 0  # 2 lines of 3 are links
    assert link_list("Fixed\n\nSupport windows newlines with debug mode and more.\n\neditor\n\nReleases", names) == 0
    # Text of its own, however many links stand around it.
    assert link_list("Home\n\nAbout\n\n" + _text(5, words=30), link_names(post, SITE + "/x/")) == 0


def test_links_elsewhere_and_in_page_anchors_name_no_page_of_the_website():
    body = '<a href="http://elsewhere.test/a/">Elsewhere</a><a href="#top">Top</a><a href="mailto:a@b.test">Mail</a>'
    assert link_names(_page(body=body + '<a href="http://blog.test/b/">B page</a>'), SITE + "/x/") == {"b page"}


def test_a_list_of_links_is_a_listing_whatever_the_titles_of_the_pages_it_links_to():
    # Month archives titled as the website is, a page marked up as an article: the links alone tell.
    titles = {path: f"Release {n}.0.{n}" for n, path in enumerate(POSTS)}
    records = [_record(path, text, title=titles[path], declared="ld:article") for path, text in POSTS.items()]
    records += [_record(f"/2024/0{n}/", _excerpt(POSTS[path]), title="My blog") for n, path in enumerate(POSTS, 1)]
    months = "\n\n".join(f"March 2024 ({n})" for n in range(1, 6))
    records.append(_record("/months/", months, title="Months", declared="ld:article canonical:self link-list:5"))
    records.append(_record("/about/", months, title="About", declared="ld:article canonical:self"))
    kinds = _kinds(records)
    assert kinds["/months/"] == "listing"
    assert kinds["/about/"] == "document"  # the same lines, no link behind them
    assert all(kinds[path] == "document" for path in POSTS)


def test_a_parsed_index_of_month_archives_declares_its_list_of_links():
    # The website's markup names the element of its content (Chirpy's post-content), as a registry entry may.
    entry = {"name": "site", "url": "http://127.0.0.1:8000/", "markup": "div.post-content"}
    site = parse_registry({"websites": [entry]}).websites[0]
    page = (
        "<html lang='en'><head><title>Months</title></head><body>" + TEMPLATE
        + f"<main><article><h1>Months</h1><div class='post-content'>{MONTHS}</div></article></main></body></html>"
    )
    fetched = datetime(2024, 3, 12, tzinfo=UTC)
    record = parse_html_page(HtmlPage("http://127.0.0.1:8000/months/", page.encode(), "text/html", fetched), site)
    assert "link-list:6" in record["page_kind_evidence"].split(), (record["content"], record["page_kind_evidence"])
