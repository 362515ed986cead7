"""Issue 42 in the dedup: listings stay out unless kept, and the election keeps the document's own page."""

from corpus_pipeline.dedup.election import election_key, names_itself_canonical
from corpus_pipeline.dedup.groups import build_canonical_url_groups
from corpus_pipeline_tests.dedup.conftest import record, records_frame

TEXT = "A post about the evening watering of courgettes, measured over a whole summer. " * 5


def test_listings_and_error_pages_are_dropped_unless_the_website_keeps_them():
    rows = [
        record("http://e.org/2024/05/15/post/", TEXT, page_kind="document"),
        record("http://e.org/2024/05/", TEXT + " More.", page_kind="listing"),
        record("http://e.org/nope/", "Page not found, sorry about that.", page_kind="error_page"),
        record("http://e.org/file.pdf", "A PDF's text.", page_kind=None, kind="pdf"),
    ]
    groups, counts = build_canonical_url_groups(records_frame(rows), urls_to_ignore=())
    assert sorted(groups["url"]) == ["http://e.org/2024/05/15/post/", "http://e.org/file.pdf"]
    assert counts["records_not_documents"] == 2 and counts["records_ignored"] == 0
    kept, _ = build_canonical_url_groups(records_frame(rows), urls_to_ignore=(), keep_listings=True)
    assert kept.height == 4


def test_the_document_wins_over_the_listing_that_shows_it_whatever_its_inlinks_and_address():
    post = record("http://e.org/2024/05/15/a-long-slug-for-the-post/", TEXT, page_kind="document", inlinks=2)
    archive = record("http://e.org/2024/05/", TEXT, page_kind="listing", inlinks=40, in_sitemap=True)
    assert min([archive, post], key=election_key)["url"] == post["url"]


def test_then_the_page_naming_itself_canonical_and_the_target_of_title_links_win():
    url = "http://e.org/post/"
    own = record(url, TEXT, rel_canonical=url, inlinks=0)
    copy = record("http://e.org/p", TEXT, inlinks=9)
    assert names_itself_canonical(own) and not names_itself_canonical(copy)
    assert min([copy, own], key=election_key)["url"] == url
    titled = record("http://e.org/the-post-itself/", TEXT, title_inlinks=3)
    untitled = record("http://e.org/x/", TEXT, title_inlinks=0, inlinks=9, in_sitemap=True)
    assert min([untitled, titled], key=election_key)["url"] == titled["url"]
