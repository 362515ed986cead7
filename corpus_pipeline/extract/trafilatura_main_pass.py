"""trafilatura 2.3.1's main pass over a cleaned tree and its recovery of stray text, selecting with Python.

``trafilatura.main_extractor``'s ``_extract`` (the main pass over the content candidates), ``prune_unwanted_sections``
and ``recover_wild_text``, step for step, each XPath selection of ``trafilatura.xpaths`` by id and class replaced by
its Python twin of :mod:`corpus_pipeline.extract.trafilatura_xpaths` (the same elements in the same order): those
selections' calls back into Python were over a third of a Debian handbook page's parse. Everything else is
trafilatura's own functions. :mod:`corpus_pipeline.extract.trafilatura_reading` calls these where trafilatura's
``extract_content`` would; its tests compare the readings with ``trafilatura.extract``. trafilatura is pinned.
"""

from __future__ import annotations

from copy import copy

from lxml.etree import Element, _Element, strip_tags
from lxml.html import HtmlElement
from trafilatura.baseline import _spaced_text
from trafilatura.htmlprocessing import (
    delete_by_link_density,
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
from trafilatura.utils import text_chars_test, trim
from trafilatura.xml import delete_element
from trafilatura.xpaths import PRECISION_DISCARD_XPATH

from corpus_pipeline.extract.trafilatura_xpaths import (
    BODY,
    DISCARD_IMAGE,
    OVERALL_DISCARD,
    TEASER_DISCARD,
    Selection,
    basic_cleaning_targets,
)


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


def prune(tree: _Element, selections: list[Selection], with_backup: bool = False) -> _Element:
    """``prune_unwanted_nodes`` with Python selections (it only calls each selection on the tree)."""
    return prune_unwanted_nodes(tree, selections, with_backup=with_backup)


def prune_unwanted_sections(
    tree: _Element, potential_tags: set[str], options: Extractor, keep_teasers: bool = False
) -> _Element:
    """``trafilatura.main_extractor.prune_unwanted_sections``."""
    favor_precision = options.focus == "precision"
    tree = prune(tree, OVERALL_DISCARD, with_backup=True)
    if "graphic" not in potential_tags:
        tree = prune(tree, DISCARD_IMAGE)
    if options.focus != "recall":
        if not keep_teasers:
            tree = prune(tree, TEASER_DISCARD)
        if favor_precision:
            tree = prune_unwanted_nodes(tree, PRECISION_DISCARD_XPATH)  # only on articles, read in precision mode
    for _ in range(2):
        before = _shape(tree)
        tree = delete_by_link_density(tree, "div", backtracking=True, favor_precision=favor_precision)
        tree = delete_by_link_density(tree, "list", backtracking=False, favor_precision=favor_precision)
        tree = delete_by_link_density(tree, "p", backtracking=False, favor_precision=favor_precision)
        if _shape(tree) == before:
            break  # nothing was deleted: the second round would test the same tree and delete nothing either
    if "table" in potential_tags or favor_precision:
        boilerplate_tables = [element for element in tree.iter("table") if link_density_test_tables(element) is True]
        for element in boilerplate_tables:
            delete_element(element, keep_tail=False)
    if favor_precision:
        while len(tree) > 0 and (tree[-1].tag == "head"):
            delete_element(tree[-1], keep_tail=False)
        tree = delete_by_link_density(tree, "head", backtracking=False, favor_precision=True)
        tree = delete_by_link_density(tree, "quote", backtracking=False, favor_precision=True)
    strip_tags(tree, "span", *(() if "ref" in potential_tags else ("ref",)))
    return tree


def _shape(tree: _Element) -> tuple[int, _Element | None]:
    """What any deletion from ``tree`` changes: its number of nodes, or its parent (the tree itself deleted)."""
    return sum(1 for _ in tree.iter()), tree.getparent()


def main_pass(tree: HtmlElement, options: Extractor) -> tuple[_Element, str, set[str]]:
    """``trafilatura.main_extractor._extract``: the content of the first candidate frame that yields some, its
    text and the tags it looked for."""
    potential_tags = set(TAG_CATALOG)
    if options.tables is True:
        potential_tags.update(["table", "td", "th", "tr"])
    if options.images is True:
        potential_tags.add("graphic")
    if options.links is True:
        potential_tags.add("ref")
    result_body = Element("body")
    for first_match in BODY:
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
