"""How deeply a page's tags nest, read from the raw source before any parser sees it.

Parsers that build a tree from the source (Resiliparse's second opinion reads the page's bytes, not lxml's
depth-capped tree) take time that grows with the square of the nesting: 5,000 nested ``<div>`` cost 0.7 s,
50,000 about 50 s. Measuring the nesting first lets a page of that kind be refused before any parser runs.
"""

from __future__ import annotations

import re
from itertools import accumulate

# An opening or closing tag, captured as "" or "/". Elements that never hold children (void elements) or whose
# end tag the HTML parser infers when a sibling opens (p, li, td, option...) are left out: counting them would
# make a long list written without end tags look deep, and they cannot nest without a counted parent.
_TAG = re.compile(
    r"<(/?)(?!(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr|p|li|dt|dd|td|th|tr"
    r"|thead|tbody|tfoot|option|optgroup|rb|rt|rp|colgroup|caption|html|head|body)[\s/>])[a-zA-Z]",
)
_STEP = {"": 1, "/": -1}
# An inline drawing (SVG, MathML) and, inside it, a tag that closes itself ("<path d=... />"). In these foreign
# elements "/>" ends the element, as every HTML parser reads it; a drawing of 7,668 paths would otherwise count as
# 7,668 levels of nesting (wcxb-dev: sqlite.org's SELECT page, two solostove.com pages, all refused).
_DRAWING = re.compile(r"<(svg|math)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_SELF_CLOSED = re.compile(r"<[a-zA-Z][^<>]*/>")


def markup_depth(source: str) -> int:
    """The deepest nesting of counted tags in ``source``: exact on well-formed markup, an over-estimate where end
    tags are missing (never an under-estimate), so a limit on it errs towards refusing. The self-closed shapes of
    an inline SVG or MathML drawing are closed elements, as parsers read them."""
    return _counted_depth(_DRAWING.sub(lambda drawing: _SELF_CLOSED.sub("", drawing.group(0)), source))


def nested_deeper_than(source: str, limit: int) -> bool:
    """Whether ``source`` nests counted tags more than ``limit`` levels deep."""
    if source.count("<") <= limit:  # fewer tags than the limit cannot nest deeper than it
        return False
    # Counting a drawing's shapes as nesting over-estimates: the cheap count clears most pages, drawings or not.
    return _counted_depth(source) > limit and markup_depth(source) > limit


def _counted_depth(source: str) -> int:
    steps = map(_STEP.__getitem__, _TAG.findall(source))
    return max(accumulate(steps, initial=0))
