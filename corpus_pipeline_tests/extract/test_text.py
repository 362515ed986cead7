"""Text helpers shared by the extractors."""

import re
from collections import Counter
from itertools import pairwise

from hypothesis import example, given, settings
from hypothesis import strategies as st

from corpus_pipeline.extract import text
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS
from corpus_pipeline.extract.text import KeyedLines, line_key, word_count

NOTICE = "Colour and model availability may vary depending on country, region or carrier."
QUESTION = "Which dish from your childhood would you still cook for friends today?"


def without_degenerate_lines(text: str) -> str:
    return KeyedLines.of(text).without_degenerate_lines().text


def test_lines_of_markup_debris_are_dropped():
    debris = [
        "Book Now *" * 30,
        "1 of 5 stars 2 of 5 stars 3 of 5 stars 4 of 5 stars 5 of 5 stars",
        " ".join(f"{n:08x}-9b83-4f3c-a400-{n * 7919:012x}" for n in range(1, 8)),
    ]
    assert without_degenerate_lines("\n".join([NOTICE, *debris, QUESTION])) == "\n".join([NOTICE, QUESTION])


def test_prose_table_rows_and_short_lines_that_repeat_words_stay():
    kept = [
        "I knew what I was looking for, I knew I would find it and I told the head office I would.",
        "| Connection | Wired | Wired | Bluetooth | Wired | Wired | Bluetooth | Wired | Wired | Wired | Wired |",
        "Book Now Book Now Book Now",
        "Model K2 v2 with 84 keys, hot-swap sockets and a 4000 mAh battery, sold in 3 colours since 2019.",
    ]
    assert without_degenerate_lines("\n".join(kept)) == "\n".join(kept)


@given(st.lists(st.text(alphabet=st.sampled_from("ab1 |"), max_size=80), max_size=8))
def test_degenerate_lines_are_only_ever_dropped_whole_and_short_lines_always_stay(lines):
    text = "\n".join(lines)
    kept = without_degenerate_lines(text).split("\n")
    remaining = iter(text.split("\n"))
    assert all(line in remaining for line in kept)
    assert all(line in kept for line in text.split("\n") if len(line_key(line).split()) < 20)


def _degenerate(line: str) -> bool:
    """The rule itself, computed in full: 20 words or more, not a table row, whose most frequent pair of neighbouring
    words fills 40 % of them, or half of whose words mix letters and digits."""
    words = line_key(line).split()
    if len(words) < DEFAULT_SETTINGS.min_degenerate_line_words or line.lstrip().startswith("|"):
        return False
    if 2 * Counter(pairwise(words)).most_common(1)[0][1] >= DEFAULT_SETTINGS.min_top_pair_share * len(words):
        return True
    ids = sum(bool(re.fullmatch(r"(?=\w*\d)(?=\w*[^\W\d_])\w+", word)) for word in words)
    return ids >= DEFAULT_SETTINGS.min_identifier_share * len(words)


@st.composite
def _long_line(draw: st.DrawFn) -> str:
    """Distinct words (prose), with a phrase repeated among them, ids, a digit alone or a table row's bar."""
    words = draw(st.lists(st.sampled_from([f"{c}{v}" for c in "klmnopqr" for v in "aeiou"]), unique=True, max_size=38))
    words += ["book now"] * draw(st.integers(0, 8)) + ["a1", "b2c3"] * draw(st.integers(0, 12))
    words += draw(st.sampled_from([[], ["7"], ["|"], ["٣a"], ["a1"]]))
    return " ".join(draw(st.permutations(words)))


_LONG_LINES = st.lists(_long_line(), max_size=10)


_PROSE = [f"{c}{v}" for c in "klmnopqr" for v in "aeiou"]


@given(_LONG_LINES)
@example([" ".join(["book now"] * 4 + _PROSE[:12]), " ".join(["book now"] * 4 + _PROSE[:13])])  # 8 of 20 and of 21
@example([" ".join(["zz"] * 5 + _PROSE[:15]), " ".join(["zz"] * 5 + _PROSE[:16])])  # a word's pair with itself: 4 of 20
@example([" ".join(["a1"] * 10 + _PROSE[:10]), " ".join(["a1"] * 10 + _PROSE[:11]), "a1 " * 19 + "7"])
@settings(max_examples=300)
def test_the_degenerate_lines_dropped_are_those_the_rule_computed_in_full_finds(lines):
    text = "\n".join(lines)
    assert without_degenerate_lines(text) == "\n".join(line for line in text.split("\n") if not _degenerate(line))


# Lines of a few words from a small vocabulary, so that texts repeat lines, phrases and template blocks.
_LINES = st.lists(
    st.lists(st.sampled_from(["Book", "now", "a1", "b2", "the", "—", "|", "  "]), max_size=24).map(" ".join), max_size=12
)


@given(_LINES, _LINES)
def test_the_line_filters_chained_on_keyed_lines_give_each_filter_applied_to_the_text_in_turn(lines, template):
    text = "\n".join(lines)
    chained = KeyedLines.of(text).without_lines_in(template)
    known = {line_key(block) for block in template}
    assert chained.lines == [line for line in text.split("\n") if not (line.strip() and line_key(line) in known)]
    assert chained.keys == [line_key(line) for line in chained.lines]
    assert chained.without_degenerate_lines().text == without_degenerate_lines(chained.text)


@given(st.lists(st.text(alphabet=st.sampled_from("aB é1_ .İſΣς\u00a0-"), max_size=1200), min_size=1, max_size=6))
@example(["Σίσυφος ΚΑΙ ΟΔΥΣΣΕΑΣ", "Σίσυφος ΚΑΙ ΟΔΥΣΣΕΑΣ", "x" * 1001, "x" * 1001])
def test_a_line_key_is_its_lower_cased_words_whether_remembered_or_not(lines):
    # Asked twice: the second answer of a remembered key is the first one's.
    for line in lines + lines:
        assert line_key(line) == " ".join(re.findall(r"\w+", line.lower()))


def test_remembered_line_keys_stay_right_from_one_generation_to_the_next_and_their_number_bounded(monkeypatch):
    monkeypatch.setattr(text, "_REMEMBERED_LINES", 3)
    remembered = text._RememberedKeys()
    lines = [f"Line {i % 7} OF the Text" for i in range(40)] + ["x" * 1001] * 2
    for line in lines:
        assert remembered[line] == " ".join(re.findall(r"\w+", line.lower()))
        assert len(remembered) <= 3 and len(remembered._last) <= 3
    assert "x" * 1001 not in remembered  # a long line is not remembered
    assert "Line 4 OF the Text" in remembered and "Line 3 OF the Text" in remembered._last  # the last generation kept


@given(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=300) | st.text(max_size=300)
    | st.text(alphabet=st.sampled_from("aB1_ .,'\u2019\u201c\u2014\u00a0\u2009\u00e9\u0130\u212a"), max_size=300)
)
def test_the_words_of_an_ascii_text_or_any_other_are_those_of_the_regular_expression(text):
    # Texts whose word characters are all ASCII take a faster path (their bytes translated), the others the expression.
    assert word_count(text) == len(re.findall(r"\w+", text))
    assert line_key(text) == " ".join(re.findall(r"\w+", text.lower()))
