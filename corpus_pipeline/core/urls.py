"""URL normalization: one spelling per resource.

* :func:`normalize_url` is the crawl key: links that name the same resource (fragment, default port, case or IDN
  spelling of the host, dot segments, tracking parameters, session ids, percent-encoding) map to one key, so each
  page is requested once. Ports other than the scheme's default are kept.
* :func:`canonical_url` is the grouping key of deduplication: the crawl key with only the query keys that select
  different content (``lang`` and ``v`` by default) and the ``#page=N`` fragment of PDF sections.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import quote, unquote, urljoin, urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}

# Query keys that only say where a visitor came from. Never part of a key.
TRACKING_KEYS = frozenset({
    "ref", "fbclid", "gclid", "dclid", "msclkid", "yclid", "mc_cid", "mc_eid",
    "igshid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "spm", "share", "replytocom",
})

# Query keys, path parameters (";jsessionid=...") and path segments ("/sid=.../", ASP.NET's "/(S(...))/") that carry a
# visitor's session: every visit would see new URLs for the same pages. Never part of a key.
SESSION_KEYS = frozenset({"jsessionid", "phpsessid", "sid", "sessionid", "session_id", "aspsessionid", "cfid",
                          "cftoken"})
_SESSION_NAME = r"(?:jsessionid|phpsessid|sid|sessionid|session_id|aspsessionid\w*|cfid|cftoken)"
_SESSION_PARAMETER = re.compile(rf";{_SESSION_NAME}=[^;/]*", re.IGNORECASE)
_SESSION_SEGMENT = re.compile(rf"/(?:{_SESSION_NAME}=[^/]*|\((?:[A-Za-z]\([^()/]*\))+\))(?=/|$)", re.IGNORECASE)

DEFAULT_KEPT_QUERY_KEYS = ("lang", "v")

PAGE_FRAGMENT = re.compile(r"^page=(\d+)$")
# An absolute http(s) URL that parsing and joining give back unchanged: a lower-case scheme, a host (no IPv6
# brackets), a path of plain characters; no parameters, query or fragment.
_PLAIN_ABSOLUTE = re.compile(r"https?://[A-Za-z0-9.:-]+(?:/[A-Za-z0-9._~!$&'()*+,=:@%/-]*)?")

# RFC 3986 unreserved characters never need percent-encoding.
_SAFE_PATH = "/:@!$&'()*+,;=-._~"
_SAFE_QUERY_PART = ":@!$'()*+,;/?-._~"


class InvalidUrlError(ValueError):
    """A string that is not an absolute http(s) URL."""


def _is_visitor_key(key: str) -> bool:
    """Whether a query key only carries campaign or referral tracking, or a visitor's session id."""
    lowered = key.lower()
    return lowered in TRACKING_KEYS or lowered in SESSION_KEYS or lowered.startswith(("utm_", "aspsessionid"))


def strip_session_ids(path: str) -> str:
    """``path`` without session-id parameters (``;jsessionid=...``) and segments (``/sid=.../``, ``/(S(...))/``)."""
    if ";" not in path and "=" not in path and "(" not in path:
        return path
    return _SESSION_SEGMENT.sub("", _SESSION_PARAMETER.sub("", path)) or "/"


@lru_cache(maxsize=4096)
def idna_host(host: str) -> str:
    """A host name in its IDNA (punycode, lower-case) form: ``Bücher.example`` and ``xn--bcher-kva.example`` agree."""
    host = host.lower().rstrip(".")
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def absolutize(href: str, base: str) -> str | None:
    """Resolve a link found on ``base``; None for non-web links (mailto:, javascript:, ...)."""
    href = href.strip()
    if _PLAIN_ABSOLUTE.fullmatch(href):
        return href  # what urljoin gives back for it, whatever the base, in a fifth of the time
    if not href or href.startswith(("#", "javascript:", "mailto:", "tel:", "data:")):
        return None
    try:
        joined = urljoin(base, href)
    except ValueError:
        return None
    return joined if urlsplit(joined).scheme in ("http", "https") else None


def normalize_url(url: str, *, keep_fragment: bool = False) -> str:
    """The crawl key of ``url``: same resource, same string; :class:`InvalidUrlError` unless an absolute http(s) URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise InvalidUrlError(f"not a valid URL: {url!r} ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        raise InvalidUrlError(f"not an absolute http(s) URL: {url!r}")
    host = idna_host(parts.hostname)
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = _normalize_path(strip_session_ids(parts.path))
    query = _normalize_query(parts.query, keep=None)
    fragment = parts.fragment if keep_fragment else ""
    return urlunsplit((scheme, netloc, path, query, fragment))


def canonical_url(url: str, keep_query_keys: Iterable[str] = DEFAULT_KEPT_QUERY_KEYS) -> str:
    """The dedup grouping key: crawl key, only ``keep_query_keys`` in the query, only ``#page=N`` as fragment."""
    parts = urlsplit(normalize_url(url, keep_fragment=True))
    kept = frozenset(k.lower() for k in keep_query_keys)
    query = _normalize_query(parts.query, keep=kept)
    page = PAGE_FRAGMENT.match(parts.fragment)
    fragment = f"page={int(page.group(1))}" if page else ""
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, fragment))


def _normalize_path(path: str) -> str:
    if not path:
        return "/"
    trailing = path.endswith("/") or path.endswith("/.") or path.endswith("/..")
    path = _requote(path, _SAFE_PATH)
    resolved = posixpath.normpath(path)
    # normpath keeps a leading '//' and maps '' to '.'
    resolved = "/" + resolved.lstrip("/") if resolved != "." else "/"
    if trailing and not resolved.endswith("/"):
        resolved += "/"
    return resolved


def _normalize_query(query: str, keep: frozenset[str] | None) -> str:
    if not query:
        return ""
    # Split by hand, not parse_qsl: decoding would lose non-UTF-8 escapes and turn '+' into a space.
    pairs = []
    for item in query.split("&"):
        if not item:
            continue
        key, _, value = item.partition("=")
        name = unquote(key)
        if _is_visitor_key(name) or (keep is not None and name.lower() not in keep):
            continue
        pairs.append(f"{_requote(key, _SAFE_QUERY_PART)}={_requote(value, _SAFE_QUERY_PART)}")
    return "&".join(sorted(pairs))


_PERCENT_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _requote(text: str, safe: str) -> str:
    """One spelling per character: ``%7e``/``%7E``/``~`` all give ``~``; other escapes upper-cased, kept as bytes."""

    def canonical_escape(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return quote(_PERCENT_ESCAPE.sub(canonical_escape, text), safe=safe + "%")
