"""The card grid of a listing page: the largest run of sibling elements that share a tag and class.

A job board, a shop category or a news front page shows its content as cards: one repeated element per job,
product or story, each with a title and a line or two. Main-content extractors built for articles read such
cards as navigation (short, linked) and keep a fraction of them. The repetition itself is the evidence that
they are the content: a template renders each record of a list with the same markup.
"""

from __future__ import annotations

import string
from collections import defaultdict

from lxml import etree, html

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings

# Subtrees whose text is never a record of the list (site menus, filters, page furniture).
_NOT_RECORDS = frozenset({
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "select", "button",
})
# What the walk never counts the text of: subtrees that are no records, comments, processing instructions and entities
# (whose tags are lxml's factories of them, not names).
_NO_RECORDS = _NOT_RECORDS | {etree.Comment, etree.ProcessingInstruction, etree.Entity}
# Every text and tail below an element (in libxml2, each a text node) but a script's (faster than ``itertext()``):
# scripts, kept for trafilatura (it reads ld+json), hold most of a page's text, and never a card's.
_TEXT_OUTSIDE_SCRIPTS = etree.XPath("descendant::text()[not(parent::script)]", smart_strings=False)
# Every text and tail below the elements ``$cards``, read in one call.
_TEXT_IN = etree.XPath("$cards/descendant::text()", smart_strings=False)
_BLOCKS = frozenset({
    "address", "article", "blockquote", "dd", "div", "dl", "dt", "figcaption", "figure", "h1", "h2", "h3", "h4",
    "h5", "h6", "li", "main", "ol", "p", "section", "table", "td", "th", "tr", "ul",
})


def card_grid_cards(document: html.HtmlElement, settings: ExtractionSettings = DEFAULT_SETTINGS) -> list[list[str]]:
    """The cards of the page's largest card grid, each as its lines (none when the page has no grid).

    Cards are the element children of one parent sharing a tag and their first two classes; the grid is the group
    with the most words, among groups of ``min_cards`` cards or more averaging ``min_words_per_card`` words where no
    card holds over ``max_card_share`` of them (``settings``). Identical cards (a carousel's clones) are kept once.
    """
    return _card_lines(_card_elements(document, settings))


def _card_elements(document: html.HtmlElement, settings: ExtractionSettings) -> list[html.HtmlElement]:
    """The elements of :func:`card_grid_cards`'s cards, in page order."""
    grid = _LargestGrid(settings)
    if isinstance(document.tag, str) and document.tag not in _NOT_RECORDS:
        grid.walk(document)
    return _with_other_columns(grid.best, settings)


def _card_lines(elements: list[html.HtmlElement]) -> list[list[str]]:
    cards = (_block_lines(card) for card in elements)
    return list({"\n".join(lines): lines for lines in cards if lines}.values())  # a card's lines hold no line break


class CardGrid:
    """A page's card grid (:func:`card_grid_cards`), found when first asked for (most pages never need it), and
    bounds on its words found before it or its lines are. The page must not be edited until its lines have been read."""

    def __init__(self, document: html.HtmlElement, settings: ExtractionSettings = DEFAULT_SETTINGS) -> None:
        self._document = document
        self._settings = settings
        self._elements: list[html.HtmlElement] | None = None
        self._cards: list[list[str]] | None = None

    def find(self) -> None:
        """Find the grid's cards, their lines not yet read (:meth:`max_words` then bounds their words closely)."""
        if self._elements is None:
            self._elements = _card_elements(self._document, self._settings)

    def cards(self) -> list[list[str]]:
        """:func:`card_grid_cards` of the page (found once)."""
        if self._cards is None:
            self.find()
            self._cards = _card_lines(self._elements or [])
        return self._cards

    def max_words(self) -> int:
        """At least as many words (``\\w+``) as the grid's lines hold, counted by :func:`_at_least_words` in text
        pieces each on its own: the lines once read; before, the text pieces of the cards once found (their menus and
        scripts included); before, those of the page outside scripts (a card's lines join its elements' texts and
        tails, never a script's, and no two cards share an element)."""
        if self._cards is not None:
            pieces = [line for card in self._cards for line in card]
        elif self._elements is not None:
            pieces = _TEXT_IN(self._document, cards=self._elements)
        else:
            pieces = _TEXT_OUTSIDE_SCRIPTS(self._document)
        return _at_least_words("\n".join(pieces))


class _LargestGrid:
    """The walk of :func:`card_grid_cards`: every element's words counted once, bottom up, each parent's children
    grouped when they may hold a larger grid than the one found so far."""

    def __init__(self, settings: ExtractionSettings) -> None:
        self.settings = settings
        self.best: list[html.HtmlElement] = []
        self.best_words = 0

    def walk(self, root: html.HtmlElement) -> None:
        """Count the words of every element below ``root`` (menus and scripts left out), each parent's after its
        children's, and keep the largest grid (``best``). A stack, not recursion: a tree built in code may nest
        deeper than Python's recursion limit."""
        min_cards = self.settings.min_cards
        # An open element: itself, its children still to count, those counted with their words (None when it has too
        # few children to be a grid's parent: most elements), its words so far (its text's and its counted children's
        # with their tails).
        text = root.text
        open_elements: list[list] = [
            [root, iter(root), [] if len(root) >= min_cards else None, len(text.split()) if text else 0]
        ]
        while open_elements:
            top = open_elements[-1]
            node, children, counted, words = top
            # The children are read in one loop until one must be opened (leaves, half the elements, never are).
            for child in children:
                tag = child.tag
                if tag in _NO_RECORDS:  # only its tail counts
                    child_words = 0
                elif len(child):
                    top[3] = words
                    text = child.text
                    open_elements.append(
                        [child, iter(child), [] if len(child) >= min_cards else None, len(text.split()) if text else 0]
                    )
                    break
                else:
                    text = child.text
                    child_words = len(text.split()) if text else 0
                if counted is not None:
                    counted.append((child, child_words))
                tail = child.tail
                words += child_words + (len(tail.split()) if tail else 0)
            else:  # all its children counted
                open_elements.pop()
                if counted is not None:
                    self._consider(counted, words)
                if open_elements:
                    parent = open_elements[-1]
                    if parent[2] is not None:
                        parent[2].append((node, words))
                    tail = node.tail
                    parent[3] += words + (len(tail.split()) if tail else 0)

    def _consider(self, counted: list[tuple[html.HtmlElement, int]], total: int) -> None:
        """Keep the largest group of alike children of one parent (their words counted) that beats ``best``."""
        settings = self.settings
        if total <= self.best_words:
            return  # too few words among them to beat the grid found so far
        groups: dict[tuple[str, str], list[tuple[html.HtmlElement, int]]] = defaultdict(list)
        for child, words in counted:
            if isinstance(child.tag, str):
                groups[_signature(child)].append((child, words))
        for cards in groups.values():
            group_words = sum(words for _, words in cards)
            if (
                len(cards) >= settings.min_cards
                and group_words >= settings.min_words_per_card * len(cards)
                and group_words > self.best_words
                and max(words for _, words in cards) <= settings.max_card_share * group_words
            ):
                self.best, self.best_words = [card for card, _ in cards], group_words


def _at_least_words(text: str) -> int:
    """At least as many as ``text``'s words (``\\w+``), often as many, counted several times faster than a regular
    expression finds them beyond ASCII (a page's text almost always is): its UTF-8 bytes' runs of ``_WORD_BYTES``.
    A word starts a run (at its first byte, or at the second when its first character is beyond ASCII) and two
    words have a separator byte between them (of the ASCII character or the first byte of the character between)."""
    marked = text.encode("utf-8", "surrogatepass").translate(_WORD_BYTES)
    return marked.count(b" x") + marked.startswith(b"x")


# UTF-8 bytes as word bytes ("x") or separators (" "): an ASCII byte as ``\w`` reads it; beyond ASCII, a character's
# first byte separates, its others are word bytes (a word, a letter or a dash alike: each such character starts a run).
_WORD_BYTES = bytes(
    ord("x") if chr(byte) in string.ascii_letters + string.digits + "_" or 0x80 <= byte < 0xC0 else ord(" ")
    for byte in range(256)
)


def _with_other_columns(cards: list[html.HtmlElement], settings: ExtractionSettings) -> list[html.HtmlElement]:
    """The grid's cards and those of its other columns (an index split over two table cells), in page order: the
    containers laid out like the grid's own, the same tags and classes up to a shared ancestor
    ``grid_column_levels`` levels above the cards' parent."""

    if not cards or settings.grid_column_levels <= 0:
        return cards
    chain = [cards[0].getparent()]
    while len(chain) <= settings.grid_column_levels and (up := chain[-1].getparent()) is not None:
        chain.append(up)
    if len(chain) < 2:
        return cards
    columns = [chain[-1]]
    for container in reversed(chain[:-1]):  # down from the shared ancestor, keeping the elements laid out alike
        columns = _children_like(columns, container)
    return _children_like(columns, cards[0])


def _children_like(parents: list[html.HtmlElement], model: html.HtmlElement) -> list[html.HtmlElement]:
    """The element children of ``parents`` with ``model``'s tag and classes, in page order."""
    wanted = _signature(model)
    children = (child for parent in parents for child in parent if isinstance(child.tag, str))
    return [child for child in children if _signature(child) == wanted]


def _signature(element: html.HtmlElement) -> tuple[str, str]:
    classes = element.get("class")
    return element.tag, " ".join(sorted(classes.split()[:2])) if classes else ""


def _block_lines(card: html.HtmlElement) -> list[str]:
    """A card's text, a line per block element (title, excerpt, price), menus and scripts left out."""
    lines: list[str] = []
    current: list[str] = []

    def close_line() -> None:
        if line := " ".join(" ".join(current).split()):
            lines.append(line)
        current.clear()

    # Comments and processing instructions come as events of their own: no text, but their tails are the card's.
    walker = etree.iterwalk(card, events=("start", "end", "comment", "pi"))
    for event, node in walker:
        if not isinstance(node.tag, str):
            current.append(node.tail or "")
            continue
        if event == "start":
            if node.tag in _NOT_RECORDS:
                walker.skip_subtree()
                continue
            if node.tag in _BLOCKS or node.tag == "br":
                close_line()
            current.append(node.text or "")
        else:
            if node.tag in _BLOCKS:
                close_line()
            if node is not card:
                current.append(node.tail or "")
    close_line()
    return lines
