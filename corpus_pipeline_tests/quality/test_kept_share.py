from pathlib import Path

import polars as pl

from corpus_pipeline.quality.kept_share import kept_share_vs_current


def write(path: Path, keep: list[bool]) -> Path:
    pl.DataFrame({"keep": keep}, schema={"keep": pl.Boolean}).write_parquet(path)
    return path


def test_a_first_version_passes(tmp_path):
    assert kept_share_vs_current(write(tmp_path / "new.parquet", [False, True]), None).passed


def test_a_sharp_fall_of_the_kept_share_fails_with_its_cause(tmp_path):
    current = write(tmp_path / "current.parquet", [True] * 8 + [False] * 2)
    candidate = write(tmp_path / "new.parquet", [True] * 3 + [False] * 7)
    outcome = kept_share_vs_current(candidate, current, max_drop=0.5)
    assert not outcome.passed
    assert outcome.cause == "30% of records kept, down 62% from 80% in the current version (max_kept_share_drop 50%)"


def test_a_small_fall_passes(tmp_path):
    current = write(tmp_path / "current.parquet", [True] * 8 + [False] * 2)
    candidate = write(tmp_path / "new.parquet", [True] * 6 + [False] * 4)
    assert kept_share_vs_current(candidate, current, max_drop=0.5).passed
