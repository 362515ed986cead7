"""Dates from the web: ISO dates parsed to UTC, and placeholders that date nothing left out."""

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from corpus_pipeline.core.dates import is_web_date, parse_date
from corpus_pipeline.extract.html_tree import parse_html
from corpus_pipeline.extract.metadata import fallback_date, page_dates
from corpus_pipeline.extract.structured_data import structured_data


def test_iso_dates_and_date_times_are_read_in_utc():
    assert parse_date("2024-03-01") == datetime(2024, 3, 1, tzinfo=UTC)
    assert parse_date("2024-03-01T10:00:00+02:00") == datetime(2024, 3, 1, 8, tzinfo=UTC)
    assert parse_date("2024-03-01T10:00:00Z") == datetime(2024, 3, 1, 10, tzinfo=UTC)
    assert parse_date("March 1st") is None


def test_placeholders_and_dates_outside_the_web_are_no_date():
    assert parse_date("0001-01-01T00:00:00") is None  # .NET's empty DateTime in a meta tag
    assert parse_date("0001-01-01T00:00:00+05:00") is None  # would overflow when moved to UTC
    assert parse_date("9999-12-31T23:59:59-05:00") is None
    assert parse_date("1970-01-01") is None
    assert parse_date((datetime.now(UTC) + timedelta(days=30)).date().isoformat()) is None


@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31)))
def test_a_parsed_date_is_always_a_web_date_and_nothing_raises(moment):
    parsed = parse_date(moment.isoformat())
    assert parsed is None or is_web_date(parsed)
    now = datetime.now(UTC)
    if datetime(1990, 1, 1) <= moment <= now.replace(tzinfo=None):
        assert parsed == moment.replace(tzinfo=UTC)


def test_a_page_whose_meta_date_is_a_placeholder_takes_its_next_date():
    page = parse_html(
        '<html><head><meta property="article:published_time" content="0001-01-01T00:00:00">'
        '</head><body><h1>Story</h1><time datetime="2024-05-06">May 6</time><p>Text of the story.</p></body></html>'
    )
    date, published = page_dates(page, "https://example.com/story", structured_data(page).objects)
    assert published == datetime(2024, 5, 6, tzinfo=UTC)
    assert date == datetime(2024, 5, 6, tzinfo=UTC)


def test_a_last_modified_of_1970_does_not_date_the_record():
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    lastmod = datetime(2024, 2, 3, tzinfo=UTC)
    assert fallback_date(None, epoch, lastmod) == lastmod
    assert fallback_date(None, None, epoch) is None
