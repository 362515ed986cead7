"""A fingerprint of the source code that computes an asset, so that a change of logic changes its code version.

Imports are found by reading ``import`` lines, not by importing; the fingerprint depends on nothing but the files'
bytes and paths inside the package, so every machine with the same code gets the same one.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

PACKAGE_NAME = "corpus_pipeline"
PACKAGE_DIR = Path(__file__).resolve().parents[1]
DIGITS = 12
# Files of a root package that count: its Python modules and the package data pyproject.toml ships (models/*.json).
# Anything else there (editor backups, caches) differs between machines and says nothing about the code.
COUNTED_SUFFIXES = frozenset({".py", ".json"})
# `import a.b`, `from a.b import c, d` and `from a.b import (c, d)`, at any indentation (imports inside functions
# count too); the names after `import` may be submodules.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<source>[\w.]+)[ \t]+import[ \t]+(?P<names>\([^)]*\)|[^\n#]*)"
    r"|import[ \t]+(?P<modules>[^\n#]+))",
    re.MULTILINE,
)


class UnknownModuleError(ValueError):
    """A root names no module of the package."""


def source_fingerprint(roots: Iterable[str], alone: Iterable[str] = (), package_dir: Path = PACKAGE_DIR,
                       package: str = PACKAGE_NAME) -> str:
    """``DIGITS`` hex digits over the files of ``roots`` (module or package names of ``package``) and of the package's
    modules they import, transitively, and the files of ``alone`` (whose imports are not followed: an asset's module
    imports Dagster plumbing). A root package covers every Python and JSON file under it; an imported package, its
    ``__init__.py``. Line endings are normalized."""
    files = _closure([_root_files(name, package_dir, package) for name in roots], package_dir, package)
    files |= set().union(*(_root_files(name, package_dir, package) for name in alone))
    digest = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(package_dir).as_posix()):
        digest.update(path.relative_to(package_dir).as_posix().encode() + b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:DIGITS]


def _root_files(name: str, package_dir: Path, package: str) -> set[Path]:
    path = _module_path(name, package_dir, package)
    if path is None:
        raise UnknownModuleError(f"{name!r} is no module of {package} ({package_dir})")
    if path.name == "__init__.py":
        return {p for p in path.parent.rglob("*") if p.suffix in COUNTED_SUFFIXES and p.is_file()}
    return {path}


def _closure(roots: list[set[Path]], package_dir: Path, package: str) -> set[Path]:
    """The root files, the package modules their Python files import, and the ``__init__.py`` of every package
    holding one of them (it runs on import)."""
    seen: set[Path] = set().union(*roots)
    pending = [path for path in seen if path.suffix == ".py"]
    while pending:
        for name in _imported_modules(pending.pop().read_text(encoding="utf-8")):
            path = _module_path(name, package_dir, package)
            if path is not None and path not in seen:
                seen.add(path)
                pending.append(path)
    inits = {parent / "__init__.py" for path in seen for parent in path.parents if parent.is_relative_to(package_dir)}
    return seen | {init for init in inits if init.is_file()}


def _imported_modules(source: str) -> set[str]:
    """Names an ``import`` line of ``source`` may load: each module, and ``module.name`` for ``from`` imports."""
    found: set[str] = set()
    for match in _IMPORT.finditer(source):
        if match["modules"]:
            found.update(part.split()[0] for part in match["modules"].split(",") if part.strip())
            continue
        found.add(match["source"])
        names = match["names"].strip("() \t\n").replace("\n", " ")
        found.update(f"{match['source']}.{part.split()[0]}" for part in names.split(",") if part.strip())
    return found


def _module_path(name: str, package_dir: Path, package: str) -> Path | None:
    """The file of module ``name`` inside ``package_dir`` (``__init__.py`` for a package), or None."""
    parts = name.split(".")
    if parts[0] != package:
        return None
    base = package_dir.joinpath(*parts[1:])
    candidates = [base / "__init__.py", *([base.with_suffix(".py")] if len(parts) > 1 else [])]
    return next((candidate for candidate in candidates if candidate.is_file()), None)
