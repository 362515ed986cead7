import pytest

from corpus_pipeline.core.registry import MarkupRule, RegistryError, load_registry, parse_registry


def registry_with(**options):
    return {"websites": [{"name": "site", "url": "http://127.0.0.1:8000/", **options}]}


def test_loads_every_reference_option(tmp_path):
    path = tmp_path / "websites.yaml"
    path.write_text(
        """
websites:
  - name: blog.example
    url: https://blog.example.org:8443/
    mode: crawl
    sitemap: /sitemaps/index.xml
    child: /docs/
    markup: [article, [div, {class: post}], "main > .content"]
    contains_str: [/docs/, /blog/]
    langs: [fr, DE]
    default_lang: EN
    category: blog
    max_recurse_level: 3
    restrict_section: true
    internal_links: external
"""
    )
    website = load_registry(path).get("blog.example")
    assert website.mode == "crawl"
    assert website.base_url == "https://blog.example.org:8443"
    assert website.markup == (
        MarkupRule(tag="article"),
        MarkupRule(tag="div", attrs=(("class", "post"),)),
        MarkupRule(css="main > .content"),
    )
    assert website.contains_str == ("/docs/", "/blog/")
    assert website.langs == ("fr", "de")
    assert website.default_lang == "en"
    assert website.max_recurse_level == 3 and website.restrict_section
    assert website.internal_links == "external"


def test_a_single_tag_with_attributes_is_one_rule():
    website = parse_registry(registry_with(markup=["div", {"id": "content"}])).websites[0]
    assert website.markup == (MarkupRule(tag="div", attrs=(("id", "content"),)),)


def test_contains_str_decides_indexing():
    website = parse_registry(registry_with(contains_str="/docs/")).websites[0]
    assert website.is_indexable("http://127.0.0.1:8000/docs/a.html")
    assert not website.is_indexable("http://127.0.0.1:8000/blog/a.html")


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"mdoe": "crawl"}, "mdoe"),
        ({"mode": "spider"}, "mode"),
        ({"max_recurse_level": "3"}, "max_recurse_level"),
        ({"max_recurse_level": 0}, "max_recurse_level"),
        ({"restrict_section": "yes"}, "restrict_section"),
        ({"internal_links": "all"}, "internal_links"),
        ({"langs": [1, 2]}, "langs"),
        ({"markup": 42}, "markup"),
        ({"min_content_words": -1}, "min_content_words"),
        ({"min_content_words": True}, "min_content_words"),
        ({"url": "ftp://example.org/"}, "url"),
        ({"child": "docs/"}, "child"),
    ],
)
def test_bad_options_name_the_entry_and_the_field(options, field):
    with pytest.raises(RegistryError) as error:
        parse_registry(registry_with(**options))
    assert "(site)" in str(error.value)
    assert f"'{field}'" in str(error.value)


@pytest.mark.parametrize("name", ["../etc", "a/b", "Site", "", ".hidden", "x" * 64, "web site"])
def test_names_that_could_escape_the_data_folder_are_refused(name):
    with pytest.raises(RegistryError, match="'name'"):
        parse_registry({"websites": [{"name": name, "url": "http://example.org/"}]})


def test_duplicate_names_are_refused():
    document = {"websites": [{"name": "a", "url": "http://a.example/"}, {"name": "a", "url": "http://b.example/"}]}
    with pytest.raises(RegistryError, match=r"websites\[1\] \(a\).*duplicate"):
        parse_registry(document)


def test_missing_file_and_bad_yaml_are_clear(tmp_path):
    with pytest.raises(RegistryError, match="not found"):
        load_registry(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("websites: [name: a\n")
    with pytest.raises(RegistryError, match="not valid YAML"):
        load_registry(bad)


def test_unknown_website_lists_the_known_ones():
    registry = parse_registry(registry_with())
    with pytest.raises(KeyError, match="known: site"):
        registry.get("other")


def test_the_bundled_registry_is_valid():
    from pathlib import Path

    registry = load_registry(Path(__file__).resolve().parents[2] / "websites.yaml")
    assert "demo" in registry.names


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from corpus_pipeline.core.registry import WEBSITE_NAME_PATTERN, Website  # noqa: E402

URLISH = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda scheme, host, port, path: f"{scheme}://{host}{port}{path}",
        st.sampled_from(["http", "https", "ftp", "HTTP", ""]),
        st.one_of(st.text(max_size=20), st.from_regex(r"[a-z0-9.\[\]:_ -]{1,20}", fullmatch=True)),
        st.one_of(st.just(""), st.text(max_size=8).map(lambda port: f":{port}")),
        st.text(max_size=10),
    ),
)
ANY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8) | st.integers(), inner, max_size=3),
    max_leaves=8,
)


def _loads_or_refuses(document):
    try:
        registry = parse_registry(document)
    except RegistryError:
        return None
    return registry


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=70), st.from_regex(r"[a-z0-9][a-z0-9._-]{0,62}\n?", fullmatch=True)), URLISH)
def test_random_names_and_urls_load_or_raise_a_registry_error_only(name, url):
    registry = _loads_or_refuses({"websites": [{"name": name, "url": url}]})
    if registry is not None:
        website = registry.websites[0]
        assert WEBSITE_NAME_PATTERN.fullmatch(website.name) and "\n" not in website.name
        assert website.base_url.startswith(("http://", "https://")) and website.host


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(set(Website.__dataclass_fields__) - {"name", "url"})), ANY_VALUE)
def test_any_value_of_any_option_loads_or_raises_a_registry_error_only(option, value):
    registry = _loads_or_refuses(registry_with(**{option: value}))
    assert registry is None or registry.websites[0].name == "site"


@settings(max_examples=100, deadline=None)
@given(ANY_VALUE)
def test_any_document_loads_or_raises_a_registry_error_only(document):
    _loads_or_refuses(document)
    _loads_or_refuses({"websites": [document]})
