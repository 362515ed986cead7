"""Every threshold and rule switch of automatic main-content extraction, in one frozen object.

Values were chosen with ``benchmarks/extraction_bench.py`` (article-extraction-benchmark and wcxb-dev); each field
says why it has its value. The rule switches let the benchmark's ablation turn one rule off at a time; in production
they are all on. Pass an instance to ``parse_html_page`` / ``parse_html_pages`` (the default when none is given).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExtractionSettings:
    """Thresholds of the extraction rules (see each field's comment) and one switch per rule without a threshold."""

    # -- the page -------------------------------------------------------------------------------------------------
    max_chars: int = 5_000_000  # beyond this a "page" is a dump, not an article: parse the head of it
    charset_sample_bytes: int = 200_000  # charset detection reads the head of a page: its cost grows with the bytes
    # Among near-equal charset candidates the web's own default (windows-1252) is preferred within this chaos margin.
    windows_1252_tolerance: float = 0.15
    min_listed_articles: int = 3  # this many articles declared on one page are a list's stories (page_type.py)

    # -- metadata (metadata.py) ------------------------------------------------------------------------------------
    min_title_words: int = 2  # a title cut down to fewer words than this lost its meaning: the whole title stays
    # Detection overrides a declared language only this confident, on this much text (English copies under /fr/).
    confident_detection: float = 0.95
    min_text_for_detection: int = 200
    min_undeclared_detection: float = 0.5  # with nothing declared, a detection more likely than not beats the default
    detection_sample_chars: int = 2000  # the classifier's cost grows with the text; its accuracy has stopped growing
    min_detection_chars: int = 20  # fewer characters say nothing about their language

    # -- trafilatura fast mode, checked by the second opinion (main_content.py) -----------------------------------
    # Fast mode skips trafilatura's fallbacks (~40 % of its time); a fast reading with under this share of the second
    # opinion's words is redone in full (F1 equal or better on both benchmarks, speed 0.72x -> 0.95x trafilatura).
    min_fast_share: float = 0.5
    max_fast_growth: float = 5  # ...or over this many times them (a menu read as a news story; off: -0.001 on both)
    min_expected_words: int = 50  # below this, the second opinion's length says little
    fast_trafilatura_first: bool = True  # switch: off reads every page in trafilatura's full mode

    # -- the website's content container (content_container.py) -----------------------------------------------------
    site_containers: bool = True  # switch: off reads every page alone, even when its website's pages agree
    # switch: off keeps the template, byline, date and tag lines at the edges of the container's text (word-bag F1 on
    # and off: tuning 0.998 / 0.993, validation 0.992 / 0.976)
    container_edges_trimmed: bool = True

    # -- articles --------------------------------------------------------------------------------------------------
    # Precision mode kept unless it keeps under this share of the second opinion's words (article benchmark F1:
    # default mode 0.960, precision alone 0.964, precision with this guard 0.969).
    min_precise_share: float = 0.6
    precision_on_articles: bool = True  # switch: off reads articles in the default mode, as any other page
    # A default-mode reading of an article under this share of the second opinion's words failed too, and the second
    # opinion may fill it in (wcxb-dev articles 0.942 -> 0.944 from 0.3 to 0.5; article benchmark falls at 0.6).
    max_failed_share: float = 0.3

    # -- the second opinion's merge (second_opinion.py) ------------------------------------------------------------
    second_opinion_merge: bool = True  # switch: off keeps trafilatura's reading whatever Resiliparse found
    min_containment: float = 0.7  # trafilatura's words the second opinion must hold too (wcxb-dev +0.0005 over 0.9)
    min_growth: float = 1.5  # the second opinion must have found this many times more words
    # What it adds must average this many words per line: one- or two-word lines are job cards, menus, filters
    # (wcxb-dev listings: 0.582 merged anyway, 0.590 not).
    min_words_per_added_line: float = 2.5
    min_prose_words_per_line: float = 20  # what a product page's second opinion adds: paragraphs, not spec rows

    # -- card grids (card_grid.py, main_content.py) ----------------------------------------------------------------
    card_grids: bool = True  # switch: off never adds a page's card grid
    min_cards: int = 4  # fewer siblings alike are a pair of columns or a short menu, not a list of records
    min_words_per_card: float = 3  # a run of icons, bare links or one-word tabs is a menu
    # A group where one member holds this share of the words is the page's layout, not a list of records (a
    # documentation index's largest chapter holds half).
    max_card_share: float = 0.9
    # A grid split into columns is one grid: containers laid out alike up to this many levels above the cards' parent
    # (python3.11-doc's index pages use two table cells; off: python3.11-doc 0.965 -> 0.959).
    grid_column_levels: int = 2
    # The grid joins the text when it holds this many times more words (wcxb-dev listings +0.044; 1.5 to 3 alike).
    min_grid_growth: float = 2
    # ...and reads as records: sidebar widgets of one-word category links average fewer words per line...
    min_grid_words_per_line: float = 2.5
    # ...or as many short shop records (name, colours, price; wcxb-dev +0.0018), where a sidebar has a few cards.
    min_short_records: int = 8
    min_short_record_lines: float = 3
    # On an article the grid must be the article's own sections: it holds at least this share of the words read...
    min_read_in_grid: float = 0.5
    # ...and no card holds this share alone (one story of a stream, or teasers; article benchmark 0.962 -> 0.971).
    max_read_in_one_card: float = 0.8

    # -- page chrome: no document (main_content.py) ---------------------------------------------------------------
    # When Resiliparse finds no main content, a trafilatura reading under this many words, of lines averaging under
    # the next setting's words, is menus and banners: no document (wcxb-dev: three such pages, empty truth, 2.1 to 5.0
    # words a line; the shortest real page Resiliparse misses has 123 words; python3.11-doc's 52 at 7.4 a line stay).
    max_chrome_words: int = 100
    max_chrome_words_per_line: float = 6

    # -- the line arbiter (line_arbiter.py) -------------------------------------------------------------------------
    # A line of the second opinion that the reading lacks is put back when the arbiter gives it this probability of
    # main content or more; above 1 is off (the model is not run). 0.75: best gain in 5-fold cross-validation by
    # website within tuning (validation 0.85886 -> 0.86081, article benchmark unchanged).
    min_arbiter_probability: float = 0.75

    # -- reader comments (comments.py) -----------------------------------------------------------------------------
    comments_removed: bool = True  # switch: off lets reader comments into non-forum pages' readings
    consent_banners_removed: bool = True  # switch: off leaves cookie and consent banners in the page (consent.py)

    # -- headings put back (headings.py) ---------------------------------------------------------------------------
    headings_restored: bool = True  # switch: off leaves out the headings trafilatura dropped (wcxb-dev -0.003)
    # switch: off lets the heading that repeats the page's title back in as well, and keeps a reading's opening line
    # that repeats it (the title has its own column; article benchmark 0.9726 -> 0.9744)
    headline_left_out: bool = True
    # A reading's lines above its headline are the page's header (kicker, breadcrumbs, dateline) and go with it while
    # none has more words than this; else they are content and the headline stays (12 to 24 alike, unbounded -0.0043).
    max_header_line_words: int = 16
    # On a declared article, a byline, dateline or reading time among the reading's first or last this many lines goes,
    # and an author's note among its last ones (byline.py; 0: off); chosen on tuning among 1 to 5, validation +0.0002.
    metadata_edge_lines: int = 3
    max_metadata_line_words: int = 12  # a longer line is a sentence that happens to name the author and the date
    # An author's note ("Jane Doe is a staff writer ...") among the last lines opens with a full name of at most this
    # many words and has at least this many words (a bare name is a byline, judged as one).
    max_author_name_words: int = 4
    min_author_bio_words: int = 4
    # On a declared article, a labelled pointer at another story ("Read more: <headline>") goes, anywhere in the
    # reading (page_labels.py; article benchmark 0.97500 -> 0.97577); a longer line is a paragraph opening like one.
    story_pointers_removed: bool = True
    max_pointer_words: int = 30
    anchor_words: int = 4  # words after a heading that must open a kept line
    max_heading_words: int = 30  # longer "headings" are whole cards or banners wrapped in <hN>
    max_following_fragments: int = 12  # text nodes searched for a heading's opening words

    # -- line filters (text.py) ------------------------------------------------------------------------------------
    # A line this long that is one phrase over and over, a placeholder, a rating widget or a soup of ids is markup
    # debris (as in Gopher's repetition rules and C4's line filters); shorter lines are left alone.
    min_degenerate_line_words: int = 20
    # Share of a line's words covered by its commonest word pair (Gopher drops from 20 %; in a 20-word sentence one
    # pair said twice covers 20 %, so debris is counted from 40 %).
    min_top_pair_share: float = 0.4
    min_identifier_share: float = 0.5  # words that mix letters and digits ("9b83", "S19aea247"): ids, not language


DEFAULT_SETTINGS = ExtractionSettings()
