"""trafilatura's reading of a page in its fast mode and, when asked, in full, with the work both modes share done once.

``trafilatura.extract(tree, fast=True)`` and ``trafilatura.extract(tree)`` take the same steps up to the end of
``extract_content``'s main pass: a copy of the tree, the raw tree's pruning, ``tree_cleaning`` and ``convert_tags``
(and the capture of comments), then the main pass over the content candidates (``_extract``). trafilatura reads its
``fast`` flag only after that: the recovery of stray paragraphs keeps teaser blocks in fast mode, the comparison with
readability and justext runs in full mode only, and so does the recall escalation's justext candidate. The main
content check reads a page in fast mode and again in full on about a third of the Debian handbook's pages; the full
reading repeated the shared steps, about half of its cost. The recovery reads the flag for one thing only, whether
to drop the blocks ``TEASER_DISCARD_XPATH`` matches (by tag, id and class, which pruning never adds): on a tree
where it matches nothing, both modes recover the same text, and the recovery runs once too.

:class:`TrafilaturaReading` takes the shared steps once and each mode's own steps when that mode is asked for, in the
order and on the inputs ``trafilatura.core``'s ``bare_extraction``, ``trafilatura_sequence``, ``extract_content`` and
``determine_returnstring`` use for ``extract(..., output_format="txt")`` without metadata, so that each mode's text
is the one ``trafilatura.extract`` returns. It calls trafilatura's module functions, whose steps and signatures change
between releases: this is why trafilatura is pinned (2.3.1, ``pyproject.toml``), and its tests compare both readings
with ``trafilatura.extract`` page for page.
"""

from __future__ import annotations

from collections.abc import Callable
from copy import copy, deepcopy
from dataclasses import dataclass
from functools import partial

from lxml.etree import Element, _Element, strip_elements, strip_tags
from lxml.html import HtmlElement
from trafilatura.baseline import baseline
from trafilatura.core import (
    ESCALATION_ACCEPT_RATIO,
    ESCALATION_JUSTEXT_RATIO,
    ESCALATION_MAX_LENGTH,
    ESCALATION_PAGE_SHARE,
    _forum_thread_page,
)
from trafilatura.htmlprocessing import convert_tags, tree_cleaning
from trafilatura.main_extractor import _elem_text, extract_comments
from trafilatura.settings import MIN_DUPLICATE_LENGTH, Extractor
from trafilatura.utils import SPACING_PROTECTED, normalize_unicode, text_chars_test
from trafilatura.xml import delete_element, xmltotxt

# trafilatura's, over a compact stoplist
from corpus_pipeline.extract.justext_rescue import compare_extraction, justext_rescue
from corpus_pipeline.extract.trafilatura_main_pass import (
    main_pass,
    page_text,
    page_text_bound,
    prune,
    recover_wild_text,
)
from corpus_pipeline.extract.trafilatura_xpaths import (
    RAW_PRUNE_WORDS,
    RAW_TREE_PRUNE,
    REMOVE_COMMENTS,
    REMOVE_COMMENTS_AND_LISTS,
    TEASER_DISCARD,
    any_body,
    names_hold,
)


def _prepared_tree(
    tree: HtmlElement, options: Extractor, url: str | None
) -> tuple[HtmlElement, Callable[[], HtmlElement]]:
    """``trafilatura.core._prepare_tree``: the tree cleaned and its tags converted, and its backup, the cleaned tree
    before the conversion, as a function that cleans ``tree`` again (the same steps on the same tree give the same
    tree; the caller must not edit ``tree`` meanwhile).

    trafilatura copies the cleaned tree for its backup on every reading, but only justext reads it (when the
    comparison finds the reading short or unclean: 4 of 445 Debian handbook pages) and the salvage of a forum's
    comments: the copy was ~1.5 % of a handbook page, cleaning again costs about twice a copy.
    """
    return convert_tags(tree_cleaning(copy(tree), options), options, url), partial(_cleaned, tree, options)


def _cleaned(tree: HtmlElement, options: Extractor) -> HtmlElement:
    return tree_cleaning(copy(tree), options)


def _main_pass_with_backup(
    cleaned_tree: HtmlElement, options: Extractor
) -> tuple[HtmlElement, list[_Element], _Element, str, set[str]]:
    """``extract_content``'s copy of the converted tree (for the recovery of stray text), then its main pass over
    the tree: the copy, the tree's elements in order (the recovery finds the ones the pass took by position), the
    pass's content, text and tags.

    A tree where no frame is selected, the main pass leaves as it was, and takes nothing: it serves as its own copy,
    and no element is taken (every Debian handbook page; the copy was ~1 % of its parse).
    """
    framed = any_body(cleaned_tree)
    backup_tree = deepcopy(cleaned_tree) if framed else cleaned_tree
    order = list(cleaned_tree.iter()) if framed else []
    body, text, potential_tags = main_pass(cleaned_tree, options, framed)
    return backup_tree, order, body, text, potential_tags


@dataclass
class _MainPass:
    """What both modes start from: the trees of ``trafilatura_sequence`` and ``extract_content``'s main pass."""

    tree: HtmlElement  # the pruned raw tree, or the caller's page (readability, the baseline and the escalation read
    # it; none edits it)
    cleaned_backup: Callable[[], HtmlElement]  # the cleaned tree before tag conversion (justext reads it)
    backup_tree: HtmlElement  # extract_content's copy of the converted tree, for the recovery of stray text
    consumed: list[int]  # positions in backup_tree's iteration of the elements the main pass took
    per_mode: bool  # whether the main pass found too little and each mode recovers stray text its own way
    body: _Element  # the main pass's content; unless per_mode, extract_content's output, the same in both modes
    text: str
    potential_tags: set[str]
    comments_body: _Element
    comments_text: str
    forum_posts: _Element | None
    is_forum: bool


class TrafilaturaReading:
    """One page read by trafilatura in fast mode, in full mode or both, each reading's text the one
    ``trafilatura.extract(document, url=url, fast=..., include_comments=..., include_tables=True,
    output_format="txt", favor_precision=...)`` returns ('' where it returns None).

    ``document`` is never edited: the raw tree's pruning edits a copy of it, as ``extract`` does, and a page that
    pruning leaves as it is is read as it is (nothing after it edits that tree; copying it was ~1 % of a Debian
    handbook page's parse). The caller must not edit ``document`` while it still asks for readings.
    """

    def __init__(
        self, document: HtmlElement, url: str | None, include_comments: bool = False, favor_precision: bool = False
    ) -> None:
        self._options = {
            fast: Extractor(
                output_format="txt", fast=fast, precision=favor_precision, comments=include_comments, tables=True,
                url=url,
            )
            for fast in (True, False)
        }
        self._texts: dict[bool, str] = {}
        self._page_text: str | None = None
        self._escalation_tree: HtmlElement | None = None
        self._recall_reading: tuple[HtmlElement, _Element, str] | None = None
        try:
            self._main_pass: _MainPass | None = self._shared_steps(document, self._options[True])
        except (TypeError, ValueError):  # bare_extraction discards the page on these
            self._main_pass = None

    def fast(self) -> str:
        """trafilatura's fast reading (no comparison with readability and justext)."""
        return self._reading(fast=True)

    def full(self) -> str:
        """trafilatura's full reading."""
        return self._reading(fast=False)

    def _reading(self, fast: bool) -> str:
        if fast not in self._texts:
            try:
                self._texts[fast] = self._finished(fast) if self._main_pass is not None else ""
            except (TypeError, ValueError):
                self._texts[fast] = ""
        return self._texts[fast]

    def _shared_steps(self, document: HtmlElement, options: Extractor) -> _MainPass:
        """``trafilatura_sequence`` up to ``extract_content``, then ``extract_content`` up to its main pass."""
        url = options.url or None
        is_forum = _forum_thread_page(document)
        comments_pruned = not options.comments and (options.focus == "precision" or not is_forum)
        tree = document
        if names_hold(document, RAW_PRUNE_WORDS) and any(
            selection(document) for selection in [*RAW_TREE_PRUNE, *(REMOVE_COMMENTS_AND_LISTS * comments_pruned)]
        ):
            tree = prune(copy(document), RAW_TREE_PRUNE)
            if comments_pruned:
                tree = prune(tree, REMOVE_COMMENTS_AND_LISTS)
        cleaned_tree, cleaned_backup = _prepared_tree(tree, options, url)
        comments_body, comments_text, forum_posts = Element("body"), "", None
        if options.comments:
            comments_body, comments_text, cleaned_tree = extract_comments(cleaned_tree, options)
            if comments_text and is_forum:
                forum_posts = comments_body
                comments_body, comments_text = Element("body"), ""
                cleaned_tree = convert_tags(cleaned_backup(), options, url)
        if options.focus == "precision" and not is_forum:
            cleaned_tree = prune(cleaned_tree, REMOVE_COMMENTS)
        backup_tree, order, body, text, potential_tags = _main_pass_with_backup(cleaned_tree, options)
        recovering = len(body) == 0 or len(text) < options.min_extracted_size
        consumed = [position for position, element in enumerate(order) if element.tag == "done"] if recovering else []
        # The rest of extract_content reads the fast flag once: the recovery keeps teaser blocks in fast mode. On a
        # tree without any (a test of ids, classes and tags, which pruning never adds), both modes get one output.
        per_mode = recovering and options.focus != "recall" and any(
            selection(backup_tree) for selection in TEASER_DISCARD
        )
        if not per_mode:
            recovery = (backup_tree, consumed, potential_tags) if recovering else None
            body, text = self._extract_content_end(body, text, recovery, options)
        return _MainPass(
            tree, cleaned_backup, backup_tree, consumed, per_mode, body, text, potential_tags, comments_body,
            comments_text, forum_posts, is_forum,
        )

    def _finished(self, fast: bool) -> str:
        """One mode's steps after the main pass, on copies of what they edit when the other mode may still run.

        Past extract_content, nothing edits the content but the salvage of a forum's posts and the tree size limit:
        without them, both modes read the same content tree.
        """
        options = self._options[fast]
        shared = self._main_pass
        assert shared is not None
        first = not self._texts  # the other mode may follow, and needs the trees as they are
        body, text, forum_posts = shared.body, shared.text, shared.forum_posts
        if shared.per_mode:
            backup_tree = shared.backup_tree
            if first:
                body, backup_tree = deepcopy(body), deepcopy(backup_tree)
            recovery = (backup_tree, shared.consumed, shared.potential_tags)
            body, text = self._extract_content_end(body, text, recovery, options)
        elif first and (forum_posts is not None or options.max_tree_size):
            body = deepcopy(body)
        if first and forum_posts is not None:
            forum_posts = deepcopy(forum_posts)
        body, text = self._cascade(body, text, forum_posts, options)
        return self._returned(body, text, shared.comments_body, options)

    @classmethod
    def _extract_content(cls, cleaned_tree: HtmlElement, options: Extractor) -> tuple[_Element, str]:
        """``trafilatura.main_extractor.extract_content`` (main pass, recovery, filtering), with the selections of
        :mod:`corpus_pipeline.extract.trafilatura_main_pass`."""
        backup_tree, order, body, text, potential_tags = _main_pass_with_backup(cleaned_tree, options)
        recovery = None
        if len(body) == 0 or len(text) < options.min_extracted_size:
            consumed = [position for position, element in enumerate(order) if element.tag == "done"]
            recovery = (backup_tree, consumed, potential_tags)
        return cls._extract_content_end(body, text, recovery, options)

    @staticmethod
    def _extract_content_end(
        body: _Element, text: str, recovery: tuple[HtmlElement, list[int], set[str]] | None, options: Extractor
    ) -> tuple[_Element, str]:
        """``extract_content`` after its main pass: the recovery of stray text from the copy of the tree made before
        it (``recovery``: that copy, the positions of the elements the pass took, its tags) when the pass found
        little, the removal of repeated blocks, the filtering of the output (``text`` stays the one before them)."""
        if recovery is not None:
            backup_tree, positions, potential_tags = recovery
            taken = set(positions)
            consumed = {element for position, element in enumerate(backup_tree.iter()) if position in taken}
            body = recover_wild_text(backup_tree, body, options, potential_tags, consumed)
            text = " ".join(body.itertext()).strip()
        previous = None
        for element in list(body):
            current = _elem_text(element)
            if current and current == previous and len(current) > MIN_DUPLICATE_LENGTH:
                delete_element(element, keep_tail=False)
            else:
                previous = current
        strip_elements(body, "done")
        strip_tags(body, "div")
        for linebreak in body.iter("lb"):
            if (
                linebreak.tail
                and not text_chars_test(linebreak.tail)
                and not any(ancestor.tag in SPACING_PROTECTED for ancestor in linebreak.iterancestors())
            ):
                linebreak.tail = None
        return body, text

    def _cascade(
        self, body: _Element, text: str, forum_posts: _Element | None, options: Extractor
    ) -> tuple[_Element, str]:
        """``trafilatura_sequence`` after ``extract_content``: the comparison (full mode), the baseline rescue, the
        recall escalation and the forum posts' salvage."""
        shared = self._main_pass
        assert shared is not None
        tree = shared.tree
        if not options.fast:
            body, text = compare_extraction(shared.cleaned_backup, copy(tree), body, text, options)
        if len(text) < options.min_extracted_size and options.focus != "precision":
            baseline_body, baseline_text, baseline_length = baseline(tree)
            if baseline_length > len(text):
                body, text = baseline_body, baseline_text
                forum_posts = None
        if options.focus == "balanced" and 0 < len(text) < ESCALATION_MAX_LENGTH and (
            ((bound := self._page_text_bound()) is None or len(text) < ESCALATION_PAGE_SHARE * bound)
            and len(text) < ESCALATION_PAGE_SHARE * len(self._whole_page_text())
        ):
            body, text, forum_posts = self._escalated(body, text, forum_posts, options)
        if forum_posts is not None:
            existing = "\n".join(filter(None, (_elem_text(element) for element in body)))
            salvaged = [element for element in forum_posts if (line := _elem_text(element)) and line not in existing]
            if salvaged:
                body.extend(salvaged)
                text = " ".join(body.itertext()).strip()
        return body, text

    def _escalated(
        self, body: _Element, text: str, forum_posts: _Element | None, options: Extractor
    ) -> tuple[_Element, str, _Element | None]:
        """The recall escalation of ``trafilatura_sequence``: a retry in recall mode, and justext in full mode."""
        shared = self._main_pass
        assert shared is not None
        recall_options = copy(options)
        recall_options.focus = "recall"
        if self._escalation_tree is None:
            tree = shared.tree
            self._escalation_tree = (
                tree
                if shared.is_forum or not options.comments
                else prune(copy(tree), REMOVE_COMMENTS_AND_LISTS if shared.comments_text else REMOVE_COMMENTS)
            )
        escalation_tree = self._escalation_tree
        recall_text = justext_text = ""
        try:
            recall_body, recall_text = self._recall_retry(escalation_tree, recall_options)
        except Exception:  # noqa: BLE001 -- trafilatura logs and ignores any failure of the retry
            recall_text = ""
        if not options.fast:
            try:
                justext_body, justext_text = justext_rescue(copy(escalation_tree), options)
            except Exception:  # noqa: BLE001 -- as trafilatura does
                justext_text = ""
        length, recall_length, justext_length = len(text), len(recall_text), len(justext_text)
        if justext_length > recall_length and justext_length > ESCALATION_JUSTEXT_RATIO * length:
            return justext_body, justext_text, None
        if recall_length >= options.min_extracted_size and recall_length > ESCALATION_ACCEPT_RATIO * length:
            return recall_body, recall_text, None
        return body, text, forum_posts

    def _recall_retry(self, escalation_tree: HtmlElement, recall_options: Extractor) -> tuple[_Element, str]:
        """``trafilatura.core._recall_retry``: the escalation's tree cleaned and read in recall mode, which reads no
        fast flag (recall mode drops no teaser blocks), so once for both modes; then, in full mode, the comparison
        (which edits neither the reading nor, but for the justext that reads it once, the cleaned tree)."""
        if self._recall_reading is None:
            cleaned_tree, cleaned_backup = _prepared_tree(escalation_tree, recall_options, recall_options.url or None)
            self._recall_reading = (cleaned_backup, *self._extract_content(cleaned_tree, recall_options))
        cleaned_backup, body, text = self._recall_reading
        if recall_options.fast:
            return body, text
        return compare_extraction(cleaned_backup, copy(escalation_tree), body, text, recall_options)

    def _page_text_bound(self) -> int | None:
        """At least the length of :meth:`_whole_page_text`, read without its copy of the tree: a reading longer than
        its share of the bound is not escalated, with no need for the page's text (~1 % of a Debian handbook page).
        None when the page's text must be read (:func:`page_text_bound`)."""
        if self._page_text is not None:
            return len(self._page_text)
        assert self._main_pass is not None
        return page_text_bound(self._main_pass.tree)

    def _whole_page_text(self) -> str:
        """``html2txt`` of the pruned raw tree (:func:`page_text`, which copies the tree): the page measure of the
        escalation, the same in both modes."""
        if self._page_text is None:
            assert self._main_pass is not None
            self._page_text = page_text(self._main_pass.tree)
        return self._page_text

    def _returned(self, body: _Element, text: str, comments_body: _Element, options: Extractor) -> str:
        """What ``bare_extraction`` checks and ``determine_returnstring`` returns for the txt format."""
        shared = self._main_pass
        assert shared is not None
        if options.max_tree_size:
            if len(body) > options.max_tree_size:
                strip_tags(body, "hi")
            if len(body) > options.max_tree_size:
                return ""
        if len(text) < options.min_output_size and len(shared.comments_text) < options.min_output_comm_size:
            return ""
        returned = xmltotxt(body, options.formatting)
        returned = f"{returned}\n{xmltotxt(comments_body, options.formatting)}".strip()
        return normalize_unicode(returned)
