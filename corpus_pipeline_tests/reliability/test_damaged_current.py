"""A damaged current file is reported and treated as absent; its kept version is not damaged with it; versions
carry a checksum (issue 43, item 2). Unit-level, then one whole night through Dagster."""

from __future__ import annotations

import hashlib
import logging
import os

import dagster as dg
import polars as pl

from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.definitions import defs
from corpus_pipeline.history import main
from corpus_pipeline_demo.server import serve_site

WEBSITE = "site"


def record(url: str) -> dict:
    return {"website": WEBSITE, "url": url, "canonical_url": url, "content": "text", "h1": [], "h2": []}


def write(warehouse: Warehouse, name: str) -> None:
    warehouse.write_frame("corpus", WEBSITE, pl.DataFrame([record(f"http://site.test/{name}")]), RECORD_SCHEMA)


def damage_footer(path) -> None:
    """Overwrite the footer in place, as a bad disk or a stray writer would (the file keeps its inode)."""
    with open(path, "r+b") as handle:
        handle.seek(-40, os.SEEK_END)
        handle.write(b"\x00" * 32)


def test_versions_carry_a_checksum_and_the_current_file_shares_nothing_with_them(tmp_path):
    warehouse = Warehouse(tmp_path)
    write(warehouse, "monday")
    history = warehouse.history("corpus", WEBSITE)
    (version,) = history.versions()
    kept = history.path_of(version.id)
    assert version.checksum == hashlib.sha256(kept.read_bytes()).hexdigest()
    assert not os.path.samefile(kept, warehouse.path("corpus", WEBSITE))

    damage_footer(warehouse.path("corpus", WEBSITE))
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == version.checksum, "the kept version is untouched"


def test_a_damaged_current_file_is_logged_in_one_line_treated_as_absent_and_the_next_version_publishes(
    tmp_path, caplog
):
    warehouse = Warehouse(tmp_path)
    write(warehouse, "monday")
    damage_footer(warehouse.path("corpus", WEBSITE))
    history = warehouse.history("corpus", WEBSITE)
    current = history.current()
    assert current is not None

    with caplog.at_level(logging.WARNING):
        assert history.current_file() is None
    (message,) = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()]
    assert f"the current version {current.id} is damaged" in message and "treated as absent" in message
    assert "\n" not in message

    write(warehouse, "tuesday")  # the next night publishes over it
    assert warehouse.scan("corpus", WEBSITE).collect()["url"].to_list() == ["http://site.test/tuesday"]
    assert history.current_file() == warehouse.path("corpus", WEBSITE)


def test_rolling_back_after_the_current_file_was_damaged_restores_the_good_kept_version(tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    warehouse = Warehouse(tmp_path)
    write(warehouse, "monday")
    write(warehouse, "tuesday")
    damage_footer(warehouse.path("corpus", WEBSITE))
    assert main([WEBSITE, "--warehouse", str(tmp_path), "--roll-back", "corpus"]) == 0
    damage_footer(warehouse.path("corpus", WEBSITE))  # monday's current copy is damaged now, not monday's version
    history = warehouse.history("corpus", WEBSITE)
    tuesday = history.versions()[0]
    assert main([WEBSITE, "--warehouse", str(tmp_path), "--roll-back", "corpus", "--to", tuesday.id]) == 0
    assert warehouse.scan("corpus", WEBSITE).collect()["url"].to_list() == ["http://site.test/tuesday"]


def test_a_damaged_kept_version_is_refused_by_its_checksum_even_when_it_still_reads(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    warehouse = Warehouse(tmp_path)
    write(warehouse, "monday")
    write(warehouse, "tuesday")
    history = warehouse.history("corpus", WEBSITE)
    monday = history.versions()[-1]
    path = history.path_of(monday.id)
    data = path.read_bytes()
    path.write_bytes(data.replace(b"monday", b"friday"))  # still valid Parquet (no page CRC), other content
    assert main([WEBSITE, "--warehouse", str(tmp_path), "--roll-back", "corpus"]) == 1
    assert "its SHA-256 differs from the ledger's" in capsys.readouterr().err
    assert warehouse.scan("corpus", WEBSITE).collect()["url"].to_list() == ["http://site.test/tuesday"]


def test_a_night_through_dagster_publishes_over_a_damaged_current_corpus_and_logs_the_damage_in_one_line(
    nightly_demo_root, nightly_site_port, tmp_path, caplog
):
    warehouse_dir = tmp_path / "warehouse"
    warehouse = Warehouse(warehouse_dir)
    config = {
        "resources": {
            "crawler_config": {"config": {"min_delay_s": 0.0}},
            "warehouse": {"config": {"base_dir": str(warehouse_dir)}},
        }
    }
    job = defs.resolve_job_def("corpus_job")
    with dg.instance_for_test() as instance, serve_site(nightly_demo_root, port=nightly_site_port):
        assert job.execute_in_process(partition_key="nightly", instance=instance, run_config=config).success
        history = warehouse.history("corpus", "nightly")
        damaged = history.current()
        assert damaged is not None
        first_night = pl.read_parquet(history.path_of(damaged.id))
        damage_footer(warehouse.path("corpus", "nightly"))  # the footer of the file readers see, as in the issue

        with caplog.at_level(logging.WARNING):
            night = job.execute_in_process(
                partition_key="nightly", instance=instance, run_config=config, raise_on_error=False
            )
    assert night.success, "the night publishes"
    (message,) = [r.getMessage() for r in caplog.records if "damaged" in r.getMessage()]
    assert f"the current version {damaged.id} is damaged (" in message
    assert message.endswith("treated as absent") and "\n" not in message
    published = history.current()
    assert published is not None and published.id != damaged.id
    corpus = warehouse.scan("corpus", "nightly").collect()
    assert corpus.select("canonical_url", "content").sort("canonical_url").equals(
        first_night.select("canonical_url", "content").sort("canonical_url")
    )
    history.verify(damaged.id)  # the kept version the damaged file was a copy of is whole
