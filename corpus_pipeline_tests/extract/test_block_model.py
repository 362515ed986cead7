"""The block model file: loaded with clear errors when unusable, and deciding clear cases the right way."""

import json

import numpy as np
import pytest
from lxml import html

from corpus_pipeline.extract.block_model import (
    DEFAULT_MODEL_PATH,
    BlockModel,
    BlockModelError,
    load_block_model,
    save_block_model,
)
from corpus_pipeline.extract.blocks import FEATURE_NAMES, HASHED_BUCKETS, page_blocks

WIDTH = len(FEATURE_NAMES) + HASHED_BUCKETS


def _model(coefficients: np.ndarray) -> BlockModel:
    return BlockModel(FEATURE_NAMES, HASHED_BUCKETS, np.zeros(WIDTH), np.ones(WIDTH), coefficients)


def test_a_missing_model_file_is_a_clear_error_naming_the_file_and_the_fix(tmp_path):
    path = tmp_path / "absent.json"
    with pytest.raises(BlockModelError, match="absent.json is missing: run benchmarks/train_block_model.py"):
        load_block_model(path)


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[]",
        json.dumps({"format": "something else"}),
        b"\xff\xfe\x00garbage",
    ],
)
def test_a_corrupt_model_file_is_a_clear_error(tmp_path, content):
    path = tmp_path / "model.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(BlockModelError, match="model.json"):
        load_block_model(path)


def test_a_model_of_another_feature_layout_or_with_missing_numbers_is_refused(tmp_path):
    path = tmp_path / "model.json"
    save_block_model(_model(np.ones(WIDTH)), path)
    document = json.loads(path.read_text())
    truncated = document | {"coefficients": document["coefficients"][:-1]}
    path.write_text(json.dumps(truncated))
    with pytest.raises(BlockModelError, match="corrupt"):
        load_block_model(path)
    path.write_text(json.dumps(document | {"feature_names": ["log_words"]}))
    with pytest.raises(BlockModelError, match="another feature layout"):
        load_block_model(path)


def test_a_saved_model_loads_back_the_same_and_saves_to_the_same_bytes(tmp_path):
    model = _model(np.linspace(-1, 1, WIDTH))
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    save_block_model(model, first)
    save_block_model(load_block_model(first), second)
    assert first.read_bytes() == second.read_bytes()
    assert np.allclose(load_block_model(first).coefficients, model.coefficients, atol=1e-6)  # rounded to 6 places


def test_the_shipped_model_tells_an_article_paragraph_from_a_menu():
    prose = (
        "The river authority measured flood levels across the valley in spring, and the readings show that the "
        "farms downstream were spared the worst of it, although the lower fields stayed under water for a week."
    )
    menu = "".join(f"<li><a href='/{word}'>{word}</a></li>" for word in ("Home", "News", "Sport", "Weather", "Contact"))
    page = html.fromstring(
        f"<html><body><nav class='main-menu'><ul>{menu}</ul></nav>"
        f"<article class='post-content'><h1>Flood levels</h1><p>{prose}</p><p>{prose}</p></article>"
        "<footer class='site-footer'><a href='/privacy'>Privacy policy</a></footer></body></html>"
    )
    blocks = page_blocks(page)
    probabilities = load_block_model(DEFAULT_MODEL_PATH).probabilities(blocks.features)
    decided = dict(zip(blocks.texts, probabilities))
    assert decided[prose] > 0.5
    assert decided["Home"] < 0.5
    assert decided["Privacy policy"] < 0.5
