"""Pointers at other stories: the labels of slots a page fills from elsewhere, not its text."""

from corpus_pipeline.extract.page_labels import is_story_pointer, without_labels
from corpus_pipeline.extract.settings import ExtractionSettings
from corpus_pipeline_tests.extract.test_byline import STORY, reading


def test_a_labelled_pointer_at_another_story_goes_on_an_article_only():
    assert is_story_pointer("Read more: The city's new parks plan, explained")
    assert is_story_pointer("RELATED STORIES:") and is_story_pointer("More from The Times: Ten gardens to visit")
    assert not is_story_pointer("Read the full report on the council's website.")  # no label: a sentence
    long_line = "Related: " + " ".join(["word"] * 40)
    assert not is_story_pointer(long_line)  # a paragraph that opens like a label
    text = reading(STORY[0], "Also read: Ten gardens to visit this spring", STORY[1], STORY[2])
    assert without_labels(text, article=True) == reading(*STORY)
    assert without_labels(text, article=False) == text  # a listing's "Read more:" lines are its records


def test_the_rule_has_its_switch():
    text = reading(STORY[0], "Read more: Ten gardens to visit", *STORY[1:])
    off = ExtractionSettings(story_pointers_removed=False)
    assert without_labels(text, article=True, settings=off) == text
    assert without_labels(text, article=True) == reading(*STORY)
