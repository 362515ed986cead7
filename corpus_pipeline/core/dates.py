"""Dates from the web, always as aware UTC datetimes."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_ISO_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# The web's first pages are from 1991: an earlier date is a template's placeholder (.NET's empty DateTime,
# 0001-01-01, in five news pages' meta tags) or an error.
EARLIEST_WEB_DATE = datetime(1990, 1, 1, tzinfo=UTC)
CLOCK_SKEW = timedelta(days=1)  # a server's clock, or a date written in a time zone ahead of ours


def to_utc(moment: datetime) -> datetime:
    """Convert (never re-label) an aware datetime to UTC; a naive one is taken as UTC."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def parse_date(text: str) -> datetime | None:
    """Parse a W3C/ISO 8601 date or date-time (sitemaps, meta tags, ld+json) to UTC; None if it is not one, or
    if it is not a date of the web (see :func:`is_web_date`)."""
    text = (text or "").strip()
    if not text:
        return None
    if _ISO_DATE_ONLY.match(text):
        text += "T00:00:00+00:00"
    candidate = text.replace("Z", "+00:00").replace("z", "+00:00")
    try:
        moment = to_utc(datetime.fromisoformat(candidate))
    except (ValueError, OverflowError):  # OverflowError: year 1 or 9999 moved across UTC
        return None
    return moment if is_web_date(moment) else None


def is_web_date(moment: datetime) -> bool:
    """Whether an aware ``moment`` can date a web document: from 1990 to a day after now."""
    return EARLIEST_WEB_DATE <= moment <= datetime.now(UTC) + CLOCK_SKEW
