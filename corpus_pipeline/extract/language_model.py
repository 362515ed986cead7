"""py3langid's language identifier, loaded from memory-mapped arrays instead of copied into each process.

py3langid ships its model as one LZMA-compressed npz (4.5 MB) that every process decompresses into its own memory:
a 100k x 142 float16 table, a 9.8M-entry transition table and two Python lists, 73 MiB per parsing worker. Unpacked
once into plain ``.npy`` files and mapped read-only, the same arrays are pages of a file: a process holds only those
its texts touch, the workers share them through the page cache, and the kernel can drop them under pressure.
Classification reads the very same numbers, so its results are identical.

The automaton py3langid walks over a text's bytes (a 39 MiB transition table, touched nearly whole by a website's
texts, walked one byte at a time in Python) is replaced by its features' byte strings, found with numpy look-ups
(``extract.language_features``, 3 MiB): the same features, counted in the same order, so the scores are the same
floats. Unpacking checks the equivalence on the automaton itself; a model where it does not hold keeps py3langid's own.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

from corpus_pipeline.core.memory import malloc_trimmed
from corpus_pipeline.extract.language_features import FeatureTable, feature_table

CACHE_DIR_ENV_VAR = "CORPUS_PIPELINE_CACHE"
_FORMAT = 2  # bump when the unpacked layout below changes
_FILES = ("ptc.npy", "pc.npy", "feature_slots.npy", "feature_ids.npy", "classes.json")


def default_cache_dir() -> Path:
    """``$CORPUS_PIPELINE_CACHE``, else ``$XDG_CACHE_HOME/corpus_pipeline``, else ``~/.cache/corpus_pipeline``."""
    configured = os.environ.get(CACHE_DIR_ENV_VAR)
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "corpus_pipeline"


class TableLanguageIdentifier(LanguageIdentifier):
    """py3langid's ``LanguageIdentifier`` counting a text's features with a :class:`FeatureTable` instead of walking
    its automaton; everything else (encoding, scores, normalization, aliases) is py3langid's own code."""

    __slots__ = ("_features", "_half_bits", "_halves")

    def __init__(self, nb_ptc: Any, nb_pc: Any, nb_classes: list[str], features: FeatureTable) -> None:
        # No automaton: py3langid's walk is only ever asked to walk no bytes (below).
        super().__init__(nb_ptc, nb_pc, nb_classes, (), (), norm_probs=True, tk_row=())
        self._features = features
        # A float16 table's rows are gathered as their bits and widened through a table of every float16's float32
        # (see _weights); another dtype goes through py3langid's own scoring.
        weights = np.asarray(nb_ptc)
        is_half = weights.dtype == np.dtype(np.float16)
        self._half_bits = weights.view(np.uint16) if is_half else None
        every_half = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16) if is_half else None
        self._halves = every_half.astype(np.float32) if every_half is not None else None

    def _raw_score(self, text: bytes) -> Any:
        sequence = self._features.sequence(text)
        if not len(sequence):  # py3langid's score of a text without features (its walk over no bytes finds none)
            return super()._raw_score(b"")
        if self._half_bits is None:
            # py3langid's own count of its walk's outputs (a Counter, in first-occurrence order) and its own scoring.
            return self._sparse_score(Counter(sequence.tolist()), self.nb_ptc)
        features, counts = first_occurrence_counts(sequence)
        # py3langid's expression (``_sparse_score``), term for term: matmul widens the float16 rows to float32 before
        # its float32 product, and _weights gives those very float32 rows, so the product is the same floats.
        return np.log1p(counts.astype(np.float32)) @ self._weights(features) + self.nb_pc

    def _weights(self, features: np.ndarray) -> np.ndarray:
        """The table's rows of ``features`` as float32: their bits gathered with ``take`` and each float16 widened
        by look-up (exact, as any float16 is a float32). Fancy indexing of the float16 rows then matmul's own
        widening cost ~0.4 ms a text; this ~0.1."""
        assert self._half_bits is not None and self._halves is not None
        return self._halves.take(self._half_bits.take(features, axis=0))


def first_occurrence_counts(sequence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of ``sequence`` in the order they first occur, and how often each occurs: what
    ``Counter(sequence.tolist())`` holds (its keys and values, in its order), without a Python object per item."""
    values, first, counts = np.unique(sequence, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    return values.take(order), counts.take(order)


def mapped_language_identifier(cache_dir: Path | None = None) -> Any:
    """py3langid's ``LanguageIdentifier`` (probabilities normalized), its weights mapped from unpacked files and its
    features looked up in a table (:class:`TableLanguageIdentifier`): the same answers, float for float.

    The files are written on first use, under a name that follows the installed model file's contents, so another
    py3langid release unpacks its own. When the cache cannot be written or read, or the model's automaton is not the
    one the table replaces, the model is loaded the usual way.
    """
    model_file = Path(MODEL_DIR) / MODEL_FILE
    try:
        folder = _unpacked(model_file, cache_dir or default_cache_dir())
        classes = json.loads((folder / "classes.json").read_text(encoding="utf-8"))
        features = FeatureTable.of(
            np.load(folder / "feature_slots.npy", mmap_mode="r"), np.load(folder / "feature_ids.npy", mmap_mode="r")
        )
        malloc_trimmed()  # the check's temporaries (~7 MiB) are freed: hand their pages back
        return TableLanguageIdentifier(
            np.load(folder / "ptc.npy", mmap_mode="r"), np.load(folder / "pc.npy"), classes, features
        )
    except (OSError, ValueError):  # a cache that cannot be written, a damaged file in it, another kind of automaton
        return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _unpacked(model_file: Path, cache_dir: Path) -> Path:
    """The folder of unpacked arrays for ``model_file``, written (atomically) when missing."""
    digest = hashlib.sha256(model_file.read_bytes()).hexdigest()[:16]
    folder = cache_dir / f"py3langid-{digest}-v{_FORMAT}"
    if all((folder / name).exists() for name in _FILES):
        return folder
    from py3langid.modelio import load_model

    ptc, pc, classes, nextmove, row, output = load_model(model_file)
    # py3langid's stdlib arrays ("I" transitions, "H" rows) read in place; checked equivalent, or ValueError.
    table = feature_table(
        np.frombuffer(nextmove, dtype=np.dtype(f"u{nextmove.itemsize}")),
        np.frombuffer(row, dtype=np.dtype(f"u{row.itemsize}")),
        np.asarray(output, dtype=np.int64),
    )
    del nextmove, row, output  # 40 MiB the table does not need, before the arrays are written
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=cache_dir))
    try:
        np.save(staging / "ptc.npy", np.ascontiguousarray(ptc))
        np.save(staging / "pc.npy", np.asarray(pc))
        np.save(staging / "feature_slots.npy", table.slots)
        np.save(staging / "feature_ids.npy", table.features)
        (staging / "classes.json").write_text(json.dumps(classes), encoding="utf-8")
        try:
            staging.rename(folder)  # atomic: readers see all the files or none
        except OSError:
            if not all((folder / name).exists() for name in _FILES):  # not another process's finished copy
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder
