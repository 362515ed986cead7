"""The Python selections select what trafilatura's XPath expressions select, element for element, in order."""

from copy import deepcopy
from pathlib import Path

import pytest
from lxml import html
from trafilatura import xpaths
from trafilatura.baseline import html2txt
from trafilatura.core import _prepare_tree
from trafilatura.htmlprocessing import delete_by_link_density
from trafilatura.settings import BASIC_CLEAN_XPATH, Extractor

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
