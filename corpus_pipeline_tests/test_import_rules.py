"""The package's import rules, read from its sources: only public names of other libraries (in its tests and the
benchmarks too); each folder imports what its ``__init__`` docstring's "May import:" line says (Dagster included); no
import cycle between modules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "corpus_pipeline"
FOLDERS = sorted(path.parent.name for path in PACKAGE.glob("*/__init__.py"))
MODULES = {path: ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
           for path in sorted(PACKAGE.rglob("*.py"))}
# The private-name rule holds for the tests and the benchmarks too: they run against the same ranges of versions.
SCANNED = sorted([*MODULES, *(PACKAGE.parent / "corpus_pipeline_tests").rglob("*.py"),
                  *(PACKAGE.parent / "benchmarks").rglob("*.py")])
FIRST_PARTY = ("corpus_pipeline.", "corpus_pipeline_tests.", "benchmarks.")
# Documented names that keep a leading underscore: lxml's API reference gives its element class as lxml.etree._Element,
# with no other name for the type of a parsed element; Python's documents os._exit (a child process's exit).
PUBLIC_DESPITE_UNDERSCORE = {"lxml.etree._Element", "os._exit"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _imports(tree: ast.Module) -> list[str]:
    """Every module or name imported anywhere in ``tree`` (inside functions and ``TYPE_CHECKING`` blocks too), dotted:
    ``import a.b`` gives ``a.b``, ``from a.b import c`` gives ``a.b.c``; relative imports are not used here."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _private_names(source: str) -> list[str]:
    """Names of other libraries that ``source`` imports, or reads as an attribute of an import, whose path has a
    private (leading underscore) part, e.g. ``dagster._core.x``, ``from htmldate.extractors import _fold``,
    ``etree._Element``."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # the name an import binds -> what it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound.update({alias.asname or alias.name.split(".")[0]: alias.name if alias.asname else alias.name.split(".")[0]
                          for alias in node.names})
        elif isinstance(node, ast.ImportFrom) and node.module:
            bound.update({alias.asname or alias.name: f"{node.module}.{alias.name}" for alias in node.names})
    chains = [_dotted(node) for node in ast.walk(tree) if isinstance(node, ast.Attribute)]
    used = _imports(tree) + [f"{bound[root]}.{rest}" for root, _, rest in (chain.partition(".") for chain in chains)
                             if root in bound]
    return sorted({name for name in used if not name.startswith(FIRST_PARTY) and name not in PUBLIC_DESPITE_UNDERSCORE
                   and any(_private(part) for part in name.split("."))})


@pytest.mark.parametrize("path", SCANNED, ids=lambda path: path.relative_to(PACKAGE.parent).as_posix())
def test_no_private_name_of_another_library_is_used(path: Path):
    assert _private_names(path.read_text(encoding="utf-8")) == []


def test_the_scan_finds_private_names_however_they_are_reached():
    assert _private_names("from dagster._core.storage.runs import RunStorage") == ["dagster._core.storage.runs.RunStorage"]
    assert _private_names("from htmldate.extractors import _fold_month_name") == ["htmldate.extractors._fold_month_name"]
    assert _private_names("import multiprocessing.util\nmultiprocessing.util._exit_function()") == [
        "multiprocessing.util._exit_function"]
    assert _private_names("from trafilatura import core\ncore._prepare_tree(x)") == ["trafilatura.core._prepare_tree"]
    assert _private_names("from __future__ import annotations\nfrom lxml import etree\netree._Element\nself._x") == []


def _dotted(node: ast.expr) -> str:
    """``a.b.c`` for an attribute chain on a name, else a name no import binds."""
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else "(expression)"


def _rules(folder: str) -> tuple[set[str], bool, bool]:
    """(the folders it may import, whether the top-level modules too, whether Dagster), from the "May import:" line
    of the folder's docstring."""
    docstring = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text(encoding="utf-8"))) or ""
    line = next((line for line in docstring.splitlines() if line.startswith("May import:")), None)
    assert line is not None, f"corpus_pipeline/{folder}/__init__.py: its docstring has no 'May import:' line"
    allowed = {other for other in FOLDERS if re.search(rf"\b{other}\b", line)}
    return allowed, "top-level modules" in line, "Dagster" in line and "not Dagster" not in line


def _first_party_folder(name: str) -> str | None:
    """The folder of a ``corpus_pipeline`` import (``"top"`` for a top-level module), None for another library."""
    parts = name.split(".")
    if parts[0] != "corpus_pipeline":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in FOLDERS else "top"


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_folder_imports_what_its_docstring_allows(folder: str):
    allowed, top_level, dagster = _rules(folder)
    broken = []
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        for name in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            other = _first_party_folder(name)
            if other == "top" and not top_level or other not in (None, "top", folder, *allowed):
                broken.append(f"{path.name}: {name}")
            if name.split(".")[0] == "dagster" or name.startswith("dagster_"):
                broken.extend([] if dagster else [f"{path.name}: {name} (Dagster)"])
    assert broken == []


def test_the_layers_keep_dagster_and_the_assets_above_the_core():
    for folder in ("core", "crawl", "extract", "pdf", "dedup"):
        assert not _rules(folder)[2], f"{folder} may not import Dagster"
    assert not any("assets" in _rules(folder)[0] for folder in FOLDERS)


def test_no_module_imports_itself_through_others():
    modules = set(MODULES.values())
    # ``from a.b import c`` imports module a.b, or module a.b.c: whichever is a module of the package.
    graph = {MODULES[path]: {candidate for name in _imports(ast.parse(path.read_text(encoding="utf-8")))
                             for candidate in (name, name.rpartition(".")[0]) if candidate in modules}
             for path in MODULES}
    graph = {module: {other for other in imported if other != module} for module, imported in graph.items()}
    assert _cycles(graph) == []
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]  # the check itself finds one


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm), each a cycle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = [stack.pop()]
            while group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for module in graph:
        if module not in index:
            visit(module)
    return groups
