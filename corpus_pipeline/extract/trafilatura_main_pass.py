"""trafilatura 2.3.1's main pass over a cleaned tree and its recovery of stray text, selecting with Python.

``trafilatura.main_extractor``'s ``_extract`` (the main pass over the content candidates), ``prune_unwanted_sections``
and ``recover_wild_text``, step for step, each XPath selection of ``trafilatura.xpaths`` by id and class replaced by
its Python twin of :mod:`corpus_pipeline.extract.trafilatura_xpaths` (the same elements in the same order): those
selections' calls back into Python were over a third of a Debian handbook page's parse. Everything else is
trafilatura's own functions. :mod:`corpus_pipeline.extract.trafilatura_reading` calls these where trafilatura's
``extract_content`` would; its tests compare the readings with ``trafilatura.extract``. trafilatura is pinned.
"""

from __future__ import annotations

import re
from copy import copy

from lxml.etree import Element, XPath, _Element, strip_tags
from lxml.html import HtmlElement
from trafilatura.baseline import _BLOCK_ELEMS, _spaced_text
from trafilatura.htmlprocessing import (
    is_paragraph_listing,
    link_density_test_tables,
    process_node,
    prune_unwanted_nodes,
)
from trafilatura.main_extractor import (
    NOT_AT_THE_END,
    REBUILT_BLOCKS,
    _elem_text,
    handle_textelem,
)
from trafilatura.settings import (
    DEDUPE_SCAN_CAP,
    INLINE_FORMATTABLE,
    MIN_DUPLICATE_LENGTH,
    TAG_CATALOG,
    Extractor,
)
from trafilatura.utils import LINK_FARM_RATIO, text_chars_test, trim
from trafilatura.xml import delete_element
from trafilatura.xpaths import PRECISION_DISCARD_XPATH

from corpus_pipeline.extract.trafilatura_xpaths import (
    BODY,
    DISCARD_IMAGE,
    OVERALL_DISCARD_IN_ONE,
    TEASER_DISCARD,
    Selection,
    any_body,
    basic_cleaning_targets,
)

_ELEMENT_COUNT = XPath("count(descendant-or-self::*)")


def page_text(tree: HtmlElement) -> str:
    """``trafilatura.baseline.html2txt(tree)``: the text of a copy of the page's body (else of the tree) without what
    ``basic_cleaning`` removes, block boundaries spaced."""
    tree = copy(tree)
    body = tree.find(".//body")
    if body is None:
        body = tree
    for element in basic_cleaning_targets(body):
        delete_element(element)
    return _spaced_text(body)


_STRING = XPath("string()", smart_strings=False)
# Control characters lxml refuses in a text, that trafilatura's remove_control_characters keeps (they are spaces):
# page_text fails on a page holding one (the reading then fails, as trafilatura's does).
_REFUSED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def page_text_bound(tree: HtmlElement) -> int | None:
    """At least ``len(page_text(tree))``, without its copy of the tree: the body's text with a space before each
    block element's text and tail (``page_text`` only deletes elements, keeping their tails, adds at most those
    spaces, and collapses whitespace). None when ``page_text`` could fail on the page."""
    body = tree.find(".//body")
    if body is None:
        body = tree
    text = _STRING(body)
    if _REFUSED.search(text):
        return None
    return len(text) + 2 * sum(1 for _ in body.iter(*_BLOCK_ELEMS))


def prune(tree: _Element, selections: list[Selection], with_backup: bool = False) -> _Element:
    """``prune_unwanted_nodes`` with Python selections (it only calls each selection on the tree)."""
    return prune_unwanted_nodes(tree, selections, with_backup=with_backup)


def prune_unwanted_sections(
    tree: _Element, potential_tags: set[str], options: Extractor, keep_teasers: bool = False
) -> _Element:
    """``trafilatura.main_extractor.prune_unwanted_sections``."""
    favor_precision = options.focus == "precision"
    tree = prune(tree, OVERALL_DISCARD_IN_ONE, with_backup=True)
    if "graphic" not in potential_tags:
        tree = prune(tree, DISCARD_IMAGE)
    if options.focus != "recall":
        if not keep_teasers:
            tree = prune(tree, TEASER_DISCARD)
        if favor_precision:
            tree = prune_unwanted_nodes(tree, PRECISION_DISCARD_XPATH)  # only on articles, read in precision mode
    texts = TrimmedTexts()  # shared by the passes below: each deletion forgets only its ancestors' texts
    for _ in range(2):
        before = _shape(tree)
        tree = delete_by_link_density(tree, "div", backtracking=True, favor_precision=favor_precision, texts=texts)
        tree = delete_by_link_density(tree, "list", backtracking=False, favor_precision=favor_precision, texts=texts)
        tree = delete_by_link_density(tree, "p", backtracking=False, favor_precision=favor_precision, texts=texts)
        if _shape(tree) == before:
            break  # nothing was deleted: the second round would test the same tree and delete nothing either
    if "table" in potential_tags or favor_precision:
        boilerplate_tables = [element for element in tree.iter("table") if link_density_test_tables(element) is True]
        for element in boilerplate_tables:
            texts.forget_ancestors(element)
            delete_element(element, keep_tail=False)
    if favor_precision:
        while len(tree) > 0 and (tree[-1].tag == "head"):
            texts.forget_ancestors(tree[-1])
            delete_element(tree[-1], keep_tail=False)
        tree = delete_by_link_density(tree, "head", backtracking=False, favor_precision=True, texts=texts)
        tree = delete_by_link_density(tree, "quote", backtracking=False, favor_precision=True, texts=texts)
    strip_tags(tree, "span", *(() if "ref" in potential_tags else ("ref",)))
    return tree


def delete_by_link_density(
    subtree: _Element,
    tagname: str,
    backtracking: bool = False,
    favor_precision: bool = False,
    texts: TrimmedTexts | None = None,
) -> _Element:
    """``trafilatura.htmlprocessing.delete_by_link_density``: the ``tagname`` elements rich in links deleted.

    Step for step trafilatura's (with its ``link_density_test`` and ``collect_link_info``), but each element's and
    link's trimmed text is read once: the tests all run before any deletion, on a tree that does not change, and
    trafilatura read a link's text again for every element around it (nested divs on a Debian handbook page: ~7 % of
    its parse). ``texts`` may carry the texts over from an earlier call on the same tree (pruning calls this six
    times): a deletion changes the text of the deleted element's ancestors only, which it forgets.
    """
    if texts is None:
        texts = TrimmedTexts()
    deletions = []
    len_threshold = 200 if favor_precision else 100
    depth_threshold = 1 if favor_precision else 3
    for element in subtree.iter(tagname):
        result, short_with_links = _link_density_test(element, favor_precision, texts)
        if result or (
            backtracking
            and short_with_links
            and len(element) >= depth_threshold
            and len(texts(element)) < len_threshold
        ):
            parent = element.getparent()
            if tagname == "p" and parent is not None and parent.tag in ("item", "td", "th"):
                continue  # a list item's paragraph: the list's own density is tested (trafilatura's GH #788)
            deletions.append(element)
    for element in dict.fromkeys(deletions):
        texts.forget_ancestors(element)
        delete_element(element)
    return subtree


class TrimmedTexts:
    """``trim(element.text_content())`` of elements, and their links, each read once while no deletion touches them.

    Removing an element (its tail joined to its previous sibling or its parent, as ``delete_element`` does) changes
    the text and the links of its ancestors and of no other element left in the tree: :meth:`forget_ancestors`
    before each deletion keeps every remembered reading the one the tree has.
    """

    def __init__(self) -> None:
        self._texts: dict[_Element, str] = {}
        self._links: dict[_Element, list[_Element]] = {}

    def __call__(self, element: _Element) -> str:
        text = self._texts.get(element)
        if text is None:
            text = self._texts[element] = trim(element.text_content())
        return text

    def links(self, element: _Element) -> list[_Element]:
        """``element.findall(".//ref")``: the links below the element (the caller must not edit the list)."""
        links = self._links.get(element)
        if links is None:
            links = self._links[element] = element.findall(".//ref")
        return links

    def forget_ancestors(self, element: _Element) -> None:
        """Forget what was read of ``element``'s ancestors, which its removal changes."""
        texts, links = self._texts, self._links
        for ancestor in element.iterancestors():
            texts.pop(ancestor, None)
            links.pop(ancestor, None)


def _link_density_test(element: _Element, favor_precision: bool, texts: TrimmedTexts) -> tuple[bool, bool]:
    """``trafilatura.htmlprocessing.link_density_test``: whether the element is rich in links, and whether it is short
    and has links."""
    links = texts.links(element)
    if not links or element.find(".//graphic") is not None:
        return False, False
    text = texts(element)
    if len(links) == 1:
        link_text = texts(links[0])
        if len(link_text) > (10 if favor_precision else 100) and len(link_text) > len(text) * 0.9:
            return True, False
    if element.tag == "p":
        limitlen = 60 if element.getnext() is None else 30
    elif element.getnext() is None:
        limitlen = 300
    else:
        limitlen = 100
    elemlen = len(text)
    if elemlen < limitlen:
        linklen, elemnum, shortelems = _link_info(links, texts)
        if elemnum == 0:
            return True, False
        return linklen > elemlen * 0.8 or (elemnum > 1 and shortelems / elemnum > 0.8), True
    if len(links) > 4:
        linklen, elemnum, _ = _link_info(links, texts)
        if linklen > len(text) * LINK_FARM_RATIO and linklen < 100 * elemnum and not is_paragraph_listing(links):
            return True, False
    return False, False


def _link_info(links: list[_Element], texts: TrimmedTexts) -> tuple[int, int, int]:
    """``trafilatura.htmlprocessing.collect_link_info``: the links' text length, their number with text, and the
    number of those under 10 characters."""
    lengths = [len(text) for text in map(texts, links) if text]
    return sum(lengths), len(lengths), sum(1 for length in lengths if length < 10)


def _shape(tree: _Element) -> tuple[int, _Element | None]:
    """What any deletion from ``tree`` changes: its number of elements, or its parent (the tree itself deleted)."""
    return int(_ELEMENT_COUNT(tree)), tree.getparent()


def main_pass(
    tree: HtmlElement, options: Extractor, framed: bool | None = None
) -> tuple[_Element, str, set[str]]:
    """``trafilatura.main_extractor._extract``: the content of the first candidate frame that yields some, its
    text and the tags it looked for. ``framed``: :func:`any_body` of the tree, when the caller knows it (without a
    frame, the pass edits nothing)."""
    potential_tags = set(TAG_CATALOG)
    if options.tables is True:
        potential_tags.update(["table", "td", "th", "tr"])
    if options.images is True:
        potential_tags.add("graphic")
    if options.links is True:
        potential_tags.add("ref")
    result_body = Element("body")
    # Until one of them selects an element, the tree is as it was: one walk tells whether any of them will.
    for first_match in BODY if (any_body(tree) if framed is None else framed) else ():
        subtree = first_match(tree)
        if subtree is None:
            continue
        subtree = prune_unwanted_sections(subtree, potential_tags, options)
        if len(subtree) == 0:
            continue
        ptest = subtree.xpath("//p//text()")
        factor = 1 if options.focus == "precision" else 3
        if not ptest or len("".join(ptest)) < options.min_extracted_size * factor:
            potential_tags.add("div")
        subelems = subtree.xpath(".//*")
        tags = {element.tag for element in subelems}
        if tags == {"lb"} or (subtree.tag == "div" and "div" in potential_tags and tags <= INLINE_FORMATTABLE | {"lb"}):
            subelems = [subtree]
        lead, start = None, len(result_body)
        if subelems != [subtree] and text_chars_test(subtree.text):
            lead = Element("p")
            lead.text = subtree.text
            lead = process_node(lead, options)
        for element in subelems:
            if element.getroottree().getroot() is result_body:
                continue  # moved into the result with an ancestor emitted whole
            tag, tail = element.tag, element.tail
            processed = handle_textelem(element, potential_tags, options)
            if processed is not None:
                result_body.append(processed)
                if element.getroottree().getroot() is not result_body:
                    element.tag = "done"
            if tag in REBUILT_BLOCKS and text_chars_test(tail) and (processed is None or processed.tail is None):
                tail_element = Element("p")
                tail_element.text = tail
                if process_node(tail_element, options) is not None:
                    result_body.append(tail_element)
        while len(result_body) > 0 and (result_body[-1].tag in NOT_AT_THE_END):
            delete_element(result_body[-1], keep_tail=False)
        if sum(element.tag != "graphic" for element in result_body) > 1:
            if lead is not None:
                result_body.insert(start, lead)
            break
    temp_text = " ".join(result_body.itertext()).strip()
    return result_body, temp_text, potential_tags


def recover_wild_text(
    tree: HtmlElement, result_body: _Element, options: Extractor, potential_tags: set[str],
    consumed: set[_Element],
) -> _Element:
    """``trafilatura.main_extractor.recover_wild_text``: the paragraphs, code, quotes and tables of the whole tree
    that the main pass did not take (``consumed``), appended to ``result_body`` unless it holds their text."""
    potential_tags = set(potential_tags)
    search_expr = ".//code|.//p|.//quote|.//table|.//div[contains(@class, 'w3-code')]"
    if options.focus == "recall":
        potential_tags.update(["div", "lb"])
        search_expr += "|.//div|.//lb|.//list"
    search_tree = prune_unwanted_sections(tree, potential_tags, options, keep_teasers=options.fast)
    subelems = search_tree.xpath(search_expr)
    elem_texts = [_elem_text(element) for element in result_body]
    existing = "\n".join(filter(None, elem_texts))
    existing_elems = set(elem_texts)
    handled: set[_Element] = set()
    for subelem in subelems:
        if (consumed and subelem in consumed) or any(ancestor in handled for ancestor in subelem.iterancestors()):
            continue
        processed = handle_textelem(subelem, potential_tags, options)
        if processed is None:
            continue
        if processed is subelem:
            handled.add(subelem)
        text = _elem_text(processed)
        images = {image.get("src") for image in processed.iter("graphic")}
        if not text and images and images <= {graphic.get("src") for graphic in result_body.iter("graphic")}:
            continue
        under_cap = len(existing) <= DEDUPE_SCAN_CAP
        fragment = trim(text + (processed.tail or "")) if text_chars_test(processed.tail) else ""
        repeated = (len(text) > MIN_DUPLICATE_LENGTH and text in existing) or (fragment and fragment in existing)
        if text and (text in existing_elems or (under_cap and repeated)):
            continue
        result_body.append(processed)
        if under_cap:
            existing += "\n" + (fragment or text)
        existing_elems.add(text)
    return result_body
