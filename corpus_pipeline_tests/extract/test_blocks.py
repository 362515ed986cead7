"""Block features: one row per text block, whatever state the HTML is in."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree, html

from corpus_pipeline.extract.blocks import FEATURE_NAMES, HASHED_BUCKETS, page_blocks

WIDTH = len(FEATURE_NAMES) + HASHED_BUCKETS


def _column(name: str) -> int:
    return FEATURE_NAMES.index(name)


def test_each_paragraph_list_item_and_heading_is_one_block_in_document_order():
    page = html.fromstring(
        "<html><body><h1>Title here</h1><p>First <b>bold</b> paragraph.</p>"
        "<ul><li><a href='/a'>Menu link</a></li></ul><p>Second one.</p></body></html>"
    )
    blocks = page_blocks(page)
    assert blocks.texts == ["Title here", "First bold paragraph.", "Menu link", "Second one."]
    assert blocks.features.shape == (4, WIDTH)


def test_link_text_counts_in_the_link_density_and_prose_does_not():
    page = html.fromstring("<html><body><p>Plain words only here.</p><p><a href='/x'>all of it linked</a></p></body></html>")
    features = page_blocks(page).features
    assert features[0, _column("link_density")] == 0.0
    assert features[1, _column("link_density")] == 1.0


def test_text_after_a_closed_block_is_a_block_of_its_parent():
    page = html.fromstring("<html><body><div>Before <p>inside</p> after the paragraph</div></body></html>")
    assert page_blocks(page).texts == ["Before", "inside", "after the paragraph"]


def test_broken_html_still_gives_blocks_with_finite_features():
    broken = "<html><body><div><p>Unclosed paragraph <b>bold <i>and italic</div><li>stray item<td>stray cell</p></table>"
    blocks = page_blocks(html.fromstring(broken))
    assert "stray item" in " ".join(blocks.texts)
    assert np.all(np.isfinite(blocks.features))


def test_each_block_counts_the_words_of_its_own_container_only():
    # Many containers, each holding one paragraph of its own length: no two containers may pool their words.
    containers = "".join(f"<div><p>{' '.join(['word'] * (i + 1))}</p></div>" for i in range(200))
    blocks = page_blocks(html.fromstring(f"<html><body>{containers}</body></html>"))
    own = blocks.features[:, _column("log_words")]
    assert np.array_equal(blocks.features[:, _column("parent_log_words")], own)


def test_a_page_without_text_gives_an_empty_matrix():
    blocks = page_blocks(html.fromstring("<html><body><script>var x = 1;</script><img src='a.png'></body></html>"))
    assert blocks.texts == []
    assert blocks.features.shape == (0, WIDTH)


def test_deep_nesting_does_not_exhaust_the_stack():
    page = html.fromstring("<html><body>" + "<div>" * 250 + "deep text" + "</div>" * 250 + "</body></html>")
    assert page_blocks(page).texts == ["deep text"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(list("<>/ pdiva=\"'abc\n&;#") + ["<p>", "</div>", "<li>", "<a href=x>", "</a>"]), max_size=120))
def test_any_markup_gives_one_finite_row_per_block(pieces):
    markup = "".join(pieces)
    try:
        document = html.fromstring(f"<html><body>{markup} tail text</body></html>")
    except (etree.ParserError, ValueError):  # lxml refuses some inputs outright; the extractor records those as errors elsewhere
        return
    blocks = page_blocks(document)
    assert blocks.features.shape == (len(blocks.texts), WIDTH)
    assert np.all(np.isfinite(blocks.features))
    assert all(text.strip() for text in blocks.texts)
