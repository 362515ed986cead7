#!/usr/bin/env bash
# One command for the test suite: set up, the code-health gates (scripts/lint.sh), then pytest on the releases of
# scripts/tested-versions.txt. Under CI (CI=true), the suite runs once more in .venv-newest, on the newest releases
# that pyproject.toml's ranges allow: an upstream release that breaks the pipeline shows before a user installs it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/lint.sh
.venv/bin/python -m pytest "$@"
if [ "${CI:-}" = "true" ]; then
  VENV=.venv-newest NEWEST=1 bash scripts/setup.sh
  echo "==> Releases newer than the tested ones:"
  { diff <(.venv/bin/python -m pip freeze --exclude-editable) <(.venv-newest/bin/python -m pip freeze --exclude-editable) \
    || true; } | grep '^>' || echo "  none"
  .venv-newest/bin/python -m pytest "$@"
fi
