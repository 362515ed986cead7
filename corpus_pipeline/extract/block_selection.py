"""The block model's say on a reading: lines it is sure are not main content leave it.

A reading's lines are matched to the page's blocks by their words (``text.line_key``); a line whose blocks the
model gives a main-content probability under ``settings.min_block_probability`` is dropped. Lines that match
no block (trafilatura joins or splits some) are kept: the model only removes what it has judged.
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import html

from corpus_pipeline.extract.block_model import shipped_block_model
from corpus_pipeline.extract.blocks import page_blocks
from corpus_pipeline.extract.settings import ExtractionSettings
from corpus_pipeline.extract.text import line_key


@dataclass(frozen=True)
class BlockVerdicts:
    """The highest main-content probability the model gave any block of each text (by its ``line_key``)."""

    probability_of: dict[str, float]


def block_verdicts(document: html.HtmlElement, settings: ExtractionSettings) -> BlockVerdicts | None:
    """The model's verdict on every block of ``document`` (None when the filter is off: no threshold)."""
    if settings.min_block_probability <= 0:
        return None
    blocks = page_blocks(document)
    probabilities = shipped_block_model().probabilities(blocks.features)
    verdicts: dict[str, float] = {}
    for text, probability in zip(blocks.texts, probabilities, strict=False):
        key = line_key(text)
        verdicts[key] = max(verdicts.get(key, 0.0), float(probability))
    return BlockVerdicts(verdicts)


def without_unlikely_lines(text: str, verdicts: BlockVerdicts, settings: ExtractionSettings) -> str:
    """``text`` without the lines whose blocks the model judged unlikely main content."""
    lines = text.split("\n")
    kept = [
        line for line in lines
        if verdicts.probability_of.get(line_key(line), 1.0) >= settings.min_block_probability
    ]
    return "\n".join(kept) if len(kept) < len(lines) else text
