"""Links of a page: the shortcuts give what the plain computation gives."""

from hypothesis import example, given
from hypothesis import strategies as st

from corpus_pipeline.core.urls import absolutize
from corpus_pipeline.crawl.links import _PLAIN_BASE, extract_links, join_link

# Paths of segments, plain ones and near misses (dot segments, empty ones, a scheme, a query, parameters...).
segments = st.sampled_from(["a", "b.html", "..", ".", "", "...", ".x", "x%20y", "é", "a;b", "a:b", "q?x", "f#g", "a@b"])
hrefs = st.one_of(
    st.builds(lambda parts, lead, trail: lead + "/".join(parts) + trail, st.lists(segments, min_size=1, max_size=4),
              st.sampled_from(["", "/", "//"]), st.sampled_from(["", "/"])),
    st.text(alphabet="ab./-_~%@=;:?#&+ é", max_size=14),
    st.builds(lambda prefix, rest: prefix + rest, st.sampled_from(["./", "../", "/", "//", ".", "a/", "x:"]),
              st.text(alphabet="ab./:;?#", max_size=10)),
)
plain_bases = st.builds(
    lambda scheme, host, path: f"{scheme}://{host}{path}",
    st.sampled_from(["http", "https"]), st.sampled_from(["example.org", "h:8080"]),
    st.sampled_from(["/", "/a/b.html", "/a/", "/a.b/c"]),
)
other_bases = st.builds(
    lambda scheme, host, path, tail: f"{scheme}://{host}{path}{tail}",
    st.sampled_from(["http", "https", "HTTP"]),
    st.sampled_from(["example.org", "h:8080", "[::1]:8", "user@h"]),
    st.sampled_from(["", "/", "/a/b.html", "/a//b/", "/a/./b", "/a/../b", "/b;p/c", "/a/..", "/a/.", "/x:y/z"]),
    st.sampled_from(["", "#frag", "?a=/b/c"]),
)
bases = st.one_of(plain_bases, other_bases)


@given(hrefs, bases)
@example("b.html", "http://h/a/c.html")
@example("b/", "http://h/a/")
@example("..", "http://h/a/b")
@example("./b", "http://h/a/b")
@example("a//b", "http://h/x/")
@example("a:b", "http://h/x/")
@example("b", "http://h")
@example("/a/b/", "http://h:8/x/y.html")
@example("/", "http://h/x/")
@example("//h2/a", "http://h/x/")
@example("/a/../b", "http://h/x/")
def test_join_link_is_absolutize(href, base):
    href = href.strip()
    folder = base[: base.rfind("/") + 1] if _PLAIN_BASE.fullmatch(base) else None
    assert join_link(href, base, folder) == absolutize(href, base)


PAGE = b"""<html><head><base href="/docs/"><link rel="alternate" hreflang="de" href="/de/page.html">
<link rel="stylesheet" href="style.css"></head><body>
<a href="intro.html#top">Intro</a><a href="../up.html">Up</a><a href="sub/page.html">Sub</a>
<a href="https://other.example/x">Other</a><a href="intro.html">Again</a><a rel="NoFollow" href="no.html">No</a>
<map><area href="area.html"></map><a href="mailto:someone@example.org">Mail</a></body></html>"""


def test_links_in_document_order_with_or_without_the_alternates():
    with_alternates = extract_links(PAGE, "http://h:8/section/page.html")
    without = extract_links(PAGE, "http://h:8/section/page.html", alternates=False)
    expected = ("http://h:8/docs/intro.html", "http://h:8/up.html", "http://h:8/docs/sub/page.html",
                "https://other.example/x", "http://h:8/docs/area.html")
    assert with_alternates.links == without.links == expected
    assert with_alternates.alternates == {"de": "http://h:8/de/page.html"}
    assert without.alternates == {}


def test_a_page_whose_links_are_not_followed_is_read_for_its_robots_tags_and_translations_alone():
    body = PAGE.replace(b"</head>", b'<meta name="ROBOTS" content="noindex"></head>')
    whole = extract_links(body, "http://h:8/section/page.html", robots_names=frozenset({"robots"}))
    unfollowed = extract_links(body, "http://h:8/section/page.html", robots_names=frozenset({"robots"}), links=False)
    assert whole.links and unfollowed.links == ()
    assert unfollowed.alternates == whole.alternates == {"de": "http://h:8/de/page.html"}, "resolved against <base>"
    assert unfollowed.robots_meta == whole.robots_meta == ("noindex",)
