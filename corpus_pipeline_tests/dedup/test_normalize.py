"""Content normalization: accents on Latin letters fold, every other script is kept."""

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_pipeline.dedup.normalize import (
    content_key,
    content_key_of_paragraphs,
    normalize_content,
    normalize_paragraphs,
)


def test_latin_accents_and_case_fold_and_whitespace_collapses():
    assert normalize_content("  Crème\tBRÛLÉE\n à la  Française ") == "creme brulee a la francaise"


def test_a_decomposed_accent_folds_like_a_composed_one():
    assert normalize_content("Cafe\u0301") == normalize_content("Café") == "cafe"


def test_marks_of_other_scripts_stay():
    hindi, hebrew = "\u0915\u093f\u0924\u093e\u092c", "\u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd"
    assert normalize_content(hindi) == hindi
    assert normalize_content(hebrew) == hebrew


def test_a_mark_on_a_non_latin_letter_stays_but_one_on_a_latin_letter_next_to_it_goes():
    assert normalize_content("\u0439e\u0301") == "\u0439e"  # Cyrillic short i keeps its breve


@settings(deadline=None)  # the first call builds the pattern of combining marks
@given(st.lists(st.tuples(st.sampled_from("aeiouAEIOUcnz"), st.text(alphabet="\u0300\u0301\u0308\u0327\u030c"))))
def test_any_marks_on_latin_letters_fold_away(letters_and_marks):
    text = "".join(letter + marks for letter, marks in letters_and_marks)
    assert normalize_content(text) == "".join(letter for letter, _ in letters_and_marks).lower()


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)))
def test_ascii_text_is_lower_cased_with_its_whitespace_collapsed(text):
    assert normalize_content(text) == " ".join(text.lower().split())


@settings(deadline=None)
@given(st.text())
def test_texts_differing_only_in_surrounding_spacing_share_a_content_key(text):
    assert content_key(text) == content_key("  " + text + "\n")


LINES_OF_ANY_TEXT = st.lists(
    st.one_of(st.text(), st.text(alphabet="a\u00e9E\u0301\u0308\u0345 \t\r\u00a0\u3000\u2028\u0915\u093f\ufb01\u00df\u0130\U0001d400")),
    max_size=6,
).map("\n".join)


@settings(deadline=None)
@given(LINES_OF_ANY_TEXT)
def test_the_content_key_of_the_normalized_paragraphs_is_the_texts(text):
    assert content_key_of_paragraphs(normalize_paragraphs(text)) == content_key(text)


def test_paragraphs_are_normalized_one_per_line_and_empty_lines_go():
    assert normalize_paragraphs("Première  ligne\n\n  \nSECOND line") == "premiere ligne\nsecond line"


def _folded_whole(text: str) -> str:
    """The rule on the whole text at once: decompose, drop marks on ASCII letters (or opening the text), compose,
    case-fold, collapse whitespace."""
    kept, base = [], None
    for char in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(char):
            if base is None or base.isascii():
                continue
        else:
            base = char
        kept.append(char)
    return " ".join(unicodedata.normalize("NFC", "".join(kept)).casefold().split())


@settings(deadline=None)
@given(st.text(alphabet="aZé\u0301\u0308\u05b0\u0e31\u00a8\u212bßΣς\u1100\u1161\u0b47\u0b3e \n\t\u2028\u00a0\U0001d165日"))
def test_normalizing_line_by_line_is_normalizing_the_whole_text(text):
    assert normalize_content(text) == _folded_whole(text)
