"""Ad labels and pointers at other stories: the labels of slots a page fills from elsewhere, not its text."""

import re
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from corpus_pipeline.core.registry import parse_registry
from corpus_pipeline.extract.page import HtmlPage, parse_html_page
from corpus_pipeline.extract.page_labels import _AD_LABEL_KEYS, is_ad_label, is_story_pointer, without_labels
from corpus_pipeline.extract.settings import ExtractionSettings
from corpus_pipeline_tests.extract.test_byline import STORY, reading


def test_an_ad_slot_s_label_goes_and_a_sentence_about_advertising_stays():
    assert is_ad_label("Advertisement") and is_ad_label("SKIP ADVERTISEMENT")
    assert is_ad_label("Advertisement - Continue Reading Below")
    assert not is_ad_label("Advertisement revenue fell by a third this year.")
    assert not is_ad_label("Advertising")
    text = reading(STORY[0], "Advertisement", STORY[1], "Skip advertisement", STORY[2])
    assert without_labels(text, article=False) == reading(*STORY)


def test_a_labelled_pointer_at_another_story_goes_on_an_article_only():
    assert is_story_pointer("Read more: The city's new parks plan, explained")
    assert is_story_pointer("RELATED STORIES:") and is_story_pointer("More from The Times: Ten gardens to visit")
    assert not is_story_pointer("Read the full report on the council's website.")  # no label: a sentence
    long_line = "Related: " + " ".join(["word"] * 40)
    assert not is_story_pointer(long_line)  # a paragraph that opens like a label
    text = reading(STORY[0], "Also read: Ten gardens to visit this spring", STORY[1], STORY[2])
    assert without_labels(text, article=True) == reading(*STORY)
    assert without_labels(text, article=False) == text  # a listing's "Read more:" lines are its records


def test_each_rule_has_its_switch():
    text = reading(STORY[0], "Advertisement", "Read more: Ten gardens to visit", *STORY[1:])
    off = ExtractionSettings(ad_labels_removed=False, story_pointers_removed=False)
    assert without_labels(text, article=True, settings=off) == text
    ads_only = ExtractionSettings(story_pointers_removed=False)
    assert without_labels(text, article=True, settings=ads_only) == reading(
        STORY[0], "Read more: Ten gardens to visit", *STORY[1:]
    )


def test_a_record_leaves_out_its_ad_labels():
    paragraphs = "<div class='ad'><p>Advertisement</p></div>".join(f"<p>{line}</p>" for line in STORY * 2)
    page = f"<html lang='en'><head><title>Gardens</title></head><body><article>{paragraphs}</article></body></html>"
    site = parse_registry({"websites": [{"name": "site", "url": "http://127.0.0.1:8000/"}]}).websites[0]
    html_page = HtmlPage("http://127.0.0.1:8000/post.html", page.encode(), "text/html", datetime(2024, 3, 12, tzinfo=UTC))
    content = parse_html_page(html_page, site)["content"]
    assert STORY[0] in content and "Advertisement" not in content
    kept = parse_html_page(html_page, site, settings=ExtractionSettings(ad_labels_removed=False))["content"]
    assert "Advertisement" in kept  # the extractors keep the label: this rule is what removes it


@given(st.lists(st.sampled_from(["Advertisement", "SKIP", "story", "continues", "below", " ", " - ", "İ", "ad", ":"])))
def test_a_line_is_an_ad_label_when_its_lower_cased_words_are_one(parts):
    line = "".join(parts)
    assert is_ad_label(line) == (" ".join(re.findall(r"\w+", line.lower())) in _AD_LABEL_KEYS)
