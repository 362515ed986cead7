"""What the runtime package needs: the demo website and the benchmarks' tools stay out of it."""

import ast
import re
import tomllib
from pathlib import Path

import corpus_pipeline

PROJECT = Path(__file__).resolve().parents[1]
OUTSIDE_THE_RUNTIME = frozenset({"fpdf", "psutil", "corpus_pipeline_demo"})  # modules, not distributions


def _imported_top_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower() for requirement in requirements}


def test_no_module_of_the_package_imports_the_demo_or_benchmark_tools():
    package = Path(corpus_pipeline.__file__).parent
    for path in package.rglob("*.py"):
        assert not _imported_top_modules(path) & OUTSIDE_THE_RUNTIME, path


def test_the_demo_and_benchmark_dependencies_are_extras_not_requirements():
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]
    extras = {name: _requirement_names(requirements) for name, requirements in project["optional-dependencies"].items()}
    assert not _requirement_names(project["dependencies"]) & {"fpdf2", "psutil"}
    assert "fpdf2" in extras["demo"] and "fpdf2" in extras["test"]
    assert "psutil" in extras["bench"]
