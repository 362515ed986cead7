#!/usr/bin/env bash
# One command for the test suite: set up, the code-health gates (scripts/lint.sh), then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/lint.sh
exec .venv/bin/python -m pytest "$@"
