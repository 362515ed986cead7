"""The memory-mapped language identifier: py3langid's own answers, from files unpacked once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from corpus_pipeline.extract.language_model import mapped_language_identifier

TEXTS = [
    "The quick brown fox jumps over the lazy dog while the farmer watches from the porch.",
    "Le renard brun saute par-dessus le chien paresseux pendant que le fermier regarde.",
    "Der schnelle braune Fuchs springt über den faulen Hund, während der Bauer zusieht.",
    "El rápido zorro marrón salta sobre el perro perezoso mientras el granjero mira.",
    "Быстрая коричневая лиса прыгает через ленивую собаку.",
    "敏捷的棕色狐狸跳过了懒狗。",
    "12345 !!! ...",
    "",
]


def test_mapped_identifier_answers_as_py3langid_does(tmp_path: Path) -> None:
    reference = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    mapped = mapped_language_identifier(tmp_path)
    for text in TEXTS:
        assert mapped.classify(text) == reference.classify(text)
    assert mapped.rank(TEXTS[0]) == reference.rank(TEXTS[0])


def test_model_is_unpacked_once_and_mapped_read_only(tmp_path: Path) -> None:
    mapped_language_identifier(tmp_path)
    (folder,) = [path for path in tmp_path.iterdir() if not path.name.startswith(".")]
    written = {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}
    again = mapped_language_identifier(tmp_path)  # a second process finds the files and maps them
    assert {path.name: path.stat().st_mtime_ns for path in folder.iterdir()} == written
    assert isinstance(again.nb_ptc, np.memmap) and not again.nb_ptc.flags.writeable
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".")]  # no staging folder left


def test_unwritable_cache_falls_back_to_the_packaged_model(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    identifier = mapped_language_identifier(blocker)
    assert identifier.classify(TEXTS[1])[0] == "fr"
    assert not isinstance(identifier.nb_ptc, np.memmap)


def test_damaged_cache_file_falls_back_to_the_packaged_model(tmp_path: Path) -> None:
    mapped_language_identifier(tmp_path)
    (folder,) = list(tmp_path.iterdir())
    (folder / "ptc.npy").write_bytes(b"not an array")  # a disk that filled up, a file cut short by hand
    identifier = mapped_language_identifier(tmp_path)
    assert identifier.classify(TEXTS[2])[0] == "de"
    assert not isinstance(identifier.nb_ptc, np.memmap)


def test_an_unloaded_model_is_mapped_again_when_next_needed() -> None:
    from corpus_pipeline.extract.metadata import detect_lang, unload_language_model

    french = "Les jardins partagés transforment les terrains vagues en parcelles cultivées par les voisins."
    before = detect_lang(french)
    unload_language_model()
    assert detect_lang(french) == before and before[0] == "fr"
