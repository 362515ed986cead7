import polars as pl

from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.history import main


def record(url: str) -> dict:
    return {"website": "site", "url": url, "canonical_url": url, "content": "text", "h1": [], "h2": []}


def test_the_command_lists_versions_and_rolls_one_back(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    warehouse = Warehouse(tmp_path)
    for name in ("monday", "tuesday"):
        warehouse.write_frame("corpus", "site", pl.DataFrame([record(f"http://site.test/{name}")]), RECORD_SCHEMA)
    monday, tuesday = sorted(v.id for v in warehouse.history("corpus", "site").versions())

    assert main(["site", "--warehouse", str(tmp_path)]) == 0
    listing = capsys.readouterr().out
    assert f"* {tuesday}" in listing and f"  {monday}" in listing

    assert main(["site", "--warehouse", str(tmp_path), "--roll-back", "corpus"]) == 0
    assert f"corpus: version {monday} is current again" in capsys.readouterr().out
    assert warehouse.scan("corpus", "site").collect()["url"].to_list() == ["http://site.test/monday"]


def test_rolling_back_without_an_earlier_version_fails_and_says_why(tmp_path, capsys):
    Warehouse(tmp_path).write_frame("corpus", "site", pl.DataFrame([record("http://site.test/only")]), RECORD_SCHEMA)
    assert main(["site", "--warehouse", str(tmp_path), "--roll-back", "corpus"]) == 1
    assert "corpus: not rolled back: no earlier published version" in capsys.readouterr().err
