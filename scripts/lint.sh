#!/usr/bin/env bash
# Code-health gates, run by scripts/test.sh before pytest: ruff (lint rules and import
# order) on the code and its tests, mypy on the package, and the documentation site built
# with --strict (its reference tables are generated from the code). Any finding fails the run.
# Usage: scripts/lint.sh [--fix]   (--fix applies ruff's safe fixes first)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
fix=()
[ "${1:-}" = "--fix" ] && fix=(--fix)
echo "==> ruff"
"$PYTHON" -m ruff check "${fix[@]}" corpus_pipeline corpus_pipeline_demo corpus_pipeline_tests benchmarks docs/hooks.py
echo "==> mypy"
"$PYTHON" -m mypy
echo "==> mkdocs build --strict"
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 "$PYTHON" -m mkdocs build --strict --quiet --site-dir "$site"
