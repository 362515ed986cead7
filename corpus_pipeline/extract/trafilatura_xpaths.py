"""trafilatura 2.3.1's selections of elements by id and class (``trafilatura.xpaths``), evaluated in Python.

trafilatura's XPath expressions test ids and classes with EXSLT regular expressions (``re:test``), which lxml runs
as a call back into Python for every element and every test: on a Debian handbook page the selections below took
~14 ms of a ~38 ms parse, nearly all of it in those calls. Here each is one walk over the elements in Python, with
the same regular expressions (lxml's ``re:test`` is Python's ``re.search``) and XPath's reading of attributes: a
missing attribute is the empty string, and ``@id|@class`` is whichever of the two comes first in the element's
source. Each selection returns what the expression returns, in document order; the BODY selections return only the
first element, the one trafilatura's main pass takes. Tested element for element against ``trafilatura.xpaths`` on
real pages (``corpus_pipeline_tests/extract/test_trafilatura_xpaths.py``); trafilatura is pinned, see
``trafilatura_reading``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lxml.etree import XPath, _Element

Selection = Callable[[_Element], list[_Element]]
FirstMatch = Callable[[_Element], _Element | None]

_BOXES = frozenset(("div", "item", "list", "p", "section", "span"))
_ARTICLE_BOXES = frozenset(("article", "div", "main", "section"))

# OVERALL_DISCARD_XPATH's regular expressions.
_DISCARD_ID = re.compile(
    "^shar|social|viral|newsletter|syndication|tags|sidebar|banner|bread-?crumb|button|author|^(?:jp-|dpsp-content)|"
    "bmdh|footer|Footer|share|Share|nav|Nav|menu|related|message-container|premium|^ad-"
)
_DISCARD_CLASS = re.compile(
    "^shar|social|viral|newsletter|syndication|tags|sidebar|banner|bread-?crumb|button|author|"
    "^(?:nav|post-nav|ZendeskForm)|subnav|avigation|navbar|navbox|menu|bar| ad |-ad-|(?:^| )ad-|dfp[Aa]d|outbrain|"
    "taboola|criteo|paid-?content|widget|footer|Footer|byline|Byline|share-|sociable|embedded|embed|tag-list|consent|"
    "modal-content|permission|elated|next-|-stories|most-popular|more-on|meta|rating|attachment|timestamp|user-info|"
    "user-profile|-icon|article-infos|message-container|slide|viewport|overlay|options|expand|obfuscated|blurred|"
    "mol-factbox|yin|zlylin|nfoline"
)
_HIDDEN_ID = re.compile("reader-comments|akismet")
_HIDDEN_CLASS = re.compile(
    "^hide-|comments-title|nocomments|-reply-|message|akismet|suggest-links|-hide-|hide-print| hidden| hide|noprint|"
    "notloaded"
)
# BODY_XPATH's.
_BODY_ID = re.compile("(?:entry|article|art)-content|article__content|article(?:-|__)?body|articleBody|body-text")
_BODY_CLASS = re.compile(
    "post[-_]text|post-body|post-?entry|post[-_]?content|postContent|post_inner_wrapper|article-?text|articleText|"
    "(?:entry|page|text|article|art)-content|article__content|article(?:-|__)?body|articleBody|ArticleContent|"
    "body-text|article__container"
)
_STORY_ID = re.compile("^primary|story-body")
_FULLTEXT = re.compile("fulltext", re.IGNORECASE)
_STORY_CLASS = re.compile(
    "^article |post-bodycopy|story-?content|(?:theme|blog|section|single)-content|single-post|main-column|"
    "wpb_text_column|story-body|field-body"
)
_MAIN_ID = re.compile("content-main|content-body|contentBody")
_MAIN_CLASS = re.compile("content[-_]main|content(?:-|__)body")
# trafilatura.settings.BASIC_CLEAN_XPATH's (the cleaning of its baseline and of html2txt).
_BASIC_CLEAN_TAGS = frozenset(("aside", "fencedframe", "footer", "script", "style", "svg", "template"))
_COOKIE_CONSENT = re.compile(
    "cookie[-_]?(?:banner|bar|consent|law|notice|policy|description)|notice[-_]{0,2}cookie"
    "|consent[-_]?(?:banner|manager|sdk)|borlabs|cookiebot|cmplz|onetrust|moove[-_]?gdpr",
    re.IGNORECASE,
)
# RAW_TREE_PRUNE_XPATH's and the comment sections'.
_SCROLL = re.compile("mvp-post-add-(?:box|wrap)|infinite-?scroll")
_ADDED_POST = re.compile("mvp-post-add-(?:box|wrap)")
_COMMENTS_ID = re.compile("^(?:[Cc]omment(?!ary)|comol|disqus_thread|dsq-comments)")
_COMMENTS_CLASS = re.compile("^[Cc]omment(?!ary)|(?:article|post)-comments")
_COMMENT_LIST_ID = re.compile("^(?:[Cc]omment(?!ary)|comol)")


# A word in the id or class of every element RAW_TREE_PRUNE or REMOVE_COMMENTS_AND_LISTS selects (their id and class
# patterns need one: "[Cc]omment" holds "omment"). Where no id or class of a tree holds one, they select nothing.
RAW_PRUNE_WORDS = re.compile("omment|comol|disqus_thread|mvp-post-add-|infinite|elementor-share-buttons")
_IDS_AND_CLASSES = XPath("descendant::*/@id | descendant::*/@class", smart_strings=False)


def names_hold(tree: _Element, words: re.Pattern[str]) -> bool:
    """Whether an id or class of an element below ``tree`` may hold one of ``words`` (all of them read as plain
    strings in one XPath call, a line each: on Debian handbook pages 0.15 ms, where the raw tree's pruning and comment
    selections took 0.20 ms to find nothing; the selections of a few tags, as the teasers', are faster alone)."""
    return words.search("\n".join(_IDS_AND_CLASSES(tree))) is not None


def _elements(tree: _Element, *tags: str) -> Iterator[_Element]:
    """``.//*``: the descendants that are elements (not comments, processing instructions or entities), in document
    order; with ``tags``, only those with one of these tags, which lxml picks in C (most selections look at a few tags;
    testing each element's tag in Python was ~3 % of a Debian handbook page's parse). Without tags, the test in Python
    is faster than lxml's own filter by node type."""
    if tags:
        return tree.iterdescendants(*tags)
    return (node for node in tree.iterdescendants() if isinstance(node.tag, str))


def _first_of(node: _Element, first: str, second: str) -> str:
    """XPath's string of ``@first|@second``: the value of whichever of the two comes first in the source ('')."""
    one, other = node.get(first), node.get(second)
    if one is None or other is None:
        return one if one is not None else (other or "")
    for name in node.keys():
        if name == first:
            return one
        if name == second:
            return other
    return one  # not reached: both are keys


def _tester(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    """``re:test(value, pattern)``, remembered per value for one walk (pages repeat their classes)."""
    seen: dict[str, bool] = {}

    def test(value: str) -> bool:
        found = seen.get(value)
        if found is None:
            found = seen[value] = pattern.search(value) is not None
        return found

    return test


def overall_discard_boxes(tree: _Element) -> list[_Element]:
    """``OVERALL_DISCARD_XPATH[0]``: boxes named or marked as navigation, sharing, ads, bylines and the like."""
    return overall_discards(tree)[0]


def overall_discard_hidden(tree: _Element) -> list[_Element]:
    """``OVERALL_DISCARD_XPATH[1]``: hidden elements, comment titles and replies."""
    return overall_discards(tree)[1]


def overall_discards(tree: _Element) -> tuple[list[_Element], list[_Element]]:
    """Both ``OVERALL_DISCARD_XPATH`` selections (:func:`overall_discard_boxes`, :func:`overall_discard_hidden`) in
    one walk: the second reads every element, and the boxes' attributes are read once for both (two walks were
    ~0.15 ms more of the ~0.75 a Debian handbook tree took)."""
    by_id, by_class = _tester(_DISCARD_ID), _tester(_DISCARD_CLASS)
    hidden_id, hidden_class = _tester(_HIDDEN_ID), _tester(_HIDDEN_CLASS)
    boxes, hidden = [], []
    for node in _elements(tree):
        get = node.get
        id_, class_name, style = get("id") or "", get("class"), get("style") or ""
        class_value = class_name or ""
        # No id pattern matches an empty id (most elements have none), and ``re:test(@id|@class, 'cookie')`` is a
        # substring test: the attributes' order is read only when one of the two holds the word.
        if node.tag in _BOXES and (
            get("data-lp-replacement-content") is not None
            or "nav" in (get("role") or "").replace("N", "n")
            or "MostPopularStories" in (get("data-component") or "")
            or (("cookie" in id_ or "cookie" in class_value) and "cookie" in _first_of(node, "id", "class"))
            or (id_ and by_id(id_))
            or by_class(class_value)
        ):
            boxes.append(node)
        # ``@id|@class`` and ``@id|@style`` read the attributes' order (``_first_of``): only for an element where one
        # of the two passes the test (this runs on every element of every tree trafilatura prunes).
        if (
            class_name == "comments-title"
            or (
                (id_.startswith("reply-") or class_value.startswith("reply-"))
                and _first_of(node, "id", "class").startswith("reply-")
            )
            or (("hidden" in id_ or "hidden" in style) and "hidden" in _first_of(node, "id", "style"))
            or "display:none" in style
            or "display: none" in style
            or (id_ and hidden_id(id_))
            or hidden_class(class_value)
            or get("aria-hidden") == "true"
        ):
            hidden.append(node)
    return boxes, hidden


def _overall_discarded(tree: _Element) -> list[_Element]:
    boxes, hidden = overall_discards(tree)
    return boxes + hidden


def teaser_boxes(tree: _Element) -> list[_Element]:
    """``TEASER_DISCARD_XPATH[0]``: boxes whose id or class says teaser."""
    return [
        node for node in _elements(tree, *_BOXES)
        if (
            "teaser" in (node.get("id") or "").replace("T", "t")
            or "teaser" in (node.get("class") or "").replace("T", "t")
        )
    ]


def caption_boxes(tree: _Element) -> list[_Element]:
    """``DISCARD_IMAGE_ELEMENTS[0]``: boxes whose id or class says caption."""
    return [
        node for node in _elements(tree, *_BOXES)
        if ("caption" in (node.get("id") or "") or "caption" in (node.get("class") or ""))
    ]


def scrolled_posts(tree: _Element) -> list[_Element]:
    """``RAW_TREE_PRUNE_XPATH[0]``: infinite-scroll containers of follow-up articles."""
    found = []
    for node in _elements(tree, "div", "section", "aside"):
        id_, class_name = node.get("id") or "", node.get("class") or ""
        if not (_SCROLL.search(id_) or _SCROLL.search(class_name)):
            continue
        if node.find(".//h1") is None or _ADDED_POST.search(id_) or _ADDED_POST.search(class_name):
            found.append(node)
    return found


def share_buttons(tree: _Element) -> list[_Element]:
    """``RAW_TREE_PRUNE_XPATH[1]``: Elementor's share buttons."""
    return [
        node for node in _elements(tree, "div", "section", "aside")
        if "elementor-share-buttons" in (node.get("class") or "")
    ]


def comment_sections(tree: _Element) -> list[_Element]:
    """``REMOVE_COMMENTS_XPATH[0]``: containers of reader comments."""
    by_id, by_class = _tester(_COMMENTS_ID), _tester(_COMMENTS_CLASS)
    return [
        node for node in _elements(tree, "div", "list", "section", "details")
        if (by_id(node.get("id") or "") or by_class(node.get("class") or ""))
    ]


def comment_sections_and_lists(tree: _Element) -> list[_Element]:
    """``REMOVE_COMMENTS_AND_LISTS_XPATH[0]``: containers of reader comments, lists of them included."""
    by_id, by_class, list_id = _tester(_COMMENTS_ID), _tester(_COMMENTS_CLASS), _tester(_COMMENT_LIST_ID)
    found = []
    for node in _elements(tree, "div", "list", "section", "details", "ol", "ul"):
        tag = node.tag
        id_, class_name = node.get("id") or "", node.get("class") or ""
        if not (by_id(id_) or by_class(class_name)):
            continue
        if tag not in ("ol", "ul") or list_id(id_) or by_class(class_name):
            found.append(node)
    return found


def basic_cleaning_targets(tree: _Element) -> list[_Element]:
    """``trafilatura.settings.BASIC_CLEAN_XPATH``: asides, footers, scripts, styles, svg, templates, divs whose class
    or id says footer, and cookie banners."""
    consent = _tester(_COOKIE_CONSENT)
    found = []
    for node in _elements(tree):
        tag = node.tag
        if tag in _BASIC_CLEAN_TAGS:
            found.append(node)
            continue
        get = node.get
        class_name, id_ = get("class") or "", get("id") or ""
        if (
            # ``@class|@id``'s order is read only where one of the two says footer.
            (
                tag == "div"
                and ("footer" in class_name or "footer" in id_)
                and "footer" in _first_of(node, "class", "id")
            )
            or (class_name and consent(class_name))  # an empty value matches none of the names
            or (id_ and consent(id_))
        ):
            found.append(node)
    return found


def _first(tree: _Element, wanted: Callable[[_Element], bool], *tags: str) -> _Element | None:
    return next((node for node in _elements(tree, *tags) if wanted(node)), None)


def article_body(tree: _Element) -> _Element | None:
    """The first element ``BODY_XPATH[0]`` selects: a box named as an article's or post's body."""
    by_id, by_class = _tester(_BODY_ID), _tester(_BODY_CLASS)

    def wanted(node: _Element) -> bool:
        get = node.get
        class_name = get("class")
        return (
            class_name in ("post", "entry")
            or get("itemprop") == "articleBody"
            or get("id") == "articleContent"
            or by_id(get("id") or "")
            or by_class(class_name or "")
        )

    return _first(tree, wanted, *_ARTICLE_BOXES)


def first_article(tree: _Element) -> _Element | None:
    """``BODY_XPATH[1]``: the first ``<article>``."""
    return next(tree.iterdescendants("article"), None)


def story_body(tree: _Element) -> _Element | None:
    """``BODY_XPATH[2]``: the first box marked as an article or story."""
    by_id, fulltext, by_class = _tester(_STORY_ID), _tester(_FULLTEXT), _tester(_STORY_CLASS)

    def wanted(node: _Element) -> bool:
        get = node.get
        id_, class_name = get("id"), get("class")
        return (
            get("role") == "article"
            or id_ in ("article", "story")
            or class_name in ("postarea", "art-postcontent", "text", "cell", "story")
            or by_id(id_ or "")
            or fulltext(class_name or "")
            or by_class(class_name or "")
        )

    return _first(tree, wanted, *_ARTICLE_BOXES)


def main_content(tree: _Element) -> _Element | None:
    """``BODY_XPATH[3]``: the first box named as the page's content."""
    by_id, by_class = _tester(_MAIN_ID), _tester(_MAIN_CLASS)

    def wanted(node: _Element) -> bool:
        get = node.get
        id_, class_name = get("id") or "", get("class") or ""
        return (
            id_ == "content"
            or class_name == "content"
            or by_id(id_)
            or by_class(class_name)
            or "main-content" in id_.replace("C", "c").replace("M", "m")
            or "main-content" in class_name.replace("C", "c").replace("M", "m")
            or "page-content" in class_name.replace("C", "c").replace("P", "p")
        )

    return _first(tree, wanted, *_ARTICLE_BOXES)


def main_box(tree: _Element) -> _Element | None:
    """The first element ``BODY_XPATH[4]`` selects: a box whose class, id or role starts with main, or ``<main>``
    (the union of the two firsts, in document order)."""

    def wanted(node: _Element) -> bool:
        if node.tag == "main":
            return True
        get = node.get
        return (
            (get("class") or "").startswith("main")
            or (get("id") or "").startswith("main")
            or (get("role") or "").startswith("main")
        )

    return _first(tree, wanted, "main", "article", "div", "section")


# The BODY selections' tests of ids and classes, as one expression each (an empty value matches none of them).
_ANY_BODY_ID = re.compile("|".join(f"(?:{pattern.pattern})" for pattern in (_BODY_ID, _STORY_ID, _MAIN_ID)))
_ANY_BODY_CLASS = re.compile(
    "|".join(f"(?:{pattern.pattern})" for pattern in (_BODY_CLASS, _STORY_CLASS, _MAIN_CLASS)) + "|(?i:fulltext)"
)
_BODY_CLASSES = frozenset(("post", "entry", "postarea", "art-postcontent", "text", "cell", "story", "content"))
_BODY_IDS = frozenset(("articleContent", "article", "story", "content"))


def any_body(tree: _Element) -> bool:
    """Whether any of the BODY selections selects an element: one walk with all their tests, where trying them one
    after another walks the tree five times (a page without any frame, as every Debian handbook page, is read by
    the recovery of stray text instead)."""
    by_id, by_class = _tester(_ANY_BODY_ID), _tester(_ANY_BODY_CLASS)
    for node in _elements(tree, *_ARTICLE_BOXES):
        tag = node.tag
        if tag in ("article", "main"):
            return True  # first_article's and main_box's
        get = node.get
        id_, class_name, role = get("id") or "", get("class") or "", get("role") or ""
        if (
            class_name in _BODY_CLASSES
            or id_ in _BODY_IDS
            or role == "article"
            or get("itemprop") == "articleBody"
            or class_name.startswith("main")
            or id_.startswith("main")
            or role.startswith("main")
            or by_id(id_)
            or by_class(class_name)
            or "main-content" in id_.replace("C", "c").replace("M", "m")
            or "main-content" in class_name.replace("C", "c").replace("M", "m")
            or "page-content" in class_name.replace("C", "c").replace("P", "p")
        ):
            return True
    return False


OVERALL_DISCARD: list[Selection] = [overall_discard_boxes, overall_discard_hidden]
# The same selections for trafilatura's pruning, which only takes what they select in order: one walk.
OVERALL_DISCARD_IN_ONE: list[Selection] = [_overall_discarded]
TEASER_DISCARD: list[Selection] = [teaser_boxes]
DISCARD_IMAGE: list[Selection] = [caption_boxes]
RAW_TREE_PRUNE: list[Selection] = [scrolled_posts, share_buttons]
REMOVE_COMMENTS: list[Selection] = [comment_sections]
REMOVE_COMMENTS_AND_LISTS: list[Selection] = [comment_sections_and_lists]
BODY: list[FirstMatch] = [article_body, first_article, story_body, main_content, main_box]
