from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from corpus_pipeline.core.urls import canonical_url
from corpus_pipeline.dedup.groups import build_canonical_url_groups
from corpus_pipeline.dedup.settings import DEFAULT_URLS_TO_IGNORE
from corpus_pipeline_tests.dedup.conftest import record, records_frame

paths = st.lists(st.text(alphabet="abcdefgh0123-_.", min_size=1, max_size=8), min_size=0, max_size=4).map(lambda p: "/" + "/".join(p))
queries = st.dictionaries(st.sampled_from(["lang", "v", "page", "sort", "q"]), st.text(alphabet="abc123", max_size=4), max_size=3)
ports = st.sampled_from(["", ":8080", ":443"])


def build(path, query, port, fragment=""):
    q = "&".join(f"{k}={v}" for k, v in query.items())
    return f"https://example.org{port}{path}" + (f"?{q}" if q else "") + (f"#{fragment}" if fragment else "")


@given(paths, queries, ports)
def test_canonical_url_is_idempotent(path, query, port):
    key = canonical_url(build(path, query, port))
    assert canonical_url(key) == key


@given(paths, queries, ports, st.text(alphabet="abcxyz-", max_size=6), st.sampled_from(["utm_source=news", "fbclid=x1", "gclid=7", "ref=home"]))
def test_fragments_and_tracking_never_change_the_key(path, query, port, fragment, tracking):
    plain = build(path, query, port)
    noisy = plain + ("&" if "?" in plain else "?") + tracking + (f"#{fragment}" if fragment else "")
    assert canonical_url(noisy) == canonical_url(plain)


@given(paths, ports, st.integers(min_value=1, max_value=999), st.sampled_from(["lang=fr", "v=2"]))
def test_pdf_pages_and_kept_keys_do_change_the_key(path, port, page, kept):
    plain = build(path, {}, port)
    assert canonical_url(f"{plain}#page={page}") != canonical_url(plain)
    assert canonical_url(f"{plain}?{kept}") != canonical_url(plain)


def test_one_row_per_canonical_url_with_the_elected_record():
    old, new = datetime(2024, 1, 1, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
    rows = [
        record("http://e.org/a?utm_source=x", "short", date=new, category="external"),
        record("http://e.org/a", "older but on site", date=old),
        record("http://e.org/a#comments", "newer on site", date=new),
        record("http://e.org/a?replytocom=3", "newer on site and longer", date=new),
        record("http://e.org/b", "page b"),
        record("http://e.org/tag/gardening", "archive"),
        record("http://e.org/c", "", error="no text content found"),
    ]
    groups, counts = build_canonical_url_groups(records_frame(rows), urls_to_ignore=DEFAULT_URLS_TO_IGNORE)
    assert groups["canonical_url"].to_list() == ["http://e.org/a", "http://e.org/b"]
    elected = groups.row(0, named=True)
    # The page at its clean address wins over newer views of it (a fragment, a reply query).
    assert elected["content"] == "older but on site"
    assert elected["candidates"] == 4 and len(elected["candidate_urls"]) == 4
    assert counts["records_ignored"] == 1 and counts["records_unusable"] == 1


def test_same_host_rel_canonical_groups_pages():
    rows = [
        record("http://e.org/print/a", "text", rel_canonical="http://e.org/a"),
        record("http://e.org/a", "text"),
    ]
    groups, _ = build_canonical_url_groups(records_frame(rows), urls_to_ignore=[])
    assert groups.height == 1 and groups["candidates"][0] == 2


def test_keep_query_keys_is_configurable():
    rows = [record("http://e.org/list?page=2", "two"), record("http://e.org/list?page=3", "three")]
    assert build_canonical_url_groups(records_frame(rows), urls_to_ignore=[])[0].height == 1
    assert build_canonical_url_groups(records_frame(rows), urls_to_ignore=[], keep_query_keys=["page"])[0].height == 2


def test_the_groups_are_the_same_whatever_the_order_of_the_records():
    # A night that keeps its groups (canonical_url_groups' memo) digests its records as a set: the crawl's order varies.
    rows = [
        record("http://e.org/a", "same text", date=datetime(2024, 1, 1, tzinfo=UTC)),
        record("http://e.org/a#top", "same text", date=datetime(2024, 1, 1, tzinfo=UTC)),
        record("http://e.org/print/a", "same text", rel_canonical="http://e.org/a"),
        record("http://e.org/b", "page b"),
    ]
    forward, _ = build_canonical_url_groups(records_frame(rows), urls_to_ignore=[])
    backward, _ = build_canonical_url_groups(records_frame(rows[::-1]), urls_to_ignore=[])
    assert forward.equals(backward) and forward["url"].to_list() == ["http://e.org/a", "http://e.org/b"]
