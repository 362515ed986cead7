"""The block model: how likely each block of a page is main content, from a shipped JSON file, in plain numpy.

The model is a logistic regression over ``blocks.py``'s features, trained on wcxb-dev's tuning part by
``benchmarks/train_block_model.py`` (which rewrites ``models/block_model.json``). The file holds the feature
layout it was trained on; a file that is missing, unreadable or of another layout raises
:class:`BlockModelError` naming the file and what is wrong, never a wrong prediction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from corpus_pipeline.extract.blocks import FEATURE_NAMES, HASHED_BUCKETS

DEFAULT_MODEL_PATH = Path(__file__).with_name("models") / "block_model.json"
FORMAT = "corpus_pipeline.block_model/1"
DIGITS = 6  # numbers are written rounded, so that a retrain on the same data writes the same bytes


class BlockModelError(RuntimeError):
    """The block model file cannot be used (missing, corrupt, or trained on another feature layout)."""


@dataclass(frozen=True)
class BlockModel:
    """Feature scaling and coefficients of a logistic regression over block features."""

    feature_names: tuple[str, ...]
    hashed_buckets: int
    mean: np.ndarray
    scale: np.ndarray
    coefficients: np.ndarray

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Probability of main content for each row of ``features`` (a ``page_blocks`` matrix)."""
        if features.shape[0] == 0:
            return np.zeros(0)
        scores = ((features - self.mean) / self.scale) @ self.coefficients
        return 1.0 / (1.0 + np.exp(-np.clip(scores, -30.0, 30.0)))


def save_block_model(model: BlockModel, path: Path) -> None:
    """Write ``model`` as JSON (numbers rounded to ``DIGITS`` places, keys sorted: same model, same bytes)."""
    document = {
        "format": FORMAT,
        "feature_names": list(model.feature_names),
        "hashed_buckets": model.hashed_buckets,
        "mean": _rounded(model.mean),
        "scale": _rounded(model.scale),
        "coefficients": _rounded(model.coefficients),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, sort_keys=True, indent=0) + "\n")


def load_block_model(path: Path = DEFAULT_MODEL_PATH) -> BlockModel:
    """The model in ``path``; :class:`BlockModelError` when it is missing, corrupt or of another feature layout."""
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise BlockModelError(
            f"block model file {path} is missing: run benchmarks/train_block_model.py to build it"
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BlockModelError(f"block model file {path} is unreadable: {exc}") from None
    return _model_from(document, path)


@lru_cache(maxsize=4)
def shipped_block_model(path: Path = DEFAULT_MODEL_PATH) -> BlockModel:
    """The model file read once per process (every page of a run uses the same one)."""
    return load_block_model(path)


def _model_from(document: object, path: Path) -> BlockModel:
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise BlockModelError(f"block model file {path} is not a {FORMAT} file")
    names = tuple(document.get("feature_names") or ())
    buckets = document.get("hashed_buckets")
    if names != FEATURE_NAMES or buckets != HASHED_BUCKETS:
        raise BlockModelError(
            f"block model file {path} was trained on another feature layout:"
            " retrain with benchmarks/train_block_model.py"
        )
    width = len(FEATURE_NAMES) + HASHED_BUCKETS
    try:
        arrays = [np.asarray(document[key], dtype=np.float64) for key in ("mean", "scale", "coefficients")]
    except (KeyError, TypeError, ValueError) as exc:
        raise BlockModelError(f"block model file {path} is corrupt: {exc!r}") from None
    if any(array.shape != (width,) or not np.all(np.isfinite(array)) for array in arrays):
        raise BlockModelError(f"block model file {path} is corrupt: expected {width} finite numbers per vector")
    if np.any(arrays[1] == 0):
        raise BlockModelError(f"block model file {path} is corrupt: a feature scale of zero")
    return BlockModel(names, buckets, *arrays)


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(value), DIGITS) for value in values]
