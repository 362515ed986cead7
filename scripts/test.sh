#!/usr/bin/env bash
# One command for the test suite: set up, then run pytest on 2 processes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
