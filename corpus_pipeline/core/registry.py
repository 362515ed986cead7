"""The website registry: which websites to crawl and how.

The registry is a YAML file with a top-level ``websites`` list. Each entry is
validated strictly at load time so that a typo fails loudly, naming the entry
and the field, instead of silently crawling with a default.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml

Mode = Literal["sitemap", "crawl"]
InternalLinks = Literal["any", "internal", "external", "ignore"]

# Partition keys become folder names (``website=<name>``): keep them to a
# conservative alphabet so that no key can escape the data folder.
WEBSITE_NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")

REGISTRY_ENV_VAR = "CORPUS_PIPELINE_REGISTRY"


class RegistryError(ValueError):
    """A registry file that cannot be used, with the entry and field at fault."""


@dataclass(frozen=True)
class MarkupRule:
    """One element selector of a website's ``markup`` option.

    Either a tag name with optional attributes (the reference's ``"article"`` or
    ``("div", {"class": "post"})`` forms), or a CSS selector.
    """

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
    ocr: int = 1
    max_pages: int | None = None

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


def default_registry_path() -> Path:
    """The registry named by ``$CORPUS_PIPELINE_REGISTRY``, else ``websites.yaml`` at the project root."""
    configured = os.environ.get(REGISTRY_ENV_VAR)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / "websites.yaml"


def load_registry(path: str | os.PathLike[str] | None = None) -> Registry:
    """Read and validate a registry file; raise :class:`RegistryError` on any problem."""
    path = Path(path) if path is not None else default_registry_path()
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise RegistryError(f"registry file not found: {path}") from exc
    except yaml.YAMLError as exc:
        raise RegistryError(f"registry {path} is not valid YAML: {exc}") from exc
    return parse_registry(document, source=str(path))


def parse_registry(document: Any, source: str = "<registry>") -> Registry:
    """Validate an already-parsed registry document."""
    if not isinstance(document, dict) or not isinstance(document.get("websites"), list):
        raise RegistryError(f"{source}: expected a mapping with a 'websites' list")
    unknown_top = set(document) - {"websites"}
    if unknown_top:
        raise RegistryError(f"{source}: unknown top-level key(s): {', '.join(sorted(unknown_top))}")
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
    label = f"{where} ({name})" if isinstance(name, str) else where

    def fail(field_name: str, message: str) -> RegistryError:
        return RegistryError(f"{label}: field {field_name!r}: {message}")

    unknown = set(entry) - _OPTION_NAMES
    if unknown:
        raise fail(sorted(unknown)[0], f"unknown option (known: {', '.join(sorted(_OPTION_NAMES))})")
    for required in ("name", "url"):
        if required not in entry:
            raise fail(required, "is required")

    if not isinstance(name, str) or not WEBSITE_NAME_PATTERN.match(name):
        raise fail("name", "must be 1-63 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit")
    url = _expect(entry, "url", str, fail)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise fail("url", f"must be an absolute http(s) URL, got {url!r}")

    options: dict[str, Any] = {"name": name, "url": url}
    if "mode" in entry:
        options["mode"] = _expect_choice(entry, "mode", ("sitemap", "crawl"), fail)
    if "internal_links" in entry:
        options["internal_links"] = _expect_choice(
            entry, "internal_links", ("any", "internal", "external", "ignore"), fail
        )
    for path_option in ("sitemap", "child"):
        if path_option in entry:
            value = _expect(entry, path_option, str, fail)
            if not (value.startswith("/") or value.startswith("http://") or value.startswith("https://")):
                raise fail(path_option, "must be a path starting with '/' or an absolute URL")
            options[path_option] = value
    if "default_lang" in entry:
        options["default_lang"] = _expect(entry, "default_lang", str, fail).lower()
    if "category" in entry:
        options["category"] = None if entry["category"] is None else _expect(entry, "category", str, fail)
    for list_option in ("contains_str", "langs", "same_site_hosts"):
        if list_option in entry:
            options[list_option] = _string_list(entry[list_option], list_option, fail)
    if "langs" in options:
        options["langs"] = tuple(lang.lower() for lang in options["langs"])
    for bool_option in ("restrict_section", "obey_robots", "keep_code_blocks", "skip_unchanged_lastmod"):
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


def _expect(entry: dict, key: str, kind: type, fail) -> Any:
    value = entry[key]
    # bool is a subclass of int: refuse True where a number is expected.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise fail(key, f"expected {kind.__name__}, got {type(value).__name__} ({value!r})")
    return value


def _expect_choice(entry: dict, key: str, choices: tuple, fail) -> Any:
    value = entry[key]
    if value not in choices or isinstance(value, bool):
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
    rules: list[MarkupRule] = []
    for item in items:
        if isinstance(item, str) and item.strip():
            text = item.strip()
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", text):
                rules.append(MarkupRule(tag=text.lower()))
            else:
                rules.append(MarkupRule(css=text))
        elif isinstance(item, dict) and set(item) <= {"css"} and isinstance(item.get("css"), str):
            rules.append(MarkupRule(css=item["css"]))
        elif _is_tag_with_attrs(item):
            tag, attrs = item
            rules.append(MarkupRule(tag=tag.lower(), attrs=tuple(sorted((str(k), str(v)) for k, v in attrs.items()))))
        else:
            raise fail("markup", f"expected a tag name, [tag, {{attr: value}}], a CSS selector or a list of them, got {item!r}")
    return tuple(rules)


def _is_tag_with_attrs(item: Any) -> bool:
    return (
        isinstance(item, (list, tuple))
        and len(item) == 2
        and isinstance(item[0], str)
        and isinstance(item[1], dict)
    )
