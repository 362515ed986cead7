import os
import subprocess
import sys
from datetime import UTC, datetime

import dagster as dg

from corpus_pipeline.assets import code_versions
from corpus_pipeline.core.registry import REGISTRY_ENV_VAR
from corpus_pipeline.definitions import defs


def test_definitions_load():
    dg.Definitions.validate_loadable(defs)


def test_every_job_resolves_with_the_five_assets():
    assert defs.resolve_job_def("corpus_job").asset_layer.executable_asset_keys == {
        dg.AssetKey(name)
        for name in ("raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus")
    }
    assert dg.AssetKey("raw_pages") not in defs.resolve_job_def("reprocess_job").asset_layer.executable_asset_keys


def test_every_asset_is_documented_grouped_and_typed():
    for spec in defs.resolve_all_asset_specs():
        assert spec.description, spec.key
        assert spec.group_name in {"crawl", "extract", "dedup", "training_set"}, spec.key
        assert "parquet" in spec.kinds, spec.key
        # The training set gathers every website: global_corpus and training_export have no partitions.
        assert spec.partitions_def is not None or spec.group_name == "training_set", spec.key


def test_every_asset_has_a_code_version_from_its_settings_owners_and_a_network_tag():
    versions = {
        "raw_pages": code_versions.raw_pages_version(),
        "parsed_pages": code_versions.parsed_pages_version(),
        "pdf_documents": code_versions.pdf_documents_version(),
        "canonical_url_groups": code_versions.canonical_url_groups_version(),
        "corpus": code_versions.corpus_version(),
        "corpus_quality": code_versions.corpus_quality_version(),
        "global_corpus": code_versions.global_corpus_version(),
        "training_export": code_versions.training_export_version(),
    }
    for spec in defs.resolve_all_asset_specs():
        assert spec.code_version == versions[spec.key.to_user_string()], spec.key
        assert spec.owners, spec.key
        assert spec.tags["network"] == ("crawls" if spec.key == dg.AssetKey("raw_pages") else "offline"), spec.key
        assert spec.metadata["group_description"], spec.key


def test_the_offline_tag_selects_what_reprocess_job_rebuilds_and_the_training_set():
    graph = defs.resolve_asset_graph()
    offline = dg.AssetSelection.tag("network", "offline").resolve(graph)
    training_set = dg.AssetSelection.groups("training_set").resolve(graph)
    assert offline - training_set == defs.resolve_job_def("reprocess_job").asset_layer.executable_asset_keys


def test_the_nightly_schedule_requests_one_run_per_website():
    schedule = defs.resolve_schedule_def("nightly_recrawl_schedule")
    context = dg.build_schedule_context(
        scheduled_execution_time=datetime(2026, 11, 23, 2, tzinfo=UTC), repository_def=defs.get_repository_def()
    )
    requests = schedule.evaluate_tick(context).run_requests
    assert sorted(request.partition_key for request in requests) == [
        "blog", "demo", "nightly", "unreachable", "wordpress-crawl", "wordpress-sitemap"
    ]
    assert schedule.cron_schedule == "0 2 * * *"


def test_a_bad_registry_fails_at_load_naming_entry_and_field(tmp_path):
    bad = tmp_path / "websites.yaml"
    bad.write_text("websites:\n  - name: shop\n    url: http://127.0.0.1:1/\n    max_recurse_level: deep\n")
    result = subprocess.run(
        [sys.executable, "-c", "import corpus_pipeline.definitions"],
        env={**os.environ, REGISTRY_ENV_VAR: str(bad)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "websites[0] (shop): field 'max_recurse_level'" in result.stderr


def test_the_ui_shows_every_asset_s_columns_before_its_first_run():
    for spec in defs.resolve_all_asset_specs():
        columns = spec.metadata["dagster/column_schema"].columns
        assert columns and all(column.description for column in columns), spec.key


def test_loading_the_code_location_imports_no_pdf_or_dedup_library():
    # The run's process holds what the code location imports while its parsing workers run (issue 20's memory):
    # the PDF, OCR and near-duplicate libraries are imported by the steps that use them.
    code = "import sys, corpus_pipeline.definitions; print([m for m in ('pypdf', 'pytesseract', 'datasketch') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

