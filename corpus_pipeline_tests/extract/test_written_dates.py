"""Dates written in the text next to a title are read by htmldate's extensive search of that text alone."""

from datetime import UTC, datetime
from html import escape

import pytest
from htmldate import find_date
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lxml import html

from corpus_pipeline.extract.metadata import heuristic_date, may_hold_written_date, text_near_title

FORMAT = "%Y-%m-%dT%H:%M:%S%z"
URL = "http://127.0.0.1:8000/a.html"


def _text_page(pieces: list[str]) -> str:
    return "<html><body>" + "".join(f"<p>{escape(piece)}</p>" for piece in pieces) + "</body></html>"


# Each: the text next to the title, and the publication date read there. A date htmldate's own parsers read, one only
# dateparser reads ("Dec. 19, 2025"), a timestamp, several dates (the oldest wins), and none at all.
WRITTEN = [
    (["Posted on 3 March 2021 by the committee"], datetime(2021, 3, 3, tzinfo=UTC)),
    (["Dec. 19, 2025", "A tank under every gutter"], datetime(2025, 12, 19, tzinfo=UTC)),
    (["2024-02-03 10:11:12 meeting opened"], datetime(2024, 2, 3, 10, 11, 12, tzinfo=UTC)),
    (["Dec. 19, 2025", "Updated Feb. 27, 2025", "Posted on 3 March 2021"], datetime(2021, 3, 3, tzinfo=UTC)),
    (["A tank under every gutter collects enough rain"], None),
]


@pytest.mark.parametrize(("pieces", "expected"), WRITTEN)
def test_the_publication_date_is_read_in_the_text_next_to_the_title(pieces, expected):
    document = html.document_fromstring("<html><body><h1>Rainwater tanks</h1>" + _text_page(pieces)[12:])
    assert heuristic_date(document, URL, original=True) == expected


def test_the_last_modification_is_not_read_in_the_text():
    document = html.document_fromstring("<html><body><h1>Tanks</h1><p>Posted on 3 March 2021</p></body></html>")
    assert heuristic_date(document, URL) is None


def test_text_far_below_the_title_is_not_read():
    filler = "".join(f"<p>{'word ' * 40}</p>" for _ in range(10))
    document = html.document_fromstring(f"<html><body><h1>Tanks</h1>{filler}<p>Posted on 3 March 2021</p></body></html>")
    assert "Posted on 3 March 2021" not in text_near_title(document)
    assert heuristic_date(document, URL, original=True) is None


# Date material (month names, separators, cues, a copyright sign, digits of several scripts, entities' characters),
# so that pieces come close to dates without the digits of one.
_DATE_MATERIAL = st.sampled_from([
    "1", "2", "9", "0", "²", "٣", "३", " ", ".", "/", "-", ":", ",", "May ", "January", "juin", "Dec. ", "Posted on ",
    "Updated ", "Datum: ", "© ", "Copyright ", "年", "月", "st", "'", '"', "&", "<", "\u00a0", "ſ", "İ",
])
_PIECES = st.lists(st.lists(_DATE_MATERIAL, max_size=12).map("".join), min_size=1, max_size=4)


@given(_PIECES, st.booleans())
@example(["Posted on 3/5/2", "©"], True)
@example(["Dec. 9, ٣٣"], False)
@example(["Posted on 3/5/", "24"], True)
@example(["©2", "021"], True)
@example(["12.0", "3.2021"], True)
@settings(max_examples=300, deadline=None)
def test_text_the_digit_count_rules_out_holds_no_date_for_htmldate(pieces, original):
    if not may_hold_written_date(pieces):
        assert find_date(_text_page(pieces), extensive_search=True, original_date=original, outputformat=FORMAT) is None


def test_four_digits_may_make_a_date_and_fewer_cannot():
    assert may_hold_written_date(["Posted on 3/5/24"])
    assert find_date(_text_page(["Posted on 3/5/24"]), original_date=True, outputformat=FORMAT) is not None
    # Four digits, but no piece holds them all: no pattern reads a date across pieces.
    assert not may_hold_written_date(["Posted on 3/5/", "24"])
    assert not may_hold_written_date(["Posted on 3/5/2", "January"])
    assert not may_hold_written_date([])
