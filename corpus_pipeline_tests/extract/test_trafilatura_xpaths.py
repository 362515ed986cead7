"""The Python selections select what trafilatura's XPath expressions select, element for element, in order."""

from copy import deepcopy
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html
from lxml.etree import SubElement
from trafilatura import main_extractor, xpaths
from trafilatura.baseline import html2txt
from trafilatura.core import _prepare_tree
from trafilatura.htmlprocessing import delete_by_link_density
from trafilatura.settings import BASIC_CLEAN_XPATH, TAG_CATALOG, Extractor

from corpus_pipeline.extract import trafilatura_main_pass, trafilatura_xpaths
from corpus_pipeline.extract.html_tree import parse_html
from corpus_pipeline.extract.trafilatura_main_pass import page_text
from corpus_pipeline_demo.site import build_demo_site

# Each attribute shape the expressions read: both orders of id and class (XPath's @id|@class is the first in the
# source), a missing attribute, upper-case letters that translate() folds, the regular expressions' anchors, the
# ignore-case test, nested matches (all are returned), comment lists (ol/ul need their own test), an <h1> inside a
# scrolled post (kept unless its name says it is an added post).
BOXES = """
<div id="cookie-notice" class="x">a</div><div class="cookie-bar" id="main">b</div><div class="x" id="y-cookie">c</div>
<section role="Navigation">d</section><span data-lp-replacement-content="">e</span>
<div data-component="MostPopularStories">f</div><p id="sharebox">g</p><p id="top-share">h</p><div id="x-Nav">i</div>
<div class="post ad-slot">j</div><div class="x ad y">k</div><div class="navbar"><div class="menu">l</div></div>
<div class="nav-links">m</div><div class="bread-crumb">n</div><div class="x-widget-y">o</div><div class="meta">p</div>
<div style="display:none">q</div><div style="color: red; display: none">r</div><div id="is-hidden">s</div>
<div style="x" id="hidden-by-style">t</div><div class="comments-title">u</div><div id="reply-2">v</div>
<div class="reply-3" id="x">w</div><div class="x hidden">x</div><a aria-hidden="true">y</a><div class="hide-me">z</div>
<div id="TeaserBox">aa</div><p class="news-Teaser">ab</p><div class="caption">ac</div><span id="fig-caption">ad</span>
<div class="infinite-scroll"><h1>Kept</h1></div><aside id="infinitescroll">ae</aside>
<section class="mvp-post-add-box"><h1>Gone</h1></section><div class="elementor-share-buttons">af</div>
<div id="comments">ag</div><ol class="commentlist">ah</ol><ul id="comment-list">ai</ul><ol id="disqus_thread">aj</ol>
<div class="Commentary">ak</div><div class="site-footer">an</div><div id="CookieBanner">ao</div>
<section class="x" id="notice__cookie">ap</section><script>var q;</script><section class="post-comments">al</section><details id="comol">am</details>
"""
BODIES = [
    "<div class='x'>no frame</div><div class='post'>post</div>",
    "<div class='entry'>a</div><article>b</article>",
    "<section itemprop='articleBody'>a</section>",
    "<div id='articleContent'>a</div>",
    "<main id='art-content'>a</main>",
    "<div class='blog-post-content'>a</div>",
    "<div><article>first</article><article>second</article></div>",
    "<div role='article'>a</div>",
    "<div id='story'>a</div><div class='cell'>b</div>",
    "<section id='primary-column'>a</section>",
    "<div class='FullText'>a</div>",
    "<div class='article body'>a</div>",
    "<div class='single-content'>a</div>",
    "<div id='content'>a</div>",
    "<div class='content_main'>a</div>",
    "<div id='Main-Content'>a</div>",
    "<div class='Page-Content'>a</div>",
    "<main>m</main><div class='main-wrap'>a</div>",
    "<div role='main'>a</div><main>m</main>",
    "<section id='mainbox'>a</section>",
]
SELECTIONS = [
    (trafilatura_xpaths.OVERALL_DISCARD, xpaths.OVERALL_DISCARD_XPATH),
    (trafilatura_xpaths.TEASER_DISCARD, xpaths.TEASER_DISCARD_XPATH),
    (trafilatura_xpaths.DISCARD_IMAGE, xpaths.DISCARD_IMAGE_ELEMENTS),
    (trafilatura_xpaths.RAW_TREE_PRUNE, xpaths.RAW_TREE_PRUNE_XPATH),
    (trafilatura_xpaths.REMOVE_COMMENTS, xpaths.REMOVE_COMMENTS_XPATH),
    (trafilatura_xpaths.REMOVE_COMMENTS_AND_LISTS, xpaths.REMOVE_COMMENTS_AND_LISTS_XPATH),
    ([trafilatura_xpaths.basic_cleaning_targets], [BASIC_CLEAN_XPATH]),
]


def _trees(tmp_path: Path) -> list[html.HtmlElement]:
    """Each page as parsed, and as trafilatura's main pass reads it (cleaned, its tags converted)."""
    build_demo_site(tmp_path / "site")
    sources = [f"<html><body>{BOXES}</body></html>", *(f"<html><body>{body}</body></html>" for body in BODIES)]
    sources += [path.read_bytes() for path in sorted((tmp_path / "site").rglob("*.html"))]
    trees = []
    for source in sources:
        tree = parse_html(source)
        trees += [tree, _prepare_tree(deepcopy(tree), Extractor(output_format="txt", tables=True), None)[0]]
    return trees


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> list[html.HtmlElement]:
    return _trees(tmp_path_factory.mktemp("pages"))


def test_selections_are_trafilaturas(trees: list[html.HtmlElement]) -> None:
    for ours, theirs in SELECTIONS:
        assert len(ours) == len(theirs)
        for selection, expression in zip(ours, theirs, strict=True):
            selected = 0
            for tree in trees:
                expected = expression(tree)
                assert [id(node) for node in selection(tree)] == [id(node) for node in expected], selection.__name__
                selected += len(expected)
            assert selected, selection.__name__  # the pages exercise every selection


def test_first_frames_are_trafilaturas(trees: list[html.HtmlElement]) -> None:
    assert len(trafilatura_xpaths.BODY) == len(xpaths.BODY_XPATH)
    for first_match, expression in zip(trafilatura_xpaths.BODY, xpaths.BODY_XPATH, strict=True):
        found = 0
        for tree in trees:
            expected = next((node for node in expression(tree) if node is not None), None)
            assert first_match(tree) is expected, first_match.__name__
            found += expected is not None
        assert found, first_match.__name__


def test_one_walk_tells_whether_any_frame_is_selected(trees: list[html.HtmlElement]) -> None:
    found = [any(first_match(tree) is not None for first_match in trafilatura_xpaths.BODY) for tree in trees]
    assert [trafilatura_xpaths.any_body(tree) for tree in trees] == found
    # each frame alone, and near misses of each test
    misses = ["<div class='Post'>a</div>", "<span class='article-body'>a</span>", "<p id='main'>a</p>", "<div>a</div>"]
    for body in [*BODIES, *misses]:
        tree = parse_html(f"<html><body><div class='x'>{body}</div></body></html>")
        expected = any(first_match(tree) is not None for first_match in trafilatura_xpaths.BODY)
        assert trafilatura_xpaths.any_body(tree) is expected, body
        found.append(expected)
    assert any(found) and not all(found)


def test_overall_discard_in_one_walk_selects_both_expressions(trees: list[html.HtmlElement]) -> None:
    [selection] = trafilatura_xpaths.OVERALL_DISCARD_IN_ONE
    selected = 0
    for tree in trees:
        expected = [node for expression in xpaths.OVERALL_DISCARD_XPATH for node in expression(tree)]
        assert [id(node) for node in selection(tree)] == [id(node) for node in expected]
        selected += len(expected)
    assert selected


def test_no_id_pattern_matches_an_empty_id() -> None:
    # the one walk of the OVERALL_DISCARD selections tests ids only where there is one
    assert trafilatura_xpaths._DISCARD_ID.search("") is None
    assert trafilatura_xpaths._HIDDEN_ID.search("") is None


def test_id_or_class_is_the_first_in_the_source() -> None:
    tree = parse_html('<html><body><div class="cookie" id="x">a</div><div id="x" class="cookie">b</div></body></html>')
    assert [node.text for node in trafilatura_xpaths.overall_discard_boxes(tree)] == ["a"]


def test_page_text_is_html2txt(trees: list[html.HtmlElement]) -> None:
    for tree in trees:
        before = html.tostring(tree)
        assert page_text(tree) == html2txt(tree)
        assert html.tostring(tree) == before  # read from a copy


def test_link_density_pruning_is_trafilaturas(trees: list[html.HtmlElement]) -> None:
    deleted = 0
    for tree in trees:
        for tag, backtracking in (("div", True), ("list", False), ("p", False), ("head", False), ("quote", False)):
            for favor_precision in (False, True):
                theirs, ours = deepcopy(tree), deepcopy(tree)
                delete_by_link_density(theirs, tag, backtracking=backtracking, favor_precision=favor_precision)
                trafilatura_main_pass.delete_by_link_density(ours, tag, backtracking, favor_precision)
                assert html.tostring(ours) == html.tostring(theirs), tag
                deleted += len(list(tree.iter())) - len(list(ours.iter()))
    assert deleted  # the pages exercise the deletions


# Converted trees (trafilatura's tag names) rich in links, nested so that one pass's deletions change what the next
# pass reads: the link density passes share what they read of the tree, and forget it only for the deleted
# elements' ancestors.
_TAGS = ("div", "div", "list", "item", "p", "p", "ref", "ref", "head", "quote", "table", "span", "graphic")
_TEXTS = ("", " ", "go", "a link here", "\n  some words  \n", "a sentence of several words, " * 3, "long text " * 20)
_Node = tuple[str, str, str, list]  # tag, text, tail, children
_NODES = st.recursive(
    st.tuples(st.sampled_from(_TAGS), st.sampled_from(_TEXTS), st.sampled_from(_TEXTS), st.just([])),
    lambda children: st.tuples(
        st.sampled_from(_TAGS), st.sampled_from(_TEXTS), st.sampled_from(_TEXTS), st.lists(children, max_size=5)
    ),
    max_leaves=40,
)


def _built(node: _Node, parent: html.HtmlElement | None = None) -> html.HtmlElement:
    tag, text, tail, children = node
    element = html.Element(tag) if parent is None else SubElement(parent, tag)
    element.text, element.tail = text or None, tail or None
    for child in children:
        _built(child, element)
    return element


def _pruned_both_ways(
    tree: html.HtmlElement, potential_tags: set[str], options: Extractor
) -> tuple[bytes, bytes]:
    ours, theirs = deepcopy(tree), deepcopy(tree)
    ours = trafilatura_main_pass.prune_unwanted_sections(ours, set(potential_tags), options)
    theirs = main_extractor.prune_unwanted_sections(theirs, set(potential_tags), options)
    return html.tostring(ours), html.tostring(theirs)


@settings(max_examples=300, deadline=None)
@given(
    children=st.lists(_NODES, min_size=1, max_size=6),
    focus=st.sampled_from(("balanced", "precision", "recall")),
    extra_tags=st.sets(st.sampled_from(("table", "graphic", "ref"))),
)
def test_section_pruning_is_trafilaturas(children: list[_Node], focus: str, extra_tags: set[str]) -> None:
    tree = _built(("body", "", "", children))
    options = Extractor(output_format="txt", tables=True, precision=focus == "precision", recall=focus == "recall")
    ours, theirs = _pruned_both_ways(tree, set(TAG_CATALOG) | extra_tags, options)
    assert ours == theirs


def test_section_pruning_reads_again_what_a_deletion_changed() -> None:
    # The first round keeps the div (162 characters, 4 links); its list pass deletes the div's list, all links; the
    # second round must then read the div again, short and with only short links, and delete it: its text and links
    # remembered from before the deletion would keep it.
    link_list = ("list", "", "", [("item", "", "", [("ref", "x" * 60, "", [])]) for _ in range(2)])
    div = ("div", "", "", [("p", "plain words " * 3 + "here", "", []), ("ref", "a", "", []), ("ref", "b", "", []), link_list])
    tree = _built(("body", "", "", [div, ("p", "plain words " * 30, "", [])]))
    options = Extractor(output_format="txt", tables=True)
    ours, theirs = _pruned_both_ways(tree, set(TAG_CATALOG), options)
    assert ours == theirs
    assert html.fromstring(ours).find(".//div") is None  # the div went in the second round


# Ids and classes built of pieces of the words the raw tree's pruning and comment selections look for, and of near
# misses, so that generated names often hold a selected name and often one word of it without another.
_NAME_PIECES = (
    "", " ", "-", "x", "Comment", "comment", "omment", "ary", "s", "list", "comol", "disqus_thread", "dsq-comments",
    "post", "article", "infinite", "scroll", "mvp-post-add-", "box", "wrap", "elementor-share-buttons",
)
_NAME = st.lists(st.sampled_from(_NAME_PIECES), max_size=4).map("".join)
_NAMED_TAGS = ("div", "list", "section", "details", "ol", "ul", "aside", "p", "span", "item", "h1")
_NAMED = st.recursive(
    st.tuples(st.sampled_from(_NAMED_TAGS), st.none() | _NAME, st.none() | _NAME, st.just([])),
    lambda children: st.tuples(
        st.sampled_from(_NAMED_TAGS), st.none() | _NAME, st.none() | _NAME, st.lists(children, max_size=4)
    ),
    max_leaves=20,
)
_WORD_CHECKED = [
    (trafilatura_xpaths.RAW_PRUNE_WORDS, [
        *xpaths.RAW_TREE_PRUNE_XPATH, *xpaths.REMOVE_COMMENTS_AND_LISTS_XPATH, *xpaths.REMOVE_COMMENTS_XPATH,
    ]),
]


def _named(node: tuple, parent: html.HtmlElement | None = None) -> html.HtmlElement:
    tag, id_, class_name, children = node
    element = html.Element(tag) if parent is None else SubElement(parent, tag)
    for name, value in (("id", id_), ("class", class_name)):
        if value is not None:
            element.set(name, value)
    element.text = "text"
    for child in children:
        _named(child, element)
    return element


@settings(max_examples=400, deadline=None)
@given(children=st.lists(_NAMED, min_size=1, max_size=5))
def test_a_tree_whose_names_lack_the_words_has_nothing_selected(children: list[tuple]) -> None:
    tree = _named(("body", None, None, children))
    for words, expressions in _WORD_CHECKED:
        if not trafilatura_xpaths.names_hold(tree, words):
            assert all(expression(tree) == [] for expression in expressions)


def test_the_words_are_found_where_trafilatura_selects(trees: list[html.HtmlElement]) -> None:
    for words, expressions in _WORD_CHECKED:
        selecting = [tree for tree in trees if any(expression(tree) for expression in expressions)]
        assert selecting  # the pages exercise the selections
        assert all(trafilatura_xpaths.names_hold(tree, words) for tree in selecting)
    plain = parse_html("<html><body><div id='a' class='b c'>text</div><p class='note'>x</p></body></html>")
    assert not any(trafilatura_xpaths.names_hold(plain, words) for words, _ in _WORD_CHECKED)


@pytest.mark.parametrize("piece", [piece for piece in _NAME_PIECES if piece.strip()])
@pytest.mark.parametrize("name", ["id", "class"])
def test_each_name_alone_is_found_where_trafilatura_selects(piece: str, name: str) -> None:
    for tag in _NAMED_TAGS:
        for value in (piece, f"x-{piece}", f"{piece}s box"):
            tree = _named(("body", None, None, [(tag, *((value, None) if name == "id" else (None, value)), [])]))
            for words, expressions in _WORD_CHECKED:
                if any(expression(tree) for expression in expressions):
                    assert trafilatura_xpaths.names_hold(tree, words), (piece, name, tag, value)
