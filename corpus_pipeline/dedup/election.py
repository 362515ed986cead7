"""Which record of a group of duplicates is kept."""

from __future__ import annotations

from datetime import datetime, timezone

_OLDEST = datetime.min.replace(tzinfo=timezone.utc)


def declares_its_own_language(record: dict) -> bool:
    """False for an untranslated copy: its hreflang self-entry announces a language its text is not in."""
    for alternate in record.get("alternates") or []:
        if alternate.get("url") == record.get("url") and alternate.get("lang"):
            return alternate["lang"] == record.get("lang")
    return True


def election_key(record: dict) -> tuple:
    """Sort key, best first: on-site, language as declared, most recent, longest, then the smallest URL."""
    return (
        record.get("category") == "external",
        not declares_its_own_language(record),
        -(record.get("date") or _OLDEST).timestamp(),
        -(record["length"] if "length" in record else len(record.get("content") or "")),
        record.get("url") or "",
    )
