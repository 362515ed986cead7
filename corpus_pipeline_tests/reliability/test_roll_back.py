"""``--roll-back`` restores versions of one run, all of them or none, and only files that read as recorded
(issue 43, item 5)."""

from __future__ import annotations

import polars as pl
import pytest

from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.history import ASSETS, main

WEBSITE = "site"


def record(url: str) -> dict:
    return {"website": WEBSITE, "url": url, "canonical_url": url, "content": "text", "h1": [], "h2": []}


def night(warehouse: Warehouse, run: str, assets=ASSETS) -> None:
    """One night's run publishing a version of each asset, its rows naming the run."""
    for asset in assets:
        with warehouse.history(asset, WEBSITE).lock() as history:
            with history.new_version(RECORD_SCHEMA, run_id=run) as writer:
                writer.write_frame(pl.DataFrame([record(f"http://site.test/{run}/{asset}")]))
            history.publish(writer.version_id)


def runs_of_current(warehouse: Warehouse) -> dict[str, str]:
    """The run each asset's readers see now, read from the current file itself."""
    return {asset: warehouse.scan(asset, WEBSITE).collect()["url"][0].split("/")[3] for asset in ASSETS}


def cli(warehouse: Warehouse, *args: str) -> int:
    return main([WEBSITE, "--warehouse", str(warehouse.root), "--roll-back", *args])


@pytest.fixture(autouse=True)
def _no_dagster_home(monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)


def test_all_after_a_single_roll_back_puts_every_asset_on_one_run(tmp_path, capsys):
    warehouse = Warehouse(tmp_path)
    for run in ("monday", "tuesday", "wednesday"):
        night(warehouse, run)
    assert cli(warehouse, "corpus") == 0
    assert runs_of_current(warehouse)["corpus"] == "tuesday"

    assert cli(warehouse, "all") == 0, capsys.readouterr().err
    assert set(runs_of_current(warehouse).values()) == {"tuesday"}
    assert cli(warehouse, "all") == 0, capsys.readouterr().err
    assert set(runs_of_current(warehouse).values()) == {"monday"}


def test_all_changes_nothing_when_one_asset_has_no_version_of_an_earlier_run(tmp_path, capsys):
    warehouse = Warehouse(tmp_path)
    night(warehouse, "monday", assets=[a for a in ASSETS if a != "pdf_documents"])
    night(warehouse, "tuesday")
    before = runs_of_current(warehouse)

    assert cli(warehouse, "all") == 1
    assert "all: not rolled back: no earlier run has a kept published version of every asset" in capsys.readouterr().err
    assert runs_of_current(warehouse) == before == dict.fromkeys(ASSETS, "tuesday")


def test_all_restores_the_last_run_that_published_every_asset(tmp_path):
    warehouse = Warehouse(tmp_path)
    night(warehouse, "monday")
    night(warehouse, "tuesday", assets=ASSETS[:-1])  # corpus refused (or never written) that night
    night(warehouse, "wednesday")
    assert cli(warehouse, "all") == 0
    assert set(runs_of_current(warehouse).values()) == {"monday"}


@pytest.mark.parametrize("target", ["corpus", "all"])
def test_a_damaged_version_is_not_restored_and_nothing_changes(tmp_path, capsys, target):
    warehouse = Warehouse(tmp_path)
    for run in ("monday", "tuesday"):
        night(warehouse, run)
    history = warehouse.history("corpus", WEBSITE)
    monday = history.versions()[-1]
    path = history.path_of(monday.id)
    data = bytearray(path.read_bytes())
    data[-12:-8] = b"\xff\xff\xff\x7f"  # the footer's length: the file no longer reads as Parquet
    path.write_bytes(bytes(data))

    assert cli(warehouse, target) == 1
    error = capsys.readouterr().err
    assert f"not rolled back: version {monday.id} of " in error and " is damaged: " in error
    assert len(error.strip().splitlines()) == 1
    assert set(runs_of_current(warehouse).values()) == {"tuesday"}


def test_all_finds_a_run_that_kept_the_current_versions_instead_of_writing_them(tmp_path):
    warehouse = Warehouse(tmp_path)
    night(warehouse, "monday")
    # Nights that found the website unchanged: a new crawl, every later asset's version kept for the run.
    for run in ("tuesday", "wednesday", "thursday"):
        night(warehouse, run, assets=["raw_pages"])
        for asset in ASSETS[1:]:
            with warehouse.history(asset, WEBSITE).lock() as history:
                current = history.current()
                assert current is not None
                history.keep_for_run(current.id, run)
    # monday's crawl is no longer kept (three versions a partition): monday is no run to go back to.
    assert cli(warehouse, "all") == 0
    assert runs_of_current(warehouse) == {"raw_pages": "wednesday"} | dict.fromkeys(ASSETS[1:], "monday")
