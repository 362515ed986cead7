"""Sitemap listings and inbound links of a website's pages."""

import gzip

from hypothesis import given
from hypothesis import strategies as st

from corpus_pipeline.extract.boilerplate import parse_page
from corpus_pipeline.extract.site_links import page_key, page_links, sitemap_listing
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
    listed = sitemap_listing([gzip.compress(urlset), index, b"not xml"])
    assert listed == {f"{SITE}/en/a.html", f"{SITE}/de/a.html"}


def test_the_survey_counts_linking_pages_once_each_and_knows_the_sitemap():
    pages = [
        (f"{SITE}/a.html", None, b'<a href="/c.html">c</a> <a href="/c.html#x">c</a> <a href="/b.html">b</a>'),
        (f"{SITE}/b.html", None, b'<a href="/c.html">c</a>'),
        (f"{SITE}/c.html", None, b'<a href="/c.html">itself</a>'),
    ]
    sitemap = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{SITE}/c.html</loc></url></urlset>'
    survey = survey_site(pages, [sitemap.encode()], workers=1)
    assert survey.facts_for(f"{SITE}/c.html") == {"in_sitemap": True, "inlinks": 2}
    assert survey.facts_for(f"{SITE}/b.html") == {"in_sitemap": False, "inlinks": 1}
    assert survey.facts_for(f"{SITE}/a.html#page=2") == {"in_sitemap": False, "inlinks": 0}


@given(st.text(alphabet="abc/-.?=#", max_size=20))
def test_the_page_key_ignores_fragments(suffix):
    url = f"{SITE}/{suffix}"
    assert page_key(url) == page_key(url.split("#", 1)[0])
