"""Headings put back over the text they introduce."""

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from lxml import html

from corpus_pipeline.extract.headings import heading_anchors, page_titles, restore_headings, without_headline
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS

CARDS = [
    ("Pumps that outlast the winter", "Our engineers compared twelve heat pumps through a cold season in the Alps."),
    ("Radiators, sized right", "A room-by-room method to size radiators without the installer's guesswork."),
]


def _listing(extra: str = "") -> html.HtmlElement:
    cards = "".join(f'<div class="card"><h3><a href="/{i}">{title}</a></h3><p>{excerpt}</p></div>' for i, (title, excerpt) in enumerate(CARDS))
    return html.fromstring(f"<html><body><h1>Guides</h1>{cards}{extra}</body></html>")


def test_card_titles_the_extractor_dropped_come_back_over_their_excerpts():
    extracted = "\n".join(excerpt for _, excerpt in CARDS)
    restored = restore_headings(extracted, heading_anchors(_listing()))
    assert restored.split("\n") == [CARDS[0][0], CARDS[0][1], CARDS[1][0], CARDS[1][1]]


def test_kept_headings_are_not_doubled_and_headings_of_dropped_blocks_stay_out():
    extracted = "\n".join([CARDS[0][0], CARDS[0][1]])
    restored = restore_headings(extracted, heading_anchors(_listing()))
    # The page's h1 introduces the first card's title; the second card was dropped, its title with it.
    assert restored.split("\n") == ["Guides", CARDS[0][0], CARDS[0][1]]


def test_the_headline_that_repeats_the_page_title_stays_out_but_a_title_word_alone_does_not():
    story = "Heat pumps outlast the winter in the Alps"
    body = f"<h1>{story}</h1><p>Twelve heat pumps ran through a cold season.</p><h2>Heat</h2><p>Each kept the house warm.</p>"
    page = html.fromstring(f"<html><head><title>{story} | Alpine Energy News</title></head><body>{body}</body></html>")
    extracted = "Twelve heat pumps ran through a cold season.\nEach kept the house warm."
    restored = restore_headings(extracted, heading_anchors(page))
    assert restored.split("\n") == ["Twelve heat pumps ran through a cold season.", "Heat", "Each kept the house warm."]
    with_headline = restore_headings(extracted, heading_anchors(page, replace(DEFAULT_SETTINGS, headline_left_out=False)))
    assert with_headline.split("\n")[0] == story


def test_the_headline_goes_with_the_header_lines_above_it_but_not_below_a_paragraph():
    page = html.fromstring("<html><head><title>Heat pumps outlast the winter | Alpine Energy News</title></head></html>")
    titles = page_titles(page)
    header = "Energy\nShare on social media\n12 March 2024, 09:14"
    assert without_headline(f"{header}\nHeat pumps outlast the winter\nTwelve ran all season.", titles) == (
        "Twelve ran all season."
    )
    # A title word alone, or the title's words below a paragraph (a product's name in its specs), are the page's text.
    paragraph = " ".join(["word"] * DEFAULT_SETTINGS.max_header_line_words)
    for text in ("Heat pumps\nTwelve ran all season.", f"{paragraph} more\nHeat pumps outlast the winter"):
        assert without_headline(text, titles) == text
    # The boundary: a line of max_header_line_words words is still the header's.
    assert without_headline(f"{paragraph}\nHeat pumps outlast the winter\nTwelve.", titles) == "Twelve."
    assert without_headline("Heat pumps outlast the winter", ()) == "Heat pumps outlast the winter"


def test_a_short_headline_beside_a_long_site_name_and_a_heading_that_only_begins_a_title_word():
    def titles(title: str, h1: str) -> tuple[str, ...]:
        return page_titles(html.fromstring(f"<html><head><title>{title}</title></head><body><h1>{h1}</h1></body></html>"))

    # The title's part that is the h1 is the headline, not the site's name that is most of the title.
    licence = titles("License - PyMdown Extensions Documentation", "License")
    assert without_headline("License\nPyMdown Extensions\nThe MIT License", licence) == "PyMdown Extensions\nThe MIT License"
    # That part is matched whole: half of it is any line of one of its words.
    axios = titles("axios API – The axios Logbook", "axios API")
    assert without_headline("axios({\nmethod: 'post'", axios) == "axios({\nmethod: 'post'"
    # Words are matched whole: "Legacy EM" is no headline of "Legacy Emphasis".
    legacy = titles("Legacy Emphasis - Python-Markdown", "Legacy EM")
    assert without_headline("Legacy EM\nSummary\nThe extension", legacy) == "Legacy EM\nSummary\nThe extension"


def test_the_site_name_in_an_h1_beside_the_headline_is_no_headline():
    # WordPress's block themes: the site's name and the post's headline are both h1s, both parts of the title.
    page = html.fromstring(
        "<html><head><title>dotenv 17.2.3 – dotenv Release Notes</title></head><body><header><h1>dotenv Release "
        "Notes</h1><nav>About dotenv</nav></header><h1>dotenv 17.2.3</h1><p>Changed</p></body></html>"
    )
    text = "dotenv Release Notes\nAbout dotenv\nDeploying\ndotenv 17.2.3\nChanged\nFixed a type definition"
    assert without_headline(text, page_titles(page)) == "Changed\nFixed a type definition"


def test_script_text_and_overlong_headings_anchor_nothing():
    document = html.fromstring(
        "<html><body><h2>Prices</h2><script>var tracking = 'one two three four';</script><p>one two three four five</p>"
        f"<h2>{'word ' * 40}</h2><p>Six seven eight nine ten.</p></body></html>"
    )
    anchors = heading_anchors(document)
    assert anchors == [("Prices", "one two three four")]
    assert restore_headings("Six seven eight nine ten.", anchors) == "Six seven eight nine ten."


def test_anchor_words_are_read_across_comments_nesting_and_closing_tags():
    document = html.fromstring(
        "<html><body><section><div><h2>Opening <em>hours</em></h2></div><!-- hours table --></section>"
        "<div><span>Monday</span> to <b>Friday, nine</b> until six.</div></body></html>"
    )
    assert heading_anchors(document) == [("Opening hours", "monday to friday nine")]


@given(
    lines=st.lists(st.text(alphabet="abc xyz.\t", max_size=30), max_size=8),
    anchors=st.lists(st.tuples(st.text(alphabet="abc xyz", max_size=12), st.text(alphabet="abc xyz", max_size=20)), max_size=6),
)
def test_restoring_only_inserts_lines(lines, anchors):
    original = "\n".join(lines).split("\n")
    restored = restore_headings("\n".join(lines), anchors).split("\n")
    remaining = iter(restored)
    assert all(line in remaining for line in original)  # original lines, in order, none lost
    assert len(original) <= len(restored) <= len(original) + len(anchors)


def _restored_in_full(text: str, anchors: list[tuple[str, str]]) -> str:
    """restore_headings by its definition: each heading missing from the text goes before the first line that its
    anchor opens, looked up line by line with no shortcut."""
    from corpus_pipeline.extract.text import line_key

    lines = text.split("\n")
    seen = {line_key(line) for line in lines}
    before: dict[int, list[str]] = {}
    for heading, following in anchors:
        if not line_key(heading) or line_key(heading) in seen:
            continue
        for index, line in enumerate(lines):
            opening = " ".join(line_key(line).split()[: DEFAULT_SETTINGS.anchor_words])
            if opening and opening == following:
                before.setdefault(index, []).append(heading)
                seen.add(line_key(heading))
                break
    restored: list[str] = []
    for index, line in enumerate(lines):
        restored += before.get(index, [])
        restored.append(line)
    return "\n".join(restored)


_WORDS = st.sampled_from(["a", "b", "ab", "Ab", "x", "y z", "", " ", ".", "\t"])


@given(
    lines=st.lists(st.lists(_WORDS, max_size=6).map(" ".join), max_size=8),
    anchors=st.lists(
        st.tuples(st.lists(_WORDS, max_size=3).map(" ".join), st.lists(_WORDS, max_size=6).map(" ".join)), max_size=5
    ),
)
def test_restoring_is_the_full_computation(lines, anchors):
    text = "\n".join(lines)
    anchors = [(heading, " ".join(following.lower().split()[: DEFAULT_SETTINGS.anchor_words])) for heading, following in anchors]
    assert restore_headings(text, anchors) == _restored_in_full(text, anchors)


def test_the_page_titles_are_its_title_and_its_first_og_title_with_a_content():
    page = html.fromstring(
        "<html><head><title>Site name</title><meta property='og:title'><meta name='og:title' content='Named'>"
        "<meta property='og:title' content=''><meta property='og:title' content='Second'></head>"
        "<body><p>Text</p></body></html>"
    )
    assert page_titles(page) == ("site name",)  # an empty content is the first: no words
    page.find("head").remove(page.find("head")[3])
    assert page_titles(page) == ("site name", "second")
    assert page_titles(page.find("body")) == ("second",)  # the document's og:title, read from anywhere in it
