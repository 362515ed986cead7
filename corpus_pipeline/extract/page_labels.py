"""A reading's labels of slots the page fills from elsewhere: an ad's label, a related story's pointer.

A page marks the slot of an advertisement with the word "Advertisement" (with "Skip advertisement" or "Story
continues below advertisement" around it): the label of a box, never a sentence of the page. A story points
readers at other stories with a labelled line ("Read more: <another headline>", "Related: ...", "Also read: ...")
set between its paragraphs: another page's title, not this one's text.
"""

from __future__ import annotations

import re

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.text import WORD, line_key

# The whole line, word for word (case aside): an ad slot's label and the words that go with it, as line keys (their
# words joined by spaces): a reading's lines are keyed already (``text.line_key``).
_AD_LABEL_KEYS = frozenset({
    "advertisement",
    "skip advertisement",
    "advertisement continue reading below",
    "story continues below advertisement",
    "article continues below advertisement",
})
# A pointer's label, then a colon: "Read more:", "Related stories:", "More from The Times:", "Don't miss:".
_POINTER = re.compile(
    r"\W*(?:read more|also read|read also|related(?: (?:story|stories|article|articles|reading|content|posts?"
    r"|coverage))?|see also|recommended(?: reading)?|more from\b[^:]{0,30}|further reading|read next|must read"
    r"|don'?t miss)\s*:",
    re.I,
)


def is_ad_label(line: str) -> bool:
    """Whether ``line`` is only an ad slot's label ("Advertisement", "SKIP ADVERTISEMENT")."""
    return line_key(line) in _AD_LABEL_KEYS


def is_story_pointer(line: str, settings: ExtractionSettings = DEFAULT_SETTINGS) -> bool:
    """Whether ``line`` points at another story under a label ("Read more: ..."): at most a headline's words."""
    return _POINTER.match(line) is not None and len(WORD.findall(line)) <= settings.max_pointer_words


def without_labels(text: str, article: bool, settings: ExtractionSettings = DEFAULT_SETTINGS) -> str:
    """``text`` (one block per line) without its ad labels and, on an ``article``, its pointers to other stories."""
    ads = settings.ad_labels_removed
    pointers = article and settings.story_pointers_removed
    if not ads and not pointers:
        return text
    lines = text.split("\n")
    kept = [
        line for line in lines
        if not ((ads and is_ad_label(line)) or (pointers and is_story_pointer(line, settings)))
    ]
    return text if len(kept) == len(lines) else "\n".join(kept)
