"""Nesting depth read from the raw source: drawings' self-closed shapes are no nesting."""

from corpus_pipeline.extract.markup_depth import markup_depth, nested_deeper_than


def test_nested_elements_count_and_closed_ones_do_not():
    assert markup_depth("<div><section><div>text</div></section></div><div></div>") == 3


def test_an_inline_drawing_of_many_self_closed_shapes_is_shallow():
    paths = '<path d="M0 0h24v24H0z" fill="none"/>' * 5000
    page = f"<html><body><div><svg viewBox='0 0 24 24'>{paths}<g><circle r='2'/></g></svg><p>text</div></body></html>"
    assert markup_depth(page) == 3  # div > svg > g
    assert not nested_deeper_than(page, 1000)


def test_nesting_inside_a_drawing_still_counts():
    groups = "<svg>" + "<g>" * 1200 + "<path/>" + "</g>" * 1200 + "</svg>"
    assert nested_deeper_than(f"<div>{groups}</div>", 1000)


def test_unclosed_elements_outside_drawings_still_count_as_nested():
    assert nested_deeper_than("<div>" * 1200 + "<svg><path/></svg>", 1000)
