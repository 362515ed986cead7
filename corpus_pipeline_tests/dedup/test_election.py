"""The election among copies of one text: the page the website puts forward wins, recency only breaks ties."""

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from corpus_pipeline.dedup.election import election_key, path_cleanliness
from corpus_pipeline_tests.dedup.conftest import record

OLD, NEW = datetime(2024, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)


def elected(*records: dict) -> str:
    return min(records, key=election_key)["url"]


def test_the_page_the_sitemap_lists_wins_over_links_address_and_recency():
    listed = record("http://e.org/blog/2024/the-long-address-of-the-post.html", "t", in_sitemap=True, inlinks=0, date=OLD)
    unlisted = record("http://e.org/p.html", "t", in_sitemap=False, inlinks=9, date=NEW)
    assert elected(unlisted, listed) == listed["url"]


def test_among_listed_pages_the_one_others_link_to_wins_over_address_and_recency():
    linked = record("http://e.org/blog/post-04-long.html", "t", in_sitemap=True, inlinks=3, date=OLD)
    orphan = record("http://e.org/blog/p4.html", "t", in_sitemap=True, inlinks=0, date=NEW)
    assert elected(orphan, linked) == linked["url"]


def test_then_the_shortest_clean_path_wins_over_recency():
    original = record("http://e.org/blog/post-04.html", "t", in_sitemap=True, inlinks=2, date=OLD)
    reprint = record("http://e.org/blog/post-04-reprint.html", "t", in_sitemap=True, inlinks=2, date=NEW)
    view = record("http://e.org/blog/p.html?replytocom=3", "t", in_sitemap=True, inlinks=2, date=NEW)
    assert elected(reprint, view, original) == original["url"]


def test_recency_decides_only_between_equally_put_forward_pages():
    older = record("http://e.org/a/1.html", "t", date=OLD)
    newer = record("http://e.org/b/2.html", "t", date=NEW)
    assert elected(older, newer) == newer["url"]


def test_unknown_facts_count_as_not_listed_and_not_linked():
    unknown = record("http://e.org/a.html", "t", in_sitemap=None, inlinks=None, date=NEW)
    listed = record("http://e.org/longer-address.html", "t", in_sitemap=True, inlinks=None, date=OLD)
    assert elected(unknown, listed) == listed["url"]


def test_external_copies_and_untranslated_copies_still_lose_first():
    external = record("http://other.org/a", "t", category="external", in_sitemap=True, inlinks=50)
    on_site = record("http://e.org/a-much-longer-address.html", "t")
    assert elected(external, on_site) == on_site["url"]


@given(st.text(alphabet="abc/-.", max_size=20), st.sampled_from(["?x=1", "#top", "?replytocom=3#respond"]))
def test_a_query_or_fragment_is_never_cleaner_than_the_bare_path(path, suffix):
    bare = f"http://e.org/{path}"
    assert path_cleanliness(bare) < path_cleanliness(bare + suffix)
