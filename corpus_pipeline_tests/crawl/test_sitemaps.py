"""Streaming sitemap reader: the same items as the document holds, and SitemapError as the only failure."""

import gzip

from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_pipeline.crawl.sitemaps import ChildSitemap, SitemapEntry, SitemapError, iter_sitemap

SLUGS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=30)


def urlset(locs: list[str]) -> bytes:
    entries = "".join(f"<url><loc>{loc}</loc><lastmod>2026-01-02</lastmod></url>\n" for loc in locs)
    return (
        f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'.encode()
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(SLUGS, max_size=300), st.booleans())
def test_every_entry_comes_back_in_order_plain_or_gzipped(slugs, compressed):
    locs = [f"https://example.org/{slug}" for slug in slugs]
    data = urlset(locs)
    items = list(iter_sitemap(gzip.compress(data) if compressed else data, 10 * 2**20))
    assert [item.loc for item in items] == locs
    assert all(isinstance(item, SitemapEntry) and item.lastmod is not None for item in items)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000) | st.text(max_size=500).map(lambda t: f"<urlset><url><loc>{t}".encode()))
def test_any_bytes_give_items_or_a_sitemap_error(data):
    try:
        items = list(iter_sitemap(data, 2**20))
    except SitemapError:
        return
    assert all(isinstance(item, (SitemapEntry, ChildSitemap)) for item in items)


def test_an_index_gives_its_children_and_nested_urls_are_not_entries():
    index = (
        b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc> https://e.org/a.xml </loc>'
        b"</sitemap><sitemap><loc></loc></sitemap><other><sitemap><loc>https://e.org/no.xml</loc></sitemap></other>"
        b"</sitemapindex>"
    )
    assert list(iter_sitemap(index, 2**20)) == [ChildSitemap("https://e.org/a.xml")]


def test_a_gzip_bomb_stops_at_the_cap():
    bomb = gzip.compress(b"<urlset>" + b" " * (4 * 2**20) + b"</urlset>")
    try:
        list(iter_sitemap(bomb, 2**20))
    except SitemapError as exc:
        assert "cap" in str(exc)
    else:
        raise AssertionError("the bomb was read past the cap")


def test_a_loc_written_as_a_path_is_read_against_the_base_url_and_left_alone_without_one():
    body = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>/a/b/</loc></url></urlset>'
    assert [item.loc for item in iter_sitemap(body, 1 << 20, base_url="http://x.test/sitemap.xml")] == [
        "http://x.test/a/b/"
    ]
    assert [item.loc for item in iter_sitemap(body, 1 << 20)] == ["/a/b/"]
