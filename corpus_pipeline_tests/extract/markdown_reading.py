"""Markdown as :func:`corpus_pipeline.extract.markdown.markdown_of` writes it, read back to its plain lines: the
oracle of the round trip ``strip_markdown(markdown_of(lines)) == plain_of(lines)`` (the Markdown holds the same
words, in the same order, as the plain text)."""

from __future__ import annotations

import re

from corpus_pipeline.extract.markdown import normalized_line

_BACKTICKS = re.compile("`+")
_ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
# A code fence; a backtick fence's info string holds no backtick (CommonMark): "``` `` ```" is an inline code span.
_FENCE = re.compile(r"^(?:(`{3,})(?=[^`]*$)|(~{3,}))")
_ITEM_MARKER = re.compile(r"^(?:[-+*]|\d{1,9}[.)])(?: +|$)")
_ATX = re.compile(r"^#{1,6}(?: +|$)")
_CELL_DELIMITER = re.compile(r"(?<!\\)\|")
_QUOTE = re.compile(r"^ {0,3}> ?")


def strip_markdown(markdown: str) -> str:
    """The plain text of Markdown as :func:`markdown_of` writes it: its lines without their markup, blank-line
    separated (the ``content`` form)."""
    plain: list[str] = []
    fence: tuple[str, int, int] | None = None  # the open code block: fence character, length, quote depth
    table_row = 0  # the line's row in the table it is in (0: none); the second is the rule under the header
    for raw in markdown.split("\n"):
        if fence is not None:
            row = raw
            for _ in range(fence[2]):
                row = _QUOTE.sub("", row.lstrip(" "), count=1)
            stripped = row.strip()
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= fence[1]:
                fence = None
            elif line := normalized_line(row):
                plain.append(line)
            continue
        row, depth = raw.lstrip(), 0
        while (quoted := _QUOTE.match(row)) is not None:
            row, depth = row[quoted.end():].lstrip(), depth + 1
        table_row = table_row + 1 if row.startswith("|") else 0
        if opening := _FENCE.match(row):
            marks = opening.group(1) or opening.group(2)
            fence = (marks[0], len(marks), depth)
            continue
        if not row or table_row == 2:  # the rule, not a header row of cells "---" (a line starting "|" is a row)
            continue
        if table_row:
            plain.extend(_row_lines(row))
            continue
        if (item := _ITEM_MARKER.match(row)) is not None:
            row = row[item.end():]
        if (heading := _ATX.match(row)) is not None:  # a heading, in a list item too
            row = row[heading.end():]
        if line := normalized_line(_inline_plain(row)):
            plain.append(line)
    return "\n\n".join(plain)


def _row_lines(row: str) -> list[str]:
    """The plain lines of a table row's cells (each cell's ``<br>``-separated lines, in order)."""
    lines = []
    # Between the row's outer pipes, at each pipe no backslash escapes (a cell's own backslash is written "\\").
    for cell in _CELL_DELIMITER.split(row)[1:-1]:
        for part in _inline_plain(cell.replace("\\|", "|"), breaks=True).split("\n"):
            if line := normalized_line(part):
                lines.append(line)
    return lines


def _inline_plain(text: str, breaks: bool = False) -> str:
    """Inline Markdown without its markup: escapes resolved, code spans and math as their text, links as theirs,
    images gone (``breaks``: a table cell's, each ``<br>`` outside code and math a line break)."""
    out: list[str] = []
    position, length = 0, len(text)
    while position < length:
        char = text[position]
        if char == "\\" and position + 1 < length and text[position + 1] in _ASCII_PUNCTUATION:
            out.append(text[position + 1])
            position += 2
        elif char == "`" and (opening := _BACKTICKS.match(text, position)) is not None:
            run = opening.end() - position
            # A code span closes at the next run of as many backticks, no more, no fewer.
            closing = re.compile(f"(?<!`){'`' * run}(?!`)").search(text, position + run)
            if closing is None:
                out.append(text[position : position + run])
                position += run
                continue
            inner = text[position + run : closing.start()]
            if len(inner) >= 2 and inner[0] == " " and inner[-1] == " " and inner.strip():
                inner = inner[1:-1]
            out.append(inner)
            position = closing.end()
        elif char == "$":
            run = 2 if text.startswith("$$", position) else 1
            close = text.find("$" * run, position + run)
            if close < 0:
                out.append(text[position:])
                break
            out.append(text[position + run : close])
            position = close + run
        elif char == "!" and text.startswith("![", position):
            position = _after_link(text, position + 1)
        elif char in "[*":
            position += 1
        elif char == "]":
            position = _after_target(text, position + 1)
        elif breaks and text.startswith("<br>", position):
            out.append("\n")
            position += 4
        else:
            out.append(char)
            position += 1
    return "".join(out)


def _after_link(text: str, start: int) -> int:
    """The position after a link or image opening at ``start`` (its ``[``): past its text and target."""
    depth, position = 0, start
    while position < len(text):
        char = text[position]
        if char == "\\":
            position += 2
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return _after_target(text, position + 1)
        position += 1
    return position


def _after_target(text: str, start: int) -> int:
    """The position after a link's ``(target)`` starting at ``start`` (``start`` itself when none)."""
    if not text.startswith("(", start):
        return start
    close = text.find(")", start)
    return close + 1 if close >= 0 else start
