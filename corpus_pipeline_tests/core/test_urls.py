from urllib.parse import urljoin, urlsplit

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from corpus_pipeline.core.urls import InvalidUrlError, absolutize, canonical_url, normalize_url

hosts = st.sampled_from(["example.org", "Example.ORG", "127.0.0.1", "docs.example.org"])
ports = st.sampled_from(["", ":80", ":8080", ":443"])
segments = st.lists(st.text(alphabet="abcXYZ019-._~%20é", min_size=1, max_size=6), max_size=4)
query_pairs = st.lists(
    st.tuples(st.sampled_from(["q", "page", "lang", "v", "id"]), st.text(alphabet="abc123", max_size=4)), max_size=3
)


@st.composite
def urls(draw):
    scheme = draw(st.sampled_from(["http", "https", "HTTP"]))
    path = "/" + "/".join(draw(segments))
    query = "&".join(f"{k}={v}" for k, v in draw(query_pairs))
    return f"{scheme}://{draw(hosts)}{draw(ports)}{path}" + (f"?{query}" if query else "")


@given(urls())
def test_normalization_is_idempotent(url):
    once = normalize_url(url)
    assert normalize_url(once) == once


@given(urls(), st.text(alphabet="abc-_", max_size=8), st.sampled_from(["utm_source=x", "fbclid=1", "gclid=2", "ref=hn"]))
def test_fragments_and_tracking_parameters_never_change_the_crawl_key(url, fragment, tracking):
    separator = "&" if "?" in url else "?"
    assert normalize_url(f"{url}{separator}{tracking}#{fragment}") == normalize_url(url)


def test_default_ports_are_dropped_and_others_kept():
    assert normalize_url("http://Example.org:80/a") == "http://example.org/a"
    assert normalize_url("https://example.org:443/") == "https://example.org/"
    assert normalize_url("http://127.0.0.1:8000/a") == "http://127.0.0.1:8000/a"
    assert canonical_url("http://127.0.0.1:8000/a?x=1") == "http://127.0.0.1:8000/a"


def test_dot_segments_and_percent_encoding_have_one_spelling():
    assert normalize_url("http://e.org/a/./b/../c") == "http://e.org/a/c"
    assert normalize_url("http://e.org/%7euser/%c3%a9") == normalize_url("http://e.org/~user/é")
    assert normalize_url("http://e.org") == "http://e.org/"


def test_query_order_does_not_matter_for_the_crawl_key():
    assert normalize_url("http://e.org/?b=2&a=1") == normalize_url("http://e.org/?a=1&b=2")


def test_canonical_url_keeps_lang_v_and_pdf_pages_only():
    assert canonical_url("http://e.org/a?lang=fr&sort=asc&v=2#top") == "http://e.org/a?lang=fr&v=2"
    assert canonical_url("http://e.org/doc.pdf#page=3") == "http://e.org/doc.pdf#page=3"
    assert canonical_url("http://e.org/a?sort=asc", keep_query_keys=["sort"]) == "http://e.org/a?sort=asc"


@pytest.mark.parametrize("bad", ["mailto:a@b.c", "/relative", "ftp://e.org/", "http://", "http://e.org:99999/"])
def test_non_web_urls_are_refused(bad):
    with pytest.raises(InvalidUrlError):
        normalize_url(bad)


def test_absolutize_resolves_links_and_drops_non_web_ones():
    assert absolutize("//cdn.example.org/x", "https://e.org/a/") == "https://cdn.example.org/x"
    assert absolutize("../b", "http://127.0.0.1:8000/a/c/") == "http://127.0.0.1:8000/a/b"
    assert absolutize("/b", "http://127.0.0.1:8000/a/") == "http://127.0.0.1:8000/b"
    for link in ("#top", "mailto:x@y.z", "javascript:void(0)", "tel:123", "  "):
        assert absolutize(link, "http://e.org/") is None


hrefs = st.one_of(
    st.text(alphabet="ab/.?#;:=&%é []", max_size=12),
    st.builds(
        lambda prefix, rest: prefix + rest,
        st.sampled_from(["http://", "https://", "HTTP://", "http:", "//", "/", "../", "ftp://", " http://"]),
        st.text(alphabet="abc.:-/;?#=&%[]_~@é", max_size=16),
    ),
)
bases = st.builds(
    lambda scheme, host, path, tail: f"{scheme}://{host}{path}{tail}",
    st.sampled_from(["http", "https"]),
    st.sampled_from(["example.org", "h:8080", "[::1]:8"]),
    st.sampled_from(["", "/", "/a/b.html", "/b;p/c", "/../x/./y"]),
    st.sampled_from(["", "#frag", "?a=/b/c"]),
)


@given(hrefs, bases)
@example("http://example.org/a?", "https://h/")  # urljoin drops an empty query, fragment or parameters
@example("http://example.org/a#", "https://h/")
@example("http://example.org/a;", "http://h/")
@example("HTTP://example.org/a", "http://h/")  # and lower-cases the scheme
def test_absolutize_joins_as_urllib_does(href, base):
    link = href.strip()
    try:
        joined: str | None = urljoin(base, link)
    except ValueError:
        joined = None
    on_the_web = joined is not None and urlsplit(joined).scheme in ("http", "https")
    not_a_link = not link or link.startswith(("#", "javascript:", "mailto:", "tel:", "data:"))
    assert absolutize(href, base) == (joined if on_the_web and not not_a_link else None)
