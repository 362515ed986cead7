import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

from corpus_pipeline.assets import code_versions
from corpus_pipeline.crawl.settings import CrawlSettings
from corpus_pipeline.extract.page import ExtractionBudget
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS
from corpus_pipeline.pdf.settings import PdfSettings


def _changed(value):
    """Another value of the same kind."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value * 2 + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):
        return (*value, "x")
    if isinstance(value, frozenset):
        return value | {"x"}
    if value is None:
        return 1
    raise AssertionError(f"no changed value for {value!r}")


def _each_field_changed(settings, leave_out=frozenset()):
    for field in dataclasses.fields(settings):
        if field.name not in leave_out:
            yield field.name, dataclasses.replace(settings, **{field.name: _changed(getattr(settings, field.name))})


def test_every_extraction_setting_and_the_page_budget_change_the_version_of_parsed_pages():
    default = code_versions.parsed_pages_version()
    for name, changed in _each_field_changed(DEFAULT_SETTINGS):
        assert code_versions.parsed_pages_version(extraction=changed) != default, name
    for name, changed in _each_field_changed(ExtractionBudget()):
        assert code_versions.parsed_pages_version(budget=changed) != default, name


def test_crawl_settings_change_the_version_of_raw_pages_but_its_pace_does_not():
    default = code_versions.raw_pages_version()
    for name, changed in _each_field_changed(CrawlSettings()):
        assert (code_versions.raw_pages_version(changed) == default) == (name in code_versions.CRAWL_PACE_ONLY), name


def test_pdf_settings_change_the_version_of_pdf_documents_but_the_worker_count_does_not():
    default = code_versions.pdf_documents_version()
    for name, changed in _each_field_changed(PdfSettings()):
        assert (code_versions.pdf_documents_version(changed) == default) == (name in code_versions.PDF_NOT_OUTPUT), name


def test_dedup_defaults_change_the_versions_of_the_dedup_assets():
    assert code_versions.corpus_version(0.95) != code_versions.corpus_version()
    assert code_versions.canonical_url_groups_version(keep_query_keys=("lang",)) != (
        code_versions.canonical_url_groups_version()
    )
    assert code_versions.canonical_url_groups_version(urls_to_ignore=("/tag/",)) != (
        code_versions.canonical_url_groups_version()
    )


def test_a_version_names_the_package_version_and_is_the_same_for_equal_settings():
    version = code_versions.corpus_version(0.9)
    assert version.startswith(code_versions.package_version() + "+")
    assert version == code_versions.corpus_version(0.9)


def test_versions_do_not_depend_on_the_process_s_hash_seed():
    # Sets iterate in a per-process order; a version that followed it would mark every partition stale at random.
    program = (
        "from corpus_pipeline.assets import code_versions as c;"
        "print(c.code_version({'keys': frozenset('abcdefgh'), 'names': {'x', 'y', 'z'}}))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", program],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for hash_seed in ("1", "2")
    }
    assert len(outputs) == 1


READ_VERSIONS = (
    "from corpus_pipeline.assets import code_versions as c;"
    "print(c.raw_pages_version(), c.parsed_pages_version(), c.corpus_version())"
)


def _versions_of_the_code_in(root):
    """raw_pages, parsed_pages and corpus versions computed by the package copied into ``root``."""
    result = subprocess.run([sys.executable, "-c", READ_VERSIONS], env={**os.environ, "PYTHONPATH": str(root)},
                            cwd=root, capture_output=True, text=True, check=True)
    return result.stdout.split()


def test_a_logic_change_in_the_crawler_changes_raw_pages_version_only(tmp_path):
    package = Path(code_versions.__file__).resolve().parents[1]
    copy = tmp_path / "checkout"
    shutil.copytree(package, copy / package.name, ignore=shutil.ignore_patterns("__pycache__"))
    before = _versions_of_the_code_in(copy)

    with (copy / package.name / "crawl" / "links.py").open("a") as source:
        source.write("\n# a changed rule would be here\n")
    after = _versions_of_the_code_in(copy)

    assert after[0] != before[0]
    assert after[1:] == before[1:]
    assert before == _versions_of_the_code_in(package.parent)  # the copy's location does not count
