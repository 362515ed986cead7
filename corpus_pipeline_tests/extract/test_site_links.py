"""Sitemap listings and inbound links of a website's pages."""

import gzip
from datetime import UTC, datetime

from hypothesis import example, given, settings
from hypothesis import strategies as st

from corpus_pipeline.core.urls import absolutize
from corpus_pipeline.extract.boilerplate import parse_page
from corpus_pipeline.extract.site_links import _folder, page_key, page_links, resolution_base, sitemap_listing
from corpus_pipeline.extract.site_survey import survey_site

SITE = "http://127.0.0.1:8000"


def test_links_are_same_host_pages_without_fragments_tracking_or_self():
    document = parse_page(b"""<html><body>
<a href="/blog/a.html#comments">a</a> <a href="/blog/a.html?utm_source=x">a again</a>
<a href="b.html">b</a> <a href="https://other.org/c">off site</a> <a href="?replytocom=3">self</a>
<a href="mailto:x@example.org">mail</a></body></html>""")
    links = page_links(document, f"{SITE}/blog/index.html")
    assert links == {f"{SITE}/blog/a.html", f"{SITE}/blog/b.html"}


def test_sitemaps_list_entries_and_their_alternates_gzip_or_not():
    urlset = f"""<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
 xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>{SITE}/en/a.html</loc>
<xhtml:link rel="alternate" hreflang="de" href="{SITE}/de/a.html"/></url></urlset>""".encode()
    index = f"""<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{SITE}/s.xml</loc>
</sitemap></sitemapindex>""".encode()
    listed = sitemap_listing([(f"{SITE}/s1.xml", gzip.compress(urlset)), (f"{SITE}/i.xml", index), (SITE, b"not xml")])
    assert listed.keys == {f"{SITE}/en/a.html", f"{SITE}/de/a.html"}


def test_a_sitemaps_paths_are_read_against_its_address_and_its_lastmods_kept():
    # Jekyll's sitemap without `url` set writes paths; hreflang alternates may be paths too.
    urlset = b"""<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>/2013/09/post/</loc><lastmod>2013-09-02T10:00:00+02:00</lastmod>
<xhtml:link rel="alternate" hreflang="de" href="../de/post/"/></url>
<url><loc>about/</loc></url></urlset>"""
    listed = sitemap_listing([(f"{SITE}/blog/sitemap.xml", urlset)])
    assert listed.keys == {f"{SITE}/2013/09/post/", f"{SITE}/de/post/", f"{SITE}/blog/about/"}
    assert f"{SITE}/blog/about/" in listed and f"{SITE}/about/" not in listed
    # Only the entry with a lastmod has one (an alternate has its own entry, or no lastmod).
    assert listed.lastmods == {f"{SITE}/2013/09/post/": datetime(2013, 9, 2, 8, tzinfo=UTC)}


def test_the_survey_counts_linking_pages_once_each_and_knows_the_sitemap():
    pages = [
        (f"{SITE}/a.html", None, b'<a href="/c.html">c</a> <a href="/c.html#x">c</a> <a href="/b.html">b</a>'),
        (f"{SITE}/b.html", None, b'<a href="/c.html">c</a>'),
        (f"{SITE}/c.html", None, b'<a href="/c.html">itself</a>'),
    ]
    sitemap = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{SITE}/c.html</loc></url></urlset>'
    survey = survey_site(pages, [(f"{SITE}/sitemap.xml", sitemap.encode())], workers=1)
    assert survey.facts_for(f"{SITE}/c.html") == {"in_sitemap": True, "inlinks": 2}
    assert survey.facts_for(f"{SITE}/b.html") == {"in_sitemap": False, "inlinks": 1}
    assert survey.facts_for(f"{SITE}/a.html#page=2") == {"in_sitemap": False, "inlinks": 0}


@given(st.text(alphabet="abc/-.?=#", max_size=20))
def test_the_page_key_ignores_fragments(suffix):
    url = f"{SITE}/{suffix}"
    assert page_key(url) == page_key(url.split("#", 1)[0])


_SEGMENTS = st.sampled_from(["a", "b.html", "", ".", "..", "c;p", "d%2Fe", "x?y", "z#f", "index.html", "~u"])


@settings(max_examples=500)
@given(
    st.sampled_from(["http://127.0.0.1:8000", "https://Example.org", "http://h"]),
    st.lists(_SEGMENTS, max_size=4),
    st.lists(_SEGMENTS, min_size=1, max_size=4),
    st.sampled_from(["", "?q=1", "#top", "/"]),
    st.sampled_from(["", "", "http://h/", "HTTPS://Example.org/", "ftp://f", "mailto:"]),
)
@example("http://127.0.0.1:8000", ["a"], ["", ""], "/", "")  # href "//": urljoin returns the base itself
@example("http://h", ["a", "b.html"], ["", "", "x"], "", "")  # href "//x": another host
def test_a_reference_resolves_the_same_against_its_resolution_base_and_the_whole_base(
    host, base_path, path, end, scheme
):
    base = f"{host}/{'/'.join(base_path)}"
    href = (scheme + "/".join(path) + end).strip()
    assert absolutize(href, resolution_base(href, _folder(base), base)) == absolutize(href, base)


def test_links_relative_to_a_folder_query_or_base_tag_are_those_of_the_whole_base():
    document = parse_page(b"""<html><body><a href="../up.html">up</a> <a href="side.html">side</a>
<a href="?page=2">query</a> <a href="sub/./x.html">sub</a></body></html>""")
    # "?page=2" is resolved against the whole base: one.html?page=2, whose key (without ``page``) is not the page's own.
    assert page_links(document, f"{SITE}/docs/one.html?lang=en") == {
        f"{SITE}/up.html", f"{SITE}/docs/side.html", f"{SITE}/docs/sub/x.html", f"{SITE}/docs/one.html"
    }
    assert page_links(document, f"{SITE}/docs/two.html") == {
        f"{SITE}/up.html", f"{SITE}/docs/side.html", f"{SITE}/docs/sub/x.html"
    }
    based = parse_page(b"""<html><head><base href="/other/"></head><body><a href="side.html">side</a></body></html>""")
    assert page_links(based, f"{SITE}/docs/one.html") == {f"{SITE}/other/side.html"}
