"""The source fingerprint follows a module's imports inside its package and nothing else, and is the same for the
same files wherever they are."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus_pipeline.assets import code_versions
from corpus_pipeline.assets.source_fingerprint import DIGITS, UnknownModuleError, source_fingerprint

ALL_VERSIONS = (code_versions.raw_pages_version, code_versions.parsed_pages_version,
                code_versions.pdf_documents_version, code_versions.canonical_url_groups_version,
                code_versions.corpus_version, code_versions.corpus_quality_version,
                code_versions.global_corpus_version, code_versions.training_export_version)


def write_package(root: Path) -> Path:
    """``pkg``: ``top`` imports ``middle`` (at module level) and, inside a function, ``pkg.sub.deep``; ``unrelated``
    is imported by nobody; ``sub`` holds a data file."""
    package = root / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "top.py").write_text("from pkg.middle import helper\n\ndef run():\n    import pkg.sub.deep as d\n")
    (package / "middle.py").write_text("from pkg import (\n    sub,  # the sub-package\n)\nhelper = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "deep.py").write_text("VALUE = 1\n")
    (package / "sub" / "model.json").write_text("{}")
    (package / "unrelated.py").write_text("OTHER = 1\n")
    return package


def fingerprint(package: Path, *roots: str) -> str:
    return source_fingerprint(roots or ("pkg.top",), package_dir=package, package="pkg")


@pytest.mark.parametrize("changed", ["top.py", "middle.py", "sub/deep.py", "sub/__init__.py", "__init__.py"])
def test_a_change_to_a_module_the_root_imports_directly_or_not_changes_the_fingerprint(tmp_path, changed):
    package = write_package(tmp_path)
    before = fingerprint(package)

    with (package / changed).open("a") as source:
        source.write("# changed logic\n")

    assert fingerprint(package) != before


def test_a_module_the_root_does_not_import_and_data_outside_a_root_package_do_not_count(tmp_path):
    package = write_package(tmp_path)
    before = fingerprint(package)

    (package / "unrelated.py").write_text("OTHER = 2\n")
    (package / "sub" / "model.json").write_text('{"weights": [1]}')

    assert fingerprint(package) == before


def test_a_root_package_covers_its_data_files(tmp_path):
    package = write_package(tmp_path)
    before = fingerprint(package, "pkg.sub")

    (package / "sub" / "model.json").write_text('{"weights": [1]}')

    assert fingerprint(package, "pkg.sub") != before


def test_the_same_files_elsewhere_with_other_line_endings_give_the_same_fingerprint(tmp_path):
    here = write_package(tmp_path / "machine_a")
    there = tmp_path / "machine_b" / "checkout" / "pkg"
    shutil.copytree(here, there)
    for path in there.rglob("*.py"):
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))

    assert fingerprint(there) == fingerprint(here)


def test_a_root_that_names_no_module_of_the_package_is_an_error(tmp_path):
    package = write_package(tmp_path)

    with pytest.raises(UnknownModuleError, match="pkg.missing"):
        fingerprint(package, "pkg.missing")


def test_a_module_hashed_alone_counts_without_the_modules_it_imports(tmp_path):
    package = write_package(tmp_path)
    before = source_fingerprint((), alone=("pkg.top",), package_dir=package, package="pkg")

    (package / "middle.py").write_text("helper = 2\n")
    unchanged = source_fingerprint((), alone=("pkg.top",), package_dir=package, package="pkg")
    (package / "top.py").write_text("from pkg.middle import helper\n")

    assert unchanged == before
    assert source_fingerprint((), alone=("pkg.top",), package_dir=package, package="pkg") != before


@pytest.mark.parametrize("asset_version", ALL_VERSIONS, ids=lambda asset_version: asset_version.__name__)
def test_each_asset_s_sources_name_modules_of_the_package(asset_version):
    assert len(asset_version().rsplit(".", 1)[1]) == DIGITS  # the source part: no UnknownModuleError


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_any_text_added_to_an_imported_module_changes_the_fingerprint(text):
    with tempfile.TemporaryDirectory() as folder:
        package = write_package(Path(folder))
        (package / "middle.py").write_text("helper = 1\n", encoding="utf-8")
        before = fingerprint(package)

        (package / "middle.py").write_text(f"helper = 1\n{text}", encoding="utf-8")

        assert (fingerprint(package) != before) == bool(text)


def test_files_that_differ_between_checkouts_do_not_count(tmp_path):
    package = write_package(tmp_path)
    before = fingerprint(package, "pkg.sub")

    (package / "sub" / "deep.py~").write_text("an editor's backup")
    (package / "sub" / "__pycache__").mkdir()
    (package / "sub" / "__pycache__" / "deep.cpython-311.pyc").write_bytes(b"\x00compiled")

    assert fingerprint(package, "pkg.sub") == before
