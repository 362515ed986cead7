"""Which record of a group of duplicates is kept."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import urlsplit

_OLDEST = datetime.min.replace(tzinfo=UTC)
# What election_key reads of a record, besides its length.
ELECTION_COLUMNS = (
    "url", "rel_canonical", "category", "alternates", "lang", "in_sitemap", "inlinks", "date", "page_kind",
    "title_inlinks",
)


def declares_its_own_language(record: dict) -> bool:
    """False for an untranslated copy: its hreflang self-entry announces a language its text is not in."""
    for alternate in record.get("alternates") or []:
        if alternate.get("url") == record.get("url") and alternate.get("lang"):
            return alternate["lang"] == record.get("lang")
    return True


def path_cleanliness(url: str) -> tuple[bool, int]:
    """Sort key of a URL's address, cleanest first: without query or fragment (a view of a page, not the page),
    then the shortest path (a reprint or a draft lives at a longer address than its original)."""
    parts = urlsplit(url or "")
    return bool(parts.query or parts.fragment), len(parts.path)


# Rank of a page_kind in the election (extract/page_kind.py): a document's own page over a page that shows it among
# others (a listing), over an error page. Null (PDFs, records from before page kinds) is a document.
_KIND_RANK = {"document": 0, "listing": 1, "error_page": 2}


def names_itself_canonical(record: dict) -> bool:
    """Whether the page's own ``rel=canonical`` names the page itself (its fragment and the default port aside)."""
    declared = record.get("rel_canonical")
    if not declared:
        return False
    return _address(declared) == _address(record.get("url") or "")


def _address(url: str) -> tuple[str, str, str]:
    parts = urlsplit(url.split("#", 1)[0])
    host = (parts.hostname or "").lower()
    port = parts.port if parts.port not in (None, 80, 443) else None
    return host + (f":{port}" if port else ""), parts.path.rstrip("/") or "/", parts.query


def election_key(record: dict) -> tuple:
    """Sort key, best first: on-site, language as declared; then the document's own page (its rel=canonical names
    it, a document over a listing, linked from listings' titles); then what the website puts forward (in its
    sitemaps, more inlinks, the cleanest address); only then the most recent, the longest, the smallest URL.
    """
    return (
        record.get("category") == "external",
        not declares_its_own_language(record),
        not names_itself_canonical(record),
        _KIND_RANK.get(record.get("page_kind") or "document", 0),
        -(record.get("title_inlinks") or 0),
        not record.get("in_sitemap"),
        -(record.get("inlinks") or 0),
        path_cleanliness(record.get("url") or ""),
        -(record.get("date") or _OLDEST).timestamp(),
        -(record["length"] if "length" in record else len(record.get("content") or "")),
        record.get("url") or "",
    )
