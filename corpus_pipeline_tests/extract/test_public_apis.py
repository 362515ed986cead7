"""extract/ uses only the public APIs of its dependencies: a release of trafilatura or htmldate within the declared
range must not break it, nor a fix upstream need re-porting."""

import ast
import importlib
import sys
from pathlib import Path

import pytest

import corpus_pipeline.extract

EXTRACT = Path(corpus_pipeline.extract.__file__).parent
# The libraries whose documented API is their package's ``__all__``: no submodule, no other name.
WHOLE_API_IN_ALL = ("trafilatura", "htmldate")


def _imports(tree: ast.Module) -> list[tuple[str, str | None]]:
    """(module, name) of each import in ``tree``: the name is None for ``import module``."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.extend((node.module, alias.name) for alias in node.names)
    return found


def _attributes(tree: ast.Module, package: str) -> list[str]:
    """The names read as ``package.name`` in ``tree``."""
    return [
        node.attr for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == package
    ]


def _violations(source: str) -> list[str]:
    tree = ast.parse(source)
    found = []
    for module, name in _imports(tree):
        root = module.split(".")[0]
        if root == "corpus_pipeline" or root in sys.stdlib_module_names:
            continue
        # lxml's _Element is its documented element type (the one its type stubs name)
        private_name = name is not None and name.startswith("_") and name != "_Element"
        if private_name or any(part.startswith("_") for part in module.split(".")):
            found.append(f"{module}.{name}")
        if root in WHOLE_API_IN_ALL:
            public = importlib.import_module(root).__all__
            if module != root or (name is not None and name not in public):
                found.append(f"{module}.{name}")
            found.extend(f"{root}.{attr}" for attr in _attributes(tree, root) if attr not in public)
    return found


@pytest.mark.parametrize("path", sorted(EXTRACT.rglob("*.py")), ids=lambda path: path.name)
def test_no_private_name_of_a_dependency_is_used(path):
    assert _violations(path.read_text()) == []


def test_the_scan_finds_private_and_internal_names():
    assert _violations("from trafilatura.main_extractor import handle_textelem") == [
        "trafilatura.main_extractor.handle_textelem"
    ]
    assert _violations("import trafilatura\ntrafilatura.core.baseline(x)") == ["trafilatura.core"]
    assert _violations("from htmldate.extractors import _fold_month_name") == [
        "htmldate.extractors._fold_month_name", "htmldate.extractors._fold_month_name"
    ]
    assert _violations("from dagster._core.storage import x") == ["dagster._core.storage.x"]
    assert _violations("from trafilatura import extract, html2txt\nfrom htmldate import find_date") == []
