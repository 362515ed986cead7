"""The block model's say on a reading: only lines it judged unlikely main content leave."""

from dataclasses import replace

from lxml import html

from corpus_pipeline.extract.block_selection import BlockVerdicts, block_verdicts, without_unlikely_lines
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS

ON = replace(DEFAULT_SETTINGS, min_block_probability=0.05)


def test_lines_judged_unlikely_leave_and_unjudged_lines_stay():
    verdicts = BlockVerdicts({"subscribe to our newsletter": 0.01, "the river rose by two metres": 0.97})
    text = "The river rose by two metres.\nSubscribe to our newsletter\nA line the model never saw"
    assert without_unlikely_lines(text, verdicts, ON) == "The river rose by two metres.\nA line the model never saw"


def test_a_line_just_at_the_threshold_stays():
    verdicts = BlockVerdicts({"share this": ON.min_block_probability})
    assert without_unlikely_lines("Share this", verdicts, ON) == "Share this"


def test_the_switch_off_computes_no_verdicts():
    page = html.fromstring("<html><body><p>Some text here.</p></body></html>")
    assert block_verdicts(page, DEFAULT_SETTINGS) is None
    assert block_verdicts(page, ON).probability_of.keys() == {"some text here"}
