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


FILLER = "<p>" + "Body text. " * 400 + "</p>"
UTF7_NOINDEX = b"+ADw-meta name+AD0-robots content+AD0-noindex+AD4-"  # <meta name=robots content=noindex> in UTF-7
HEADS = {
    "plain": '<meta charset="utf-8"><meta name="robots" content="noindex"><title>t</title>',
    "upper case, other attributes first": "<META CONTENT=NOINDEX NAME=ROBOTS>",
    "a > inside the last tag's quotes": '<meta name="robots" content="x>y, noindex">',
    "a spelling in a script before": '<script>var m = "<meta name=robots content=none>";</script>'
                                     '<meta name="robots" content="noindex">',
    "a spelling in a comment after": '<meta name="robots" content="noindex"><!-- <meta name="robots" content="none"> -->',
    "a <metadata> element": '<meta name="robots" content="noindex"><metadata>x</metadata>',
    "the declared encoding after the tag": '<meta name="robots" content="noindex\u00a0"><meta charset="utf-8">',
    "an unclosed comment": '<meta name="robots" content="noindex"><!-- <meta name="robots" content="none">',
    "the page ends inside the tag": '<meta name="robots" content="noindex',
}


def test_the_head_of_a_page_gives_the_robots_tags_and_translations_the_whole_page_gives():
    bodies = [f"<html><head>{head}</head><body>{FILLER}</body></html>".encode() for head in HEADS.values()]
    bodies += [
        # The tags far down the page (a meta tag in the body, a <base> after the translations).
        f"<html><head></head><body>{FILLER}<meta name=robots content=nofollow></body></html>".encode(),
        b'<html><head><link rel="alternate" hreflang="de" href="de.html"><base href="/x/"></head><body>'
        + FILLER.encode() + b'<base href="/y/"></body></html>',
        b'<html><head><link rel="alternate" hreflang="de" href="de.html"></head><body>' + FILLER.encode()
        + b'<base href="/y/"></body></html>',
        # Encodings in which the tags are not ASCII bytes: UTF-7 (declared two ways), UTF-16, and an XML declaration
        # naming one (which this parser may or may not follow).
        b'<html><head><meta charset="utf-7">' + UTF7_NOINDEX + b"</head><body>" + FILLER.encode() + b"</body></html>",
        b'<html><head><meta http-equiv="content-type" content="text/html; charset=UTF-7">' + UTF7_NOINDEX
        + b"</head><body>" + FILLER.encode() + b"</body></html>",
        f"<html><head><meta name=robots content=noindex></head><body>{FILLER}</body></html>".encode("utf-16"),
        b'<?xml version="1.0" encoding="utf-7"?><html><head>' + UTF7_NOINDEX + b"</head><body>" + FILLER.encode()
        + b"<meta name=robots content=nofollow></body></html>",
    ]
    names = frozenset({"robots"})
    said = 0
    for body in bodies:
        whole = extract_links(body, "http://h/a/b.html", robots_names=names)
        for alternates in (False, True):
            head = extract_links(body, "http://h/a/b.html", robots_names=names, links=False, alternates=alternates)
            assert head.robots_meta == whole.robots_meta, body[:120]
            assert head.alternates == (whole.alternates if alternates else {}), body[:120]
        said += bool(whole.robots_meta)
    assert said == len(bodies) - 3, "every page but the three without a robots tag says one"
