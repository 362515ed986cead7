"""Dates from the web, always as aware UTC datetimes."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_ISO_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def to_utc(moment: datetime) -> datetime:
    """Convert (never re-label) an aware datetime to UTC; a naive one is taken as UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def parse_date(text: str) -> datetime | None:
    """Parse a W3C/ISO 8601 date or date-time (sitemaps, meta tags, ld+json) to UTC; None if it is not one."""
    text = (text or "").strip()
    if not text:
        return None
    if _ISO_DATE_ONLY.match(text):
        text += "T00:00:00+00:00"
    candidate = text.replace("Z", "+00:00").replace("z", "+00:00")
    try:
        return to_utc(datetime.fromisoformat(candidate))
    except ValueError:
        return None
