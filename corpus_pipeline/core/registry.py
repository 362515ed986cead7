"""The website registry: which websites to crawl and how.

A YAML file with a top-level ``websites`` list, each entry validated strictly at load time so that a typo fails
loudly, naming the entry and the field, instead of silently crawling with a default.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

import yaml
from lxml.cssselect import CSSSelector

Mode = Literal["sitemap", "crawl"]
InternalLinks = Literal["any", "internal", "external", "ignore"]

# Partition keys become folder names (``website=<name>``): a conservative alphabet, so no key escapes the data folder.
# Anchored with \Z, not $ (which also accepts a trailing newline), so that .match() is as strict as fullmatch().
WEBSITE_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}\Z")
# A host name once IDNA-encoded: labels of letters, digits, "-" and "_" (seen in real hosts), dot-separated.
_HOST_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?")
# A language tag as hreflang and <html lang> write it: "fr", "pt-BR", "zh_Hant".
_LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_:][A-Za-z0-9_:.-]*")
# Whitespace or control characters, which urlsplit silently drops or keeps inside a host.
_BLANK_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")

REGISTRY_ENV_VAR = "CORPUS_PIPELINE_REGISTRY"


class RegistryError(ValueError):
    """A registry file that cannot be used, with the entry and field at fault."""


@dataclass(frozen=True)
class MarkupRule:
    """One element selector of a website's ``markup`` option: a tag name with optional attributes (``"article"``,
    ``("div", {"class": "post"})``), or a CSS selector."""

    tag: str | None = None
    attrs: tuple[tuple[str, str], ...] = ()
    css: str | None = None


@dataclass(frozen=True)
class Website:
    """One registry entry: a website and the options of its crawl."""

    name: str
    url: str
    mode: Mode = "sitemap"
    sitemap: str = "/sitemap.xml"
    child: str = "/"
    markup: tuple[MarkupRule, ...] = ()
    contains_str: tuple[str, ...] = ()
    langs: tuple[str, ...] = ()
    default_lang: str = "en"
    category: str | None = None
    max_recurse_level: int = -1
    restrict_section: bool = False
    internal_links: InternalLinks = "internal"
    obey_robots: bool = True
    same_site_hosts: tuple[str, ...] = ()
    keep_code_blocks: bool = True
    min_content_words: int = 10
    skip_unchanged_lastmod: bool = True
    follow_nofollow_links: bool = False  # follow links marked rel=nofollow, ugc or sponsored
    ocr: int = 1
    max_pages: int | None = None
    keep_listings: bool = False  # listings and error pages (page_kind) go on to canonical_url_groups and corpus
    markdown_links: bool = False  # the markdown column writes links as [text](absolute URL), not their text alone
    markdown_images: bool = False  # the markdown column keeps images as ![alt](absolute URL)

    @property
    def base_url(self) -> str:
        """Scheme, host and port of the website, without a trailing slash."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def host(self) -> str:
        """Lower-cased host name (without port)."""
        return (urlsplit(self.url).hostname or "").lower()

    def is_indexable(self, url: str) -> bool:
        """Whether ``contains_str`` lets this URL into the corpus (traversal is not affected)."""
        return not self.contains_str or any(s in url for s in self.contains_str)


@dataclass(frozen=True)
class Registry:
    """All websites of a registry file, by name."""

    websites: tuple[Website, ...] = field(default_factory=tuple)

    @property
    def names(self) -> list[str]:
        return [w.name for w in self.websites]

    def get(self, name: str) -> Website:
        for website in self.websites:
            if website.name == name:
                return website
        raise KeyError(f"website {name!r} is not in the registry (known: {', '.join(self.names) or 'none'})")


_OPTION_NAMES = {f.name for f in fields(Website)}
_BOOL_OPTIONS = [f.name for f in fields(Website) if f.type == "bool"]


def default_registry_path() -> Path:
    """The registry named by ``$CORPUS_PIPELINE_REGISTRY``, else ``websites.yaml`` at the project root."""
    configured = os.environ.get(REGISTRY_ENV_VAR)
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "websites.yaml"


def load_registry(path: str | os.PathLike[str] | None = None) -> Registry:
    """Read and validate a registry file; raise :class:`RegistryError` on any problem."""
    path = Path(path) if path is not None else default_registry_path()
    try:
        document = _load_yaml(path.read_text(encoding="utf-8"), str(path))
    except FileNotFoundError as exc:
        raise RegistryError(f"registry file not found: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise RegistryError(f"registry {path} cannot be read: {exc}") from exc
    except (yaml.YAMLError, RecursionError) as exc:
        raise RegistryError(f"registry {path} is not valid YAML: {exc}") from exc
    return parse_registry(document, source=str(path))


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _load_yaml(text: str, source: str) -> Any:
    """The YAML document of ``text``; a mapping that repeats a key raises :class:`RegistryError` naming it (PyYAML
    alone keeps the last one)."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _refuse_duplicate_keys(loader, node, source, "", set())
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _refuse_duplicate_keys(loader: yaml.SafeLoader, node: yaml.Node, source: str, where: str, seen: set[int]) -> None:
    """Walk the composed document (each node once: aliases share nodes) and refuse any mapping that repeats a key."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _refuse_duplicate_keys(loader, item, source, f"{where}[{index}]", seen)
    elif isinstance(node, yaml.MappingNode):
        entry = where.startswith("websites[") and where.count("[") == 1
        name = next((v.value for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == "name"
                     and isinstance(v, yaml.ScalarNode)), None) if entry else None
        label = f"{where} ({_shown_name(name)})" if name is not None else where
        keys: set[Any] = set()
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:  # "<<: *defaults": the entry's own keys override the merged ones
                continue
            key = loader.construct_object(key_node, deep=True) if isinstance(key_node, yaml.ScalarNode) else None
            if key is not None:
                if key in keys:  # a scalar key: always hashable
                    at = f"{label}: " if label else ""
                    line = key_node.start_mark.line + 1
                    raise RegistryError(f"{source}: {at}duplicate key {key!r} (line {line}): write each key once")
                keys.add(key)
            child = f"{label}: field {key!r}" if entry else f"{where}.{key}" if where else str(key)
            _refuse_duplicate_keys(loader, value_node, source, child, seen)


def parse_registry(document: Any, source: str = "<registry>") -> Registry:
    """Validate an already-parsed registry document."""
    if not isinstance(document, dict) or not isinstance(document.get("websites"), list):
        raise RegistryError(f"{source}: expected a mapping with a 'websites' list")
    unknown_top = set(document) - {"websites"}
    if unknown_top:
        raise RegistryError(f"{source}: unknown top-level key(s): {', '.join(sorted(map(repr, unknown_top)))}")
    websites: list[Website] = []
    seen: set[str] = set()
    for index, entry in enumerate(document["websites"]):
        website = _parse_website(entry, f"{source}: websites[{index}]")
        if website.name in seen:
            raise RegistryError(f"{source}: websites[{index}] ({website.name}): field 'name': duplicate name")
        seen.add(website.name)
        websites.append(website)
    return Registry(tuple(websites))


def _parse_website(entry: Any, where: str) -> Website:
    if not isinstance(entry, dict):
        raise RegistryError(f"{where}: expected a mapping of options, got {type(entry).__name__}")
    name = entry.get("name")
    label = f"{where} ({_shown_name(name)})" if name is not None else where

    def fail(field_name: str, message: str) -> RegistryError:
        return RegistryError(f"{label}: field {field_name!r}: {message}")

    unknown = set(entry) - _OPTION_NAMES
    if unknown:
        first = sorted(map(str, unknown))[0]
        raise fail(first, f"unknown option (known: {', '.join(sorted(_OPTION_NAMES))})")
    for required in ("name", "url"):
        if required not in entry:
            raise fail(required, "is required")

    if not isinstance(name, str) or not WEBSITE_NAME_PATTERN.fullmatch(name):
        raise fail("name", "must be 1-63 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit")
    url = _expect(entry, "url", str, fail)
    _check_url(url, "url", fail)

    options: dict[str, Any] = {"name": name, "url": url}
    if "mode" in entry:
        options["mode"] = _expect_choice(entry, "mode", get_args(Mode), fail)
    if "internal_links" in entry:
        options["internal_links"] = _expect_choice(entry, "internal_links", get_args(InternalLinks), fail)
    for path_option in ("sitemap", "child"):
        if path_option in entry:
            options[path_option] = _path_or_url(entry, path_option, fail)
    if "default_lang" in entry:
        options["default_lang"] = _language(_expect(entry, "default_lang", str, fail), "default_lang", fail)
    if "category" in entry:
        options["category"] = None if entry["category"] is None else _expect(entry, "category", str, fail)
    for list_option in ("contains_str", "langs", "same_site_hosts"):
        if list_option in entry:
            options[list_option] = _string_list(entry[list_option], list_option, fail)
    if "langs" in options:
        options["langs"] = tuple(_language(lang, "langs", fail) for lang in options["langs"])
    for host in options.get("same_site_hosts", ()):
        _check_netloc(host, "same_site_hosts", fail)
    for bool_option in _BOOL_OPTIONS:
        if bool_option in entry:
            options[bool_option] = _expect(entry, bool_option, bool, fail)
    if "max_recurse_level" in entry:
        level = _expect(entry, "max_recurse_level", int, fail)
        if level == 0 or level < -1:
            raise fail("max_recurse_level", "must be -1 (unlimited) or at least 1 (1 = the start page only)")
        options["max_recurse_level"] = level
    if "min_content_words" in entry:
        min_words = _expect(entry, "min_content_words", int, fail)
        if min_words < 0:
            raise fail("min_content_words", "must be 0 (keep any text) or more")
        options["min_content_words"] = min_words
    if "ocr" in entry:
        options["ocr"] = _expect_choice(entry, "ocr", (0, 1, 2), fail)
    if "max_pages" in entry and entry["max_pages"] is not None:
        max_pages = _expect(entry, "max_pages", int, fail)
        if max_pages < 1:
            raise fail("max_pages", "must be at least 1")
        options["max_pages"] = max_pages
    if "markup" in entry:
        options["markup"] = _parse_markup(entry["markup"], fail)
    return Website(**options)


def _shown_name(name: Any) -> str:
    """The entry's name as error messages show it: as written when valid, quoted (and cut) otherwise."""
    if isinstance(name, str) and WEBSITE_NAME_PATTERN.fullmatch(name):
        return name
    shown = repr(name)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _check_url(url: str, key: str, fail) -> None:
    """An absolute http(s) URL with a valid host and port, or a RegistryError naming what is wrong."""
    if _BLANK_OR_CONTROL.search(url):
        raise fail(key, f"must not contain spaces or control characters, got {url!r}")
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # an unclosed IPv6 bracket, for one
        raise fail(key, f"not a valid URL ({exc}): {url!r}") from None
    if parts.scheme not in ("http", "https"):
        raise fail(key, f"must be an absolute http(s) URL, got {url!r}")
    _check_netloc(parts.netloc, key, fail, url)


def _check_netloc(netloc: str, key: str, fail, shown: str | None = None) -> None:
    """``host[:port]`` (no user name or password): a valid host name or IP address, and a port in 1-65535."""
    shown = shown or netloc
    if _BLANK_OR_CONTROL.search(netloc):
        raise fail(key, f"must not contain spaces or control characters, got {shown!r}")
    if "@" in netloc:
        raise fail(key, f"must not hold a user name or password, got {shown!r}")
    try:
        parts = urlsplit(f"//{netloc}")
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        port_text = netloc.rsplit(":", 1)[-1]
        if "out of range" in str(exc):
            raise fail(key, f"port {port_text} out of range in {shown!r}") from None
        if "cast to integer" in str(exc):
            raise fail(key, f"port {port_text!r} is not a number in {shown!r}") from None
        raise fail(key, f"not a valid URL ({exc}): {shown!r}") from None
    if parts.path or parts.query or parts.fragment or not host:
        raise fail(key, f"empty or invalid host in {shown!r}")
    if port is not None and not 1 <= port <= 65535:
        raise fail(key, f"port {port} out of range in {shown!r}")
    if not _is_valid_host(host):
        raise fail(key, f"invalid host name {host!r} in {shown!r}")


def _is_valid_host(host: str) -> bool:
    if ":" in host:  # an IPv6 literal (urlsplit has removed the brackets)
        try:
            ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            return False
        return True
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        return False
    return bool(_HOST_NAME.fullmatch(ascii_host.lower())) and len(ascii_host) <= 253


def _path_or_url(entry: dict, key: str, fail) -> str:
    value = _expect(entry, key, str, fail)
    if value.startswith(("//", "/\\")):
        raise fail(key, f"a protocol-relative URL names another host: write an absolute http(s) URL, got {value!r}")
    if value.startswith(("http://", "https://")):
        _check_url(value, key, fail)
    elif not value.startswith("/"):
        raise fail(key, "must be a path starting with '/' or an absolute URL")
    elif _BLANK_OR_CONTROL.search(value):
        raise fail(key, f"must not contain spaces or control characters, got {value!r}")
    return value


def _language(value: str, key: str, fail) -> str:
    if not _LANGUAGE_TAG.fullmatch(value):
        raise fail(key, f"expected a language code such as 'en' or 'pt-br', got {value!r}")
    return value.lower()


def _expect(entry: dict, key: str, kind: type, fail) -> Any:
    value = entry[key]
    # bool is a subclass of int: refuse True where a number is expected.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise fail(key, f"expected {kind.__name__}, got {type(value).__name__} ({value!r})")
    return value


def _expect_choice(entry: dict, key: str, choices: tuple, fail) -> Any:
    value = entry[key]
    # 1.0 == 1 and True == 1: the type must match too.
    if type(value) not in {type(choice) for choice in choices} or value not in choices:
        raise fail(key, f"must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value


def _string_list(value: Any, key: str, fail) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v for v in value if v)
    raise fail(key, f"expected a string or a list of strings, got {value!r}")


def _parse_markup(value: Any, fail) -> tuple[MarkupRule, ...]:
    """Accept the reference forms: a tag, ``[tag, {attrs}]``, a CSS selector, or a list of them."""
    if value is None:
        return ()
    items = value if isinstance(value, list) and not _is_tag_with_attrs(value) else [value]
    return tuple(_markup_rule(item, fail) for item in items)


def _markup_rule(item: Any, fail) -> MarkupRule:
    if isinstance(item, str) and item.strip():
        text = item.strip()
        if _TAG_NAME.fullmatch(text):
            return MarkupRule(tag=text.lower())
        return MarkupRule(css=_css_selector(text, fail))
    if isinstance(item, dict) and set(item) == {"css"} and isinstance(item["css"], str):
        return MarkupRule(css=_css_selector(item["css"], fail))
    if _is_tag_with_attrs(item):
        tag, attrs = item
        if not _TAG_NAME.fullmatch(tag):
            raise fail("markup", f"invalid tag name {tag!r}")
        return MarkupRule(tag=tag.lower(), attrs=tuple(sorted(_markup_attribute(k, v, fail) for k, v in attrs.items())))
    raise fail("markup", f"expected a tag name, [tag, {{attr: value}}], a CSS selector or a list of them, got {item!r}")


def _markup_attribute(name: Any, value: Any, fail) -> tuple[str, str]:
    if not isinstance(name, str) or not _ATTRIBUTE_NAME.fullmatch(name):
        raise fail("markup", f"invalid attribute name {name!r}")
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise fail("markup", f"attribute {name!r}: expected a string value, got {value!r}")
    if "'" in str(value):  # the rule becomes an XPath literal in single quotes
        raise fail("markup", f"attribute {name!r}: a value cannot contain a single quote, got {value!r}")
    return name, str(value)


def _css_selector(text: str, fail) -> str:
    try:
        CSSSelector(text)
    except Exception as exc:  # noqa: BLE001 - cssselect raises several kinds; each is a bad selector here
        raise fail("markup", f"invalid CSS selector {text!r}: {exc}") from None
    return text


def _is_tag_with_attrs(item: Any) -> bool:
    return isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], dict)
