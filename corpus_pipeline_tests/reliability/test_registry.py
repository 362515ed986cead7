"""A registry file with a bad value fails at load, naming the file, the entry (index and name) and the field."""

import pytest
import yaml

from corpus_pipeline.core.registry import RegistryError, load_registry

GOOD = {"name": "docs", "url": "http://127.0.0.1:8000/"}


def load_with(tmp_path, bad_entry: dict):
    """Load a registry whose second entry (index 1) is ``bad_entry``; the first is fine."""
    path = tmp_path / "websites.yaml"
    path.write_text(yaml.safe_dump({"websites": [GOOD, bad_entry]}, allow_unicode=True))
    return path, load_registry(path)


@pytest.mark.parametrize(
    ("entry", "field", "says"),
    [
        ({"name": "blog\n", "url": "http://blog.example/"}, "name", "must be 1-63 characters"),
        ({"name": "blog", "url": "http://[::1/"}, "url", "not a valid URL"),
        ({"name": "blog", "url": "http://blog.example:99999/"}, "url", "port 99999 out of range"),
        ({"name": "blog", "url": "http://blog.example:0/"}, "url", "port 0 out of range"),
        ({"name": "blog", "url": "http://blog.example:abc/"}, "url", "port 'abc' is not a number"),
        ({"name": "blog", "url": "http://blog example/"}, "url", "spaces or control characters"),
        ({"name": "blog", "url": "http://blog.ex\tample/"}, "url", "spaces or control characters"),
        ({"name": "blog", "url": "http:///path"}, "url", "empty or invalid host"),
        ({"name": "blog", "url": "http://:8000/"}, "url", "empty or invalid host"),
        ({"name": "blog", "url": "http://user:secret@blog.example/"}, "url", "user name or password"),
        ({"name": "blog", "url": "http://blog..example/"}, "url", "invalid host name"),
        ({"name": "blog", "url": "http://bl<og>.example/"}, "url", "invalid host name"),
        ({"name": "blog", "url": "ftp://blog.example/"}, "url", "absolute http(s) URL"),
        ({"name": "blog", "url": "file:///etc/passwd"}, "url", "absolute http(s) URL"),
        ({"name": "blog", "url": "blog.example"}, "url", "absolute http(s) URL"),
        ({"name": "blog", "url": 8000}, "url", "expected str"),
        ({"name": "blog", "url": "http://blog.example/", "sitemap": "http://blog.example:70000/s.xml"}, "sitemap", "port 70000"),
        ({"name": "blog", "url": "http://blog.example/", "child": "/docs and more/"}, "child", "spaces"),
        ({"name": "blog", "url": "http://blog.example/", "child": ["/docs/"]}, "child", "expected str"),
        ({"name": "blog", "url": "http://blog.example/", "same_site_hosts": ["www.blog example"]}, "same_site_hosts", "spaces"),
        ({"name": "blog", "url": "http://blog.example/", "same_site_hosts": ["www.blog.example:99999"]}, "same_site_hosts", "port 99999"),
        ({"name": "blog", "url": "http://blog.example/", "same_site_hosts": ["http://www.blog.example/"]}, "same_site_hosts", "invalid"),
        ({"name": "blog", "url": "http://blog.example/", "langs": ["fr", "french!"]}, "langs", "language code"),
        ({"name": "blog", "url": "http://blog.example/", "default_lang": ""}, "default_lang", "language code"),
        ({"name": "blog", "url": "http://blog.example/", "default_lang": 1}, "default_lang", "expected str"),
        ({"name": "blog", "url": "http://blog.example/", "category": ["news"]}, "category", "expected str"),
        ({"name": "blog", "url": "http://blog.example/", "contains_str": {"a": 1}}, "contains_str", "list of strings"),
        ({"name": "blog", "url": "http://blog.example/", "ocr": 1.0}, "ocr", "must be one of"),
        ({"name": "blog", "url": "http://blog.example/", "ocr": True}, "ocr", "must be one of"),
        ({"name": "blog", "url": "http://blog.example/", "mode": ["crawl"]}, "mode", "must be one of"),
        ({"name": "blog", "url": "http://blog.example/", "max_pages": 0}, "max_pages", "at least 1"),
        ({"name": "blog", "url": "http://blog.example/", "max_pages": 2.5}, "max_pages", "expected int"),
        ({"name": "blog", "url": "http://blog.example/", "obey_robots": "no"}, "obey_robots", "expected bool"),
        ({"name": "blog", "url": "http://blog.example/", "markup": "main >> p"}, "markup", "invalid CSS selector"),
        ({"name": "blog", "url": "http://blog.example/", "markup": ["div | //script", {"id": "x"}]}, "markup", "invalid tag name"),
        ({"name": "blog", "url": "http://blog.example/", "markup": ["div", {"id": "it's"}]}, "markup", "single quote"),
        ({"name": "blog", "url": "http://blog.example/", "markup": ["div", {"id": None}]}, "markup", "expected a string value"),
        ({"name": "blog", "url": "http://blog.example/", 7: "seven"}, "7", "unknown option"),
    ],
)
def test_every_bad_value_fails_at_load_naming_file_entry_and_field(tmp_path, entry, field, says):
    with pytest.raises(RegistryError) as error:
        load_with(tmp_path, entry)
    message = str(error.value)
    name = "blog" if entry["name"] == "blog" else repr(entry["name"])
    assert message.startswith(f"{tmp_path / 'websites.yaml'}: websites[1] ({name}): field '{field}': "), message
    assert says in message


def test_good_urls_of_every_form_still_load(tmp_path):
    for url in ("http://[::1]:8000/", "https://xn--bcher-kva.example/", "https://bücher.example/", "http://a_b.example:1/"):
        _, registry = load_with(tmp_path, {"name": "blog", "url": url, "same_site_hosts": ["www.blog.example:8443"]})
        assert registry.get("blog").url == url


def test_unreadable_files_are_registry_errors(tmp_path):
    binary = tmp_path / "websites.yaml"
    binary.write_bytes(b"\xff\xfe\x00websites")
    with pytest.raises(RegistryError, match="cannot be read"):
        load_registry(binary)
    with pytest.raises(RegistryError, match="cannot be read"):
        load_registry(tmp_path)
    deep = tmp_path / "deep.yaml"
    deep.write_text("websites: " + "[" * 5000 + "]" * 5000)
    with pytest.raises(RegistryError):
        load_registry(deep)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("websites:\n  - name: blog\n    url: http://a.example/\n    url: http://169.254.169.254/\n",
         "websites[0] (blog): duplicate key 'url' (line 4)"),
        ("websites: []\nwebsites:\n  - {name: blog, url: 'http://a.example/'}\n", "duplicate key 'websites' (line 2)"),
        ("websites:\n  - name: blog\n    url: http://a.example/\n    markup: [div, {class: a, class: b}]\n",
         "websites[0] (blog): field 'markup'[1]: duplicate key 'class' (line 4)"),
        ("websites:\n  - {name: blog, url: 'http://a.example/', name: shop}\n", "duplicate key 'name' (line 2)"),
    ],
)
def test_a_key_written_twice_fails_at_load_in_one_line_naming_key_and_website(tmp_path, text, says):
    path = tmp_path / "websites.yaml"
    path.write_text(text)
    with pytest.raises(RegistryError) as error:
        load_registry(path)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and says in message and "\n" not in message, message


def test_merged_defaults_may_be_overridden_by_the_entry(tmp_path):
    path = tmp_path / "websites.yaml"
    path.write_text("websites:\n  - &blog {name: blog, url: 'http://a.example/', mode: crawl}\n"
                    "  - <<: *blog\n    name: shop\n")
    registry = load_registry(path)
    assert registry.names == ["blog", "shop"] and registry.get("shop").mode == "crawl"


@pytest.mark.parametrize("field", ["child", "sitemap"])
@pytest.mark.parametrize("value", ["//169.254.169.254/latest/meta-data/", "/\\169.254.169.254/latest/"])
def test_a_protocol_relative_child_or_sitemap_fails_at_load(tmp_path, field, value):
    with pytest.raises(RegistryError) as error:
        load_with(tmp_path, {"name": "blog", "url": "http://blog.example/", field: value})
    assert f"websites[1] (blog): field '{field}': a protocol-relative URL" in str(error.value)
