# Source this file from the project folder's shell: `source scripts/env.sh`.
# It puts .venv first on PATH (dg, dagster, python) and makes the project folder DAGSTER_HOME,
# so Dagster reads the project's own dagster.yaml: an edit takes effect the next time
# `dg dev` or `dg launch` starts, with nothing to copy. Dagster keeps its run history in
# history/, schedules/ and storage/ of the project folder (gitignored).
project_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export DAGSTER_HOME="$project_root"
# A run's launch waits for its process to start: Dagster's 60 s deadline is too short on a busy machine
# (see code_servers in dagster.yaml). Kept if already set.
export DAGSTER_GRPC_TIMEOUT_SECONDS="${DAGSTER_GRPC_TIMEOUT_SECONDS:-300}"
if [ -d "$project_root/.venv" ]; then
  export VIRTUAL_ENV="$project_root/.venv"  # dg warns when the project's venv is not the active one
  case ":$PATH:" in
    *":$VIRTUAL_ENV/bin:"*) ;;
    *) export PATH="$VIRTUAL_ENV/bin:$PATH" ;;
  esac
fi
unset project_root
