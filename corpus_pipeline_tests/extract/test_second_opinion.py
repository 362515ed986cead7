"""The second main-content opinion and when it overrides trafilatura."""

import re
import sys
from dataclasses import replace

from hypothesis import example, given, settings
from hypothesis import strategies as st

from corpus_pipeline.extract.second_opinion import merged_content, missed_content, resiliparse_main_text
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings

SERVICES = [
    "Boiler repair within a day, by certified engineers who carry the common parts in their vans.",
    "Annual servicing that keeps the warranty valid and catches leaks before they become floods.",
    "Radiator bleeding and power flushing for homes where some rooms never get warm in winter.",
    "Smart thermostat installation with a walk-through of schedules, zones and holiday modes.",
]


def merge_missed_content(
    primary: str, second: str, min_words_per_added_line: float | None = None,
    settings: ExtractionSettings = DEFAULT_SETTINGS,
) -> str:
    """What main_content makes of the two opinions: their merge when primary missed content, else primary."""
    if not missed_content(primary, second, min_words_per_added_line, settings):
        return primary
    return merged_content(primary, second)


def test_content_missed_by_the_primary_extractor_is_merged_in_reading_order():
    primary = SERVICES[1]
    merged = merge_missed_content(primary, "\n".join(SERVICES))
    assert merged.split("\n") == SERVICES


def test_primary_lines_the_second_opinion_lacks_are_kept():
    primary = "\n".join([SERVICES[1], SERVICES[2], "Call today."])
    merged = merge_missed_content(primary, "\n".join(SERVICES))
    assert merged.split("\n") == [*SERVICES, "Call today."]
    assert missed_content(primary, "\n".join(SERVICES))
    assert merged_content(primary, "\n".join(SERVICES)) == merged, "the merge alone, for a caller that checked"


def test_a_primary_reading_with_a_few_lines_of_its_own_is_still_completed():
    # trafilatura read one service and a caption the second opinion lacks: three quarters of its words are shared.
    primary = "\n".join([SERVICES[1], "Photo of a van outside"])
    merged = merge_missed_content(primary, "\n".join(SERVICES))
    assert merged.split("\n") == [*SERVICES, "Photo of a van outside"]
    unrelated = "\n".join([SERVICES[1], "Photograph: Zanzibar lighthouse keepers wearing yellow jackets, Kilimanjaro horizon visible"])
    assert merge_missed_content(unrelated, "\n".join(SERVICES)) == unrelated, "half of it is elsewhere: no merge"


def test_a_different_or_barely_longer_second_opinion_is_ignored():
    assert merge_missed_content(SERVICES[0], "Cookie settings\nAccept all\n" * 20) == SERVICES[0]
    assert merge_missed_content("\n".join(SERVICES[:3]), "\n".join(SERVICES)) == "\n".join(SERVICES[:3])


def test_second_opinion_alone_when_the_primary_found_nothing():
    assert merge_missed_content("", SERVICES[2]) == SERVICES[2]
    assert merge_missed_content(SERVICES[2], "") == SERVICES[2]


def test_resiliparse_keeps_main_blocks_drops_navigation_and_skips_asked_tags():
    page = (
        "<html><body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav><main>"
        + "".join(f"<section><h2>Service {i}</h2><p>{text}</p></section>" for i, text in enumerate(SERVICES))
        + "<pre>print('code sample')</pre></main><footer>© Heating Ltd</footer></body></html>"
    )
    text = resiliparse_main_text(page)
    assert all(service in text for service in SERVICES) and "About" not in text and "code sample" in text
    assert "code sample" not in resiliparse_main_text(page, ["pre", "code"])


def test_a_grid_of_one_word_lines_is_not_missed_content():
    """Job cards and filter menus around a short intro are not text the primary extractor dropped."""
    intro = SERVICES[0]
    cards = "\n".join(f"Engineer\nFull-time\nRemote\nUS${60 + i}K\nApply" for i in range(30))
    assert merge_missed_content(intro, f"{intro}\n{cards}") == intro


def test_merging_brings_back_no_block_the_template_repeats():
    """A mobile and a desktop copy of the same specs appear once, as in the primary extractor's text."""
    specs = "Specifications\nManufacturer: 3M\nPart number 17026CLR-40ES"
    primary = f"{SERVICES[1]}\nRepeat after me.\nRepeat after me."
    merged = merge_missed_content(primary, "\n".join([specs, *SERVICES, specs, "Repeat after me.", "Repeat after me."]))
    assert merged.split("\n") == [*specs.split("\n"), *SERVICES, "Repeat after me.", "Repeat after me."]


def test_a_stricter_caller_takes_only_prose_from_the_second_opinion():
    """Product pages: a long description trafilatura dropped comes back; a spec sheet does not."""
    description = " ".join(SERVICES)
    specs = "\n".join(f"Weight: {i} kg\nColour: grey\nWarranty: {i} years" for i in range(10))
    title = "Condensing boiler 24 kW"
    assert merge_missed_content(title, f"{title}\n{specs}", min_words_per_added_line=20) == title
    assert merge_missed_content(title, f"{title}\n{description}", min_words_per_added_line=20) == f"{title}\n{description}"
    assert merge_missed_content(title, f"{title}\n{specs}") != title  # the default threshold takes spec rows


def _words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def test_the_merge_starts_exactly_at_the_minimum_growth():
    """The growth guard decides most merges (wcxb-dev pages where trafilatura read a part of a service list)."""
    primary, second = SERVICES[1], "\n".join(SERVICES)
    growth = _words(second) / _words(primary)
    at = replace(DEFAULT_SETTINGS, min_growth=growth)
    above = replace(DEFAULT_SETTINGS, min_growth=growth + 1e-6)
    assert missed_content(primary, second, settings=at)
    assert merge_missed_content(primary, second, settings=at).split("\n") == SERVICES
    assert not missed_content(primary, second, settings=above)
    assert merge_missed_content(primary, second, settings=above) == primary


def test_the_merge_needs_the_minimum_containment():
    primary = "\n".join([SERVICES[1], "Zanzibar lighthouse keepers"])
    second = "\n".join(SERVICES)
    containment = (_words(SERVICES[1])) / _words(primary)  # the caption's words are nowhere in the second
    assert missed_content(primary, second, settings=replace(DEFAULT_SETTINGS, min_containment=containment))
    assert not missed_content(primary, second, settings=replace(DEFAULT_SETTINGS, min_containment=containment + 1e-6))


def test_added_lines_must_average_the_minimum_words():
    primary, second = SERVICES[1], "\n".join(SERVICES)
    added = [line for line in SERVICES if line != SERVICES[1]]
    mean = sum(map(_words, added)) / len(added)
    assert missed_content(primary, second, settings=replace(DEFAULT_SETTINGS, min_words_per_added_line=mean))
    assert not missed_content(primary, second, settings=replace(DEFAULT_SETTINGS, min_words_per_added_line=mean + 1e-6))
    assert not missed_content(primary, second, mean + 1e-6), "a caller's own minimum (product pages) wins"


def test_with_the_merge_switched_off_only_an_empty_reading_is_filled():
    off = replace(DEFAULT_SETTINGS, second_opinion_merge=False)
    assert merge_missed_content(SERVICES[1], "\n".join(SERVICES), settings=off) == SERVICES[1]
    assert merge_missed_content("", SERVICES[2], settings=off) == SERVICES[2]


def test_lower_case_splits_or_joins_words_only_for_the_dotted_capital_i():
    # missed_content takes a text's word count as its lower-cased text's count unless the text holds this character.
    word = re.compile(r"\w")
    changed = [
        char for char in map(chr, range(sys.maxunicode + 1))
        if len(lower := char.lower()) != 1 or bool(word.match(lower)) != bool(word.match(char))
    ]
    assert changed == ["\u0130"]


_TEXT = st.lists(
    st.sampled_from([*SERVICES, "İstanbul İİ", "Boiler", "def f(x): return x;", "", "Annual servicing"]), max_size=8
).map("\n".join)


@given(_TEXT, _TEXT)
@example("İstanbul", "İstanbul İİ\n" + "\n".join(SERVICES))
@example(SERVICES[1], "\n".join(SERVICES))
@settings(max_examples=200, deadline=None)
def test_missed_content_is_the_same_with_the_callers_word_counts(primary, second):
    counts = {"primary_count": len(re.findall(r"\w+", primary)), "second_count": len(re.findall(r"\w+", second))}
    for min_words in (None, 3.0):
        assert missed_content(primary, second, min_words, **counts) == missed_content(primary, second, min_words)
