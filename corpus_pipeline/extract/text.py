"""Text normalization shared by the extractors."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from itertools import compress, pairwise

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings

# A run of spaces that is not one plain space already: most lines hold no match and come back as they are.
_SPACE_CHARS = r"[ \t\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]"
SPACES = re.compile(rf" {_SPACE_CHARS}+|[\t\f\v\u00a0\u2000-\u200b\u202f\u205f\u3000]{_SPACE_CHARS}*")
_BLANK_LINES = re.compile(r"\n\s*\n+")
# A word, as every extract module counts them (one definition, so that their counts agree).
WORD = re.compile(r"\w+")
# A call or generic (`f(`, `Result<`), a path or arrow operator, or a line ending like a statement or block.
_CODE_LINE = re.compile(r"\w[<(]|::|->|=>|[{};]\s*$")


def normalize_whitespace(text: str) -> str:
    """Collapse spaces inside lines, one blank line between paragraphs, no leading or trailing space."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def join_blocks(blocks: list[str]) -> str:
    """Blocks separated by blank lines, each block once (the first occurrence keeps its place)."""
    return "\n\n".join(dict.fromkeys(filter(None, map(normalize_whitespace, blocks))))


def _key(line: str) -> str:
    lowered = line.lower()
    if lowered.isascii():  # most lines: their words are their runs of ASCII's word bytes
        return b" ".join(lowered.encode().translate(_NON_WORD_AS_SPACE).split()).decode()
    if (data := _ascii_worded(lowered)) is None:
        return " ".join(WORD.findall(lowered))
    return b" ".join(data.translate(_NON_WORD_AS_SPACE).split()).decode()


def word_count(text: str) -> int:
    """The number of words (``WORD``) in ``text``."""
    if (data := _ascii_worded(text)) is None:
        return len(WORD.findall(text))
    marks = data.translate(_WORD_AS_A)  # each word a run of b"a": counted where one starts
    return marks.count(b" a") + marks.startswith(b"a")


def _ascii_worded(text: str) -> bytes | None:
    """``text`` in UTF-8 when all its word characters (``WORD``) are ASCII (most English text: its other characters
    are quotes, dashes, spaces), else None. Its words are then its runs of ASCII's word bytes, found by translating its
    bytes (faster than the regular expression, which looks up each character's Unicode class)."""
    data = text.encode(errors="surrogatepass")
    # Its characters beyond ASCII alone, when there are some, are few: the expression reads them quickly.
    if len(data) != len(text) and WORD.search(data.translate(None, _ASCII).decode(errors="surrogatepass")):
        return None
    return data


_ASCII = bytes(range(128))
# ASCII's word characters (letters, digits, '_') as they are, every other byte a space; and each of them an "a".
_NON_WORD_AS_SPACE = bytes(c if chr(c).isascii() and (chr(c).isalnum() or chr(c) == "_") else 32 for c in range(256))
_WORD_AS_A = bytes(32 if c == 32 else ord("a") for c in _NON_WORD_AS_SPACE)


class _RememberedKeys(dict[str, str]):
    """The keys of the last lines keyed: a page's lines are keyed several times each (filters, readings, headings,
    the line arbiter), and a remembered one is read as a dict's item, without a call to Python. When
    ``_REMEMBERED_LINES`` are remembered, they become the last generation, read for a line not remembered since."""

    def __init__(self) -> None:
        super().__init__()
        self._last: dict[str, str] = {}

    def __missing__(self, line: str) -> str:
        key = self._last.get(line)
        if key is None:
            key = _key(line)
        if len(line) <= _REMEMBERED_LINE_CHARS:  # a long line (a page's whole text, a menu) is keyed each time
            if len(self) >= _REMEMBERED_LINES:
                self._last = dict(self)
                self.clear()
            self[line] = key
        return key


_REMEMBERED_LINES = 4096
_REMEMBERED_LINE_CHARS = 1000
line_key: Callable[[str], str] = _RememberedKeys().__getitem__
"""A line's lower-cased words, space-separated: what two extractors' copies of one line share."""


def word_counts(text: str) -> Counter:
    """How often each lower-cased word occurs in ``text``."""
    return Counter(WORD.findall(text.lower()))


def contained_share(words: Counter, within: Counter) -> float:
    """Share of ``words`` (counted with repeats) that ``within`` also holds; 0.0 when ``words`` is empty."""
    total = sum(words.values())
    if not total:
        return 0.0
    # The shared count is symmetric: walk the smaller bag (a card against a whole page's words, many times over).
    small, large = (words, within) if len(words) <= len(within) else (within, words)
    return sum(min(count, large[word]) for word, count in small.items() if word in large) / total


def mean_words_per_line(lines: list[str]) -> float:
    """Average number of words on the given lines (0.0 for none)."""
    return sum(map(word_count, lines)) / len(lines) if lines else 0.0


def reads_as_code(line: str) -> bool:
    """Whether a line reads as source code (a call, a signature, a statement) rather than prose."""
    return bool(_CODE_LINE.search(line))


_IDENTIFIER = re.compile(r"^(?=\w*\d)(?=\w*[^\W\d_])\w+$")
_DIGIT = re.compile(r"\d")


class KeyedLines:
    """A text's lines, each with its :func:`line_key`, through a chain of line filters: each line's words are found
    once."""

    def __init__(self, lines: list[str], keys: list[str]) -> None:
        self.lines, self.keys = lines, keys

    @classmethod
    def of(cls, text: str) -> KeyedLines:
        """The lines of ``text`` (split at each line break) and their keys."""
        lines = text.split("\n")
        return cls(lines, [line_key(line) for line in lines])

    @property
    def text(self) -> str:
        """The lines, joined by line breaks."""
        return "\n".join(self.lines)

    def _kept(self, keep: list[bool]) -> KeyedLines:
        return KeyedLines(list(compress(self.lines, keep)), list(compress(self.keys, keep)))

    def without_lines_in(self, blocks: list[str]) -> KeyedLines:
        """The lines without those that repeat one of ``blocks`` word for word."""
        if not blocks:
            return self
        known = {line_key(block) for block in blocks}
        pairs = zip(self.lines, self.keys, strict=True)
        return self._kept([not (line.strip() and key in known) for line, key in pairs])

    def without_degenerate_lines(self, settings: ExtractionSettings = DEFAULT_SETTINGS) -> KeyedLines:
        """The lines without those of ``min_degenerate_line_words`` words or more that repeat a phrase or are ids."""
        keep = [not _is_degenerate(line, key, settings) for line, key in zip(self.lines, self.keys, strict=True)]
        return self if all(keep) else self._kept(keep)


def _is_degenerate(line: str, key: str, settings: ExtractionSettings) -> bool:
    """Whether a line (``key``: its :func:`line_key`) is a phrase repeated, or ids."""
    words = key.split()
    count = len(words)
    if count < settings.min_degenerate_line_words or line.lstrip().startswith("|"):
        return False  # a table row repeats its values by nature ("| Wired | Wired | Bluetooth |")
    # Cheap exact bounds first (most long lines are prose): a pair occurs at most as often as its first word, which
    # occurs at most once more than the words are not distinct; and an id holds a digit.
    if 2 * (count - len(set(words)) + 1) >= settings.min_top_pair_share * count:
        top_pair_count = Counter(pairwise(words)).most_common(1)[0][1]
        if 2 * top_pair_count >= settings.min_top_pair_share * count:
            return True
    if _DIGIT.search(key) is None:
        return False
    # An id holds a digit, so it is no word of letters alone (most words: matched without the expression).
    ids = sum(1 for word in words if not word.isalpha() and _IDENTIFIER.match(word))
    return ids >= settings.min_identifier_share * count


class ReadWords:
    """What some readings of a page keep, as word sequences: a line counts as read for the share of its word triples
    found in one of them (a reader splits a list item at its line break, or joins two paragraphs: the words stay in
    order). A line of one or two words counts when a reading holds it as a whole line."""

    def __init__(self, readings: tuple[str, ...]) -> None:
        self.lines: set[str] = set()
        self.triples: set[tuple[str, ...]] = set()
        for reading in readings:
            keys = [key for key in map(line_key, reading.split("\n")) if key]
            self.lines.update(keys)
            words = " ".join(keys).split()
            self.triples.update(zip(words, words[1:], words[2:], strict=False))

    def __bool__(self) -> bool:
        return bool(self.lines)

    def read_share(self, tokens: list[str]) -> float:
        """The share of a line's words (its ``line_key`` split) that the readings keep."""
        if len(tokens) < 3:
            return 1.0 if " ".join(tokens) in self.lines else 0.0
        triples = list(zip(tokens, tokens[1:], tokens[2:], strict=False))
        return sum(t in self.triples for t in triples) / len(triples)

