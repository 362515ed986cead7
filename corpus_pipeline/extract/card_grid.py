"""The card grid of a listing page: the largest run of sibling elements that share a tag and class.

A job board, a shop category or a news front page shows its content as cards: one repeated element per job,
product or story, each with a title and a line or two. Main-content extractors built for articles read such
cards as navigation (short, linked) and keep a fraction of them. The repetition itself is the evidence that
they are the content: a template renders each record of a list with the same markup.
"""

from __future__ import annotations

from collections import defaultdict

from lxml import etree, html

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings

# Subtrees whose text is never a record of the list (site menus, filters, page furniture).
_NOT_RECORDS = frozenset({
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "select", "button",
})
_BLOCKS = frozenset({
    "address", "article", "blockquote", "dd", "div", "dl", "dt", "figcaption", "figure", "h1", "h2", "h3", "h4",
    "h5", "h6", "li", "main", "ol", "p", "section", "table", "td", "th", "tr", "ul",
})


def card_grid_cards(
    document: html.HtmlElement, settings: ExtractionSettings = DEFAULT_SETTINGS
) -> list[list[str]]:
    """The cards of the page's largest card grid, each as its lines (none when the page has no grid).

    Cards are the element children of one parent sharing a tag and their first two classes; the grid is
    the group with the most words, among groups of ``min_cards`` cards or more averaging
    ``min_words_per_card`` words where no card holds over ``max_card_share`` of them (``settings``). Identical cards
    (a carousel's clones) are kept once.
    """
    words: dict[html.HtmlElement, int] = {}
    best: list[html.HtmlElement] = []
    best_words = 0
    walker = etree.iterwalk(document, events=("start", "end"))
    for event, node in walker:
        if not isinstance(node.tag, str):
            continue
        if node.tag in _NOT_RECORDS:
            if event == "start":
                walker.skip_subtree()  # its "end" still comes, and leaves its words uncounted
            continue
        if event == "start":
            continue
        # Each child's count is read once, by its parent, then dropped: the walk stays linear and small.
        counted = [(child, words.pop(child, 0)) for child in node]
        words[node] = _count(node.text) + sum(count + _count(child.tail) for child, count in counted)
        if len(counted) < settings.min_cards:
            continue
        groups: dict[tuple[str, str], list[tuple[html.HtmlElement, int]]] = defaultdict(list)
        for child, count in counted:
            if isinstance(child.tag, str):
                groups[_signature(child)].append((child, count))
        for cards in groups.values():
            total = sum(count for _, count in cards)
            if (
                len(cards) >= settings.min_cards
                and total >= settings.min_words_per_card * len(cards)
                and total > best_words
                and max(count for _, count in cards) <= settings.max_card_share * total
            ):
                best, best_words = [card for card, _ in cards], total
    texts: list[list[str]] = []
    seen: set[str] = set()
    for card in _with_other_columns(best, settings):
        card_lines = _block_lines(card)
        if card_lines and (key := "\n".join(card_lines)) not in seen:
            seen.add(key)
            texts.append(card_lines)
    return texts


def _with_other_columns(cards: list[html.HtmlElement], settings: ExtractionSettings) -> list[html.HtmlElement]:
    """The grid's cards and those of its other columns, in page order.

    A grid laid out in columns (an index's entries split over two table cells, a shop's cards in one list per
    column) is one run of cards per column; the columns are the containers laid out like the grid's own, the same
    tags and classes up to a shared ancestor ``grid_column_levels`` levels above the cards' parent.
    """
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
    return element.tag, " ".join(sorted((element.get("class") or "").split()[:2]))


def _count(text: str | None) -> int:
    return len(text.split()) if text else 0


def _block_lines(card: html.HtmlElement) -> list[str]:
    """A card's text, a line per block element (title, excerpt, price), menus and scripts left out."""
    lines: list[str] = []
    current: list[str] = []

    def close_line() -> None:
        if line := " ".join(" ".join(current).split()):
            lines.append(line)
        current.clear()

    walker = etree.iterwalk(card, events=("start", "end"))
    for event, node in walker:
        if not isinstance(node.tag, str):
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
