"""The memory-mapped language identifier: py3langid's own answers, from files unpacked once."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from corpus_pipeline.extract.language_model import (
    TableLanguageIdentifier,
    first_occurrence_counts,
    mapped_language_identifier,
)

TEXTS = [
    "The quick brown fox jumps over the lazy dog while the farmer watches from the porch.",
    "Le renard brun saute par-dessus le chien paresseux pendant que le fermier regarde.",
    "Der schnelle braune Fuchs springt über den faulen Hund, während der Bauer zusieht.",
    "El rápido zorro marrón salta sobre el perro perezoso mientras el granjero mira.",
    "Быстрая коричневая лиса прыгает через ленивую собаку.",
    "敏捷的棕色狐狸跳过了懒狗。",
    "12345 !!! ...",
    "",
    "Ο γρήγορος καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.",
    "השועל החום המהיר קופץ מעל הכלב העצלן.",
    "الثعلب البني السريع يقفز فوق الكلب الكسول.",
    "तेज़ भूरी लोमड़ी आलसी कुत्ते के ऊपर कूदती है।",
    "素早い茶色の狐がのろまな犬を飛び越える。",
    "빠른 갈색 여우가 게으른 개를 뛰어넘는다.",
    "จิ้งจอกสีน้ำตาลกระโดดข้ามสุนัขขี้เกียจ",
    "Szybki brązowy lis przeskakuje nad leniwym psem, a rolnik patrzy z ganku.",
    "Hızlı kahverengi tilki tembel köpeğin üzerinden atlar.",
    "THE QUICK BROWN FOX IN CAPITALS, LOWER-CASED BY PY3LANGID",
    "x",
    "é",
    "\ud800 a lone surrogate",
    "Debian GNU/Linux: apt-get install nginx && systemctl restart nginx.service 🙂" * 300,
]


def many_texts() -> list[str | bytes]:
    """The texts above, their pieces cut anywhere (mid-word, mid-character in bytes), random mixtures of scripts
    and bytes that are not UTF-8."""
    rng = random.Random(20)
    texts: list[str | bytes] = list(TEXTS)
    whole = " ".join(TEXTS[:-1])
    for _ in range(300):
        start = rng.randrange(len(whole))
        texts.append(whole[start : start + rng.choice([1, 2, 5, 40, 400])])
        texts.append(whole.encode("utf-8", "surrogatepass")[start : start + rng.choice([1, 3, 7, 90])])
        texts.append(bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 2, 6, 64, 700]))))
        texts.append("".join(chr(rng.choice([rng.randrange(32, 0x250), rng.randrange(0x370, 0x700), rng.randrange(0x3040, 0x9FFF)])) for _ in range(rng.choice([1, 3, 30, 300]))))
    return texts


def test_mapped_identifier_answers_as_py3langid_does(tmp_path: Path) -> None:
    reference = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    mapped = mapped_language_identifier(tmp_path)
    assert isinstance(mapped, TableLanguageIdentifier)  # the feature table, not py3langid's automaton
    for text in many_texts():
        # Equal floats: every language's score, bit for bit, and the same answer.
        assert mapped.rank(text) == reference.rank(text), text
        assert mapped.classify(text) == reference.classify(text), text
    assert mapped.classify(TEXTS[1])[0] == "fr" and mapped.classify(TEXTS[9])[0] == "he"


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


def test_damaged_feature_table_falls_back_to_the_packaged_model(tmp_path: Path) -> None:
    mapped_language_identifier(tmp_path)
    (folder,) = list(tmp_path.iterdir())
    slots = np.load(folder / "feature_slots.npy")
    np.save(folder / "feature_slots.npy", np.roll(slots, 1))  # a readable array, every key out of its slots
    identifier = mapped_language_identifier(tmp_path)
    assert not isinstance(identifier, TableLanguageIdentifier)
    assert identifier.classify(TEXTS[3])[0] == "es"


def test_an_unloaded_model_is_mapped_again_when_next_needed() -> None:
    from corpus_pipeline.extract.metadata import detect_lang, unload_language_model

    french = "Les jardins partagés transforment les terrains vagues en parcelles cultivées par les voisins."
    before = detect_lang(french)
    unload_language_model()
    assert detect_lang(french) == before and before[0] == "fr"


def test_first_occurrence_counts_hold_what_a_counter_holds() -> None:
    rng = random.Random(7)
    for size in (1, 2, 3, 50, 2000):
        for spread in (1, 5, 300, 100_000):
            sequence = np.array([rng.randrange(spread) for _ in range(size)], dtype=np.int64)
            features, counts = first_occurrence_counts(sequence)
            counter = Counter(sequence.tolist())
            assert features.tolist() == list(counter) and counts.tolist() == list(counter.values())
