"""Written dates next to a title are read as htmldate's extensive search reads them; dateparser reads English and the
page's declared languages only, never loading all of its locales."""

import subprocess
import sys
from datetime import UTC, datetime
from html import escape

import pytest
from htmldate import find_date
from htmldate.core import search_page
from htmldate.utils import Extractor
from htmldate.validators import get_max_date, get_min_date
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lxml import html

from corpus_pipeline.extract.metadata import heuristic_date
from corpus_pipeline.extract.written_dates import declared_languages, may_hold_written_date, page_search, written_date

FORMAT = "%Y-%m-%dT%H:%M:%S%z"

# Each list of pieces: a date htmldate's own parsers read, one only dateparser reads ("Dec. 19, 2025"), a timestamp,
# several dates (the oldest wins), a date out of htmldate's bounds, a Chinese month with no day, and none at all.
PIECES = [
    ["Rainwater tanks", "Posted on 3 March 2021 by the committee"],
    ["Rainwater tanks", "Dec. 19, 2025", "A tank under every gutter"],
    ["Minutes", "2024-02-03 10:11:12 meeting opened"],
    ["Dec. 19, 2025", "Updated Feb. 27, 2025", "Posted on 3 March 2021"],
    ["November 20, 9999 7:00 PM", "A tank under every gutter"],
    ["序", "2019 年 8 月", "Sam Hartman"],
    ["Rainwater tanks", "A tank under every gutter collects enough rain"],
]


@pytest.mark.parametrize("pieces", PIECES)
@pytest.mark.parametrize("original", [True, False])
def test_the_same_answer_as_htmldate_extensive_search_of_the_same_text(pieces, original):
    page = "<html><body>" + "".join(f"<p>{escape(piece)}</p>" for piece in pieces) + "</body></html>"
    expected = find_date(page, extensive_search=True, original_date=original, outputformat=FORMAT)
    assert written_date(pieces, (), original, FORMAT) == expected


def test_dateparser_reads_the_declared_language_as_well_as_english():
    pieces = ["Zbiornik na deszczówkę", "19 grudnia 2025"]
    assert written_date(pieces, ("pl",), True, FORMAT) == "2025-12-19T00:00:00"
    # Not on a page that does not declare Polish: only the year, which htmldate's own search finds.
    assert written_date(pieces, (), True, FORMAT) == "2025-01-01T00:00:00"
    assert written_date(["Tanks", "Dec. 19, 2025"], ("pl",), True, FORMAT) == "2025-12-19T00:00:00"


def test_declared_languages_come_from_the_root_and_the_content_language_meta():
    document = html.document_fromstring(
        '<html lang="pt-BR"><head><meta http-equiv="Content-Language" content="de, fr"></head><body><p>x</p></body></html>'
    )
    assert declared_languages(document) == ("de", "fr", "pt-BR")
    assert declared_languages(html.document_fromstring("<html><body><p>x</p></body></html>")) == ()


def test_a_page_in_an_unknown_or_odd_language_is_read_in_english():
    pieces = ["Tanks", "Dec. 19, 2025"]
    assert written_date(pieces, ("x-klingon", "zh-Hant", "sr-Latn", "-"), True, FORMAT) == "2025-12-19T00:00:00"


def test_the_text_near_the_title_is_searched_for_the_publication_date():
    document = html.document_fromstring(
        '<html lang="pl"><body><h1>Zbiorniki</h1><p>19 grudnia 2025</p><p>Tekst artykułu.</p></body></html>'
    )
    assert heuristic_date(document, "http://127.0.0.1:8000/a.html", original=True) == datetime(2025, 12, 19, tzinfo=UTC)


CHECK_LOCALES = """
from lxml import html
from dateparser.languages.loader import LocaleDataLoader
from corpus_pipeline.extract.metadata import heuristic_date

document = html.document_fromstring(
    "<html><body><h1>Debian</h1><p>2019 年 8 月</p><p>Sam Hartman</p><p>Dec. 19, 2025</p></body></html>"
)
print(heuristic_date(document, "http://127.0.0.1:8000/zh-CN/preface.html", original=True))
print(len(LocaleDataLoader._loaded_languages), len(LocaleDataLoader._loaded_locales))
"""


def test_a_string_no_language_dates_does_not_load_every_locale():
    # A fresh interpreter: dateparser keeps the locales it loaded for the life of the process.
    done = subprocess.run([sys.executable, "-c", CHECK_LOCALES], capture_output=True, text=True, check=True)
    found, counts = done.stdout.splitlines()
    assert found == "2025-12-19 00:00:00+00:00"
    languages, locales = map(int, counts.split())
    assert 1 <= languages <= 2 and locales <= 3  # English (dateparser has ~200 languages, ~700 locales)


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
    if may_hold_written_date(pieces):
        return
    page = "<html><body>" + "".join(f"<p>{escape(piece)}</p>" for piece in pieces) + "</body></html>"
    assert find_date(page, extensive_search=True, original_date=original, outputformat=FORMAT) is None
    assert written_date(pieces, ("en", "fr", "ar"), original, FORMAT) is None


def test_four_digits_may_make_a_date_and_fewer_cannot():
    assert may_hold_written_date(["Posted on 3/5/24"])
    assert written_date(["Posted on 3/5/24"], (), True, FORMAT) is not None
    # Four digits, but no piece holds them all: no pattern reads a date across pieces.
    split = ["Posted on 3/5/", "24"]
    assert not may_hold_written_date(split)
    page = "<html><body>" + "".join(f"<p>{escape(piece)}</p>" for piece in split) + "</body></html>"
    assert find_date(page, extensive_search=True, original_date=True, outputformat=FORMAT) is None
    assert written_date(split, (), True, FORMAT) is None
    assert not may_hold_written_date(["Posted on 3/5/2", "January"])
    assert not may_hold_written_date([])


# Years in and out of htmldate's 1990-2039, two-digit years after days and months, copyright notices, month names and
# markup, so that texts come close to each of search_page's steps.
_PAGE_PARTS = st.sampled_from([
    "1989", "1990", "1999", "2021", "2039", "2040", "21", "99", "3", "12", "31", "/", ".", "-", " ", " ", "©",
    "&copy;", "(c) ", "Copyright ", "May ", "3rd of ", "January ", ", ", "<p>", "</p>", "w3.org", "x",
])


@given(st.lists(_PAGE_PARTS, max_size=20).map("".join), st.booleans())
@example("<p>Posted 3/5/24 by</p>", True)
@example("<p>© 2021 x</p>", False)
@example("<p>12.03.99.</p>", True)
@settings(max_examples=400, deadline=None)
def test_the_page_search_is_htmldate_s(source, original):
    options = Extractor(True, get_max_date(None), get_min_date(None), original, FORMAT)
    assert page_search(source, options) == search_page(source, options)


def test_a_text_without_a_year_or_a_short_date_skips_the_page_search():
    options = Extractor(True, get_max_date(None), get_min_date(None), True, FORMAT)
    assert page_search("<p>6.7.3. Files of 1989 and 2040</p>", options) is None
    assert page_search("<p>Posted 3/5/24 by</p>", options) == search_page("<p>Posted 3/5/24 by</p>", options)
    assert page_search("<p>Posted 3/5/24 by</p>", options) is not None
