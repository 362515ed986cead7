"""A reading's pointers at other stories: labels of slots the page fills from elsewhere.

A story points readers at other stories with a labelled line ("Read more: <another headline>", "Related: ...",
"Also read: ...") set between its paragraphs: another page's title, not this one's text.
"""

from __future__ import annotations

import re

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.extract.text import WORD

# A pointer's label, then a colon: "Read more:", "Related stories:", "More from The Times:", "Don't miss:".
_POINTER = re.compile(
    r"\W*(?:read more|also read|read also|related(?: (?:story|stories|article|articles|reading|content|posts?"
    r"|coverage))?|see also|recommended(?: reading)?|more from\b[^:]{0,30}|further reading|read next|must read"
    r"|don'?t miss)\s*:",
    re.I,
)


def is_story_pointer(line: str, settings: ExtractionSettings = DEFAULT_SETTINGS) -> bool:
    """Whether ``line`` points at another story under a label ("Read more: ..."): at most a headline's words."""
    return _POINTER.match(line) is not None and len(WORD.findall(line)) <= settings.max_pointer_words


def without_labels(text: str, article: bool, settings: ExtractionSettings = DEFAULT_SETTINGS) -> str:
    """``text`` (one block per line) without, on an ``article``, its pointers to other stories."""
    if not article or not settings.story_pointers_removed:
        return text
    return "\n".join(line for line in text.split("\n") if not is_story_pointer(line, settings))
