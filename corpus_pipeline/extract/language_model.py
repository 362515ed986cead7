"""py3langid's language identifier, loaded from memory-mapped arrays instead of copied into each process.

py3langid ships its model as one LZMA-compressed npz (4.5 MB) that every process decompresses into its own memory:
a 100k x 142 float16 table, a 9.8M-entry transition table and two Python lists, 73 MiB per parsing worker. Unpacked
once into plain ``.npy`` files and mapped read-only, the same arrays are pages of a file: a process holds only those
its texts touch, the workers share them through the page cache, and the kernel can drop them under pressure.
Classification reads the very same numbers, so its results are identical.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

CACHE_DIR_ENV_VAR = "CORPUS_PIPELINE_CACHE"
_FORMAT = 1  # bump when the unpacked layout below changes
_FILES = ("ptc.npy", "pc.npy", "nextmove.npy", "row.npy", "output.npy", "classes.json")


def default_cache_dir() -> Path:
    """``$CORPUS_PIPELINE_CACHE``, else ``$XDG_CACHE_HOME/corpus_pipeline``, else ``~/.cache/corpus_pipeline``."""
    configured = os.environ.get(CACHE_DIR_ENV_VAR)
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "corpus_pipeline"


def mapped_language_identifier(cache_dir: Path | None = None) -> Any:
    """py3langid's ``LanguageIdentifier`` (probabilities normalized), its arrays mapped from unpacked files.

    The files are written on first use, under a name that follows the installed model file's contents, so another
    py3langid release unpacks its own. When the cache cannot be written or read, the model is loaded the usual way.
    """
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    model_file = Path(MODEL_DIR) / MODEL_FILE
    try:
        folder = _unpacked(model_file, cache_dir or default_cache_dir())
        classes = json.loads((folder / "classes.json").read_text(encoding="utf-8"))
        return LanguageIdentifier(
            np.load(folder / "ptc.npy", mmap_mode="r"),
            np.load(folder / "pc.npy"),
            classes,
            # Indexed one byte of text at a time from Python: a memoryview gives plain ints, as py3langid's arrays do.
            _mapped_view(folder / "nextmove.npy"),
            _mapped_view(folder / "output.npy"),
            norm_probs=True,
            tk_row=_mapped_view(folder / "row.npy"),
        )
    except (OSError, ValueError):  # a cache that cannot be written, or a damaged file in it: every page needs a model
        return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def _mapped_view(path: Path) -> memoryview:
    return memoryview(np.load(path, mmap_mode="r"))


def _unpacked(model_file: Path, cache_dir: Path) -> Path:
    """The folder of unpacked arrays for ``model_file``, written (atomically) when missing."""
    digest = hashlib.sha256(model_file.read_bytes()).hexdigest()[:16]
    folder = cache_dir / f"py3langid-{digest}-v{_FORMAT}"
    if all((folder / name).exists() for name in _FILES):
        return folder
    from py3langid.modelio import load_model

    ptc, pc, classes, nextmove, row, output = load_model(model_file)
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=cache_dir))
    try:
        np.save(staging / "ptc.npy", np.ascontiguousarray(ptc))
        np.save(staging / "pc.npy", np.asarray(pc))
        # py3langid's stdlib arrays keep their item size ("I" transitions, "H" rows): the same dtypes here.
        np.save(staging / "nextmove.npy", np.frombuffer(nextmove, dtype=np.dtype(f"u{nextmove.itemsize}")))
        np.save(staging / "row.npy", np.frombuffer(row, dtype=np.dtype(f"u{row.itemsize}")))
        np.save(staging / "output.npy", np.asarray(output, dtype=np.int32))
        (staging / "classes.json").write_text(json.dumps(classes), encoding="utf-8")
        try:
            staging.rename(folder)  # atomic: readers see all the files or none
        except OSError:
            if not all((folder / name).exists() for name in _FILES):  # not another process's finished copy
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return folder
