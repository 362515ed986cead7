#!/usr/bin/env bash
# Start PostgreSQL and Redis on 127.0.0.1 (free ports, files in a temp dir) for trying the cluster set-up by hand:
#   scripts/services.sh start   # prints the export lines, also kept in data/services.env
#   source data/services.env
#   scripts/services.sh stop    # stops both and removes their files
# The tests and benchmarks start their own servers; nothing here is assumed to be running.
# data/services.env holds the passwords (PostgreSQL's, and Redis's in the broker URLs): it is readable by its owner
# only (0600), as are the log and pid files. CORPUS_PIPELINE_SERVICES_DIR moves the three files (default: data).
set -euo pipefail
umask 077  # every file written here, from its creation on, is the owner's alone
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
state_dir=${CORPUS_PIPELINE_SERVICES_DIR:-data}
mkdir -p "$state_dir"
pid_file=$state_dir/services.pid
env_file=$state_dir/services.env
log_file=$state_dir/services.log

case "${1:-}" in
  start)
    if [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
      echo "already running (pid $(cat "$pid_file")); variables in $env_file"; exit 0
    fi
    rm -f "$env_file" "$log_file"  # an older file keeps its mode when rewritten: start afresh
    "$PYTHON" -m corpus_pipeline_tests.support.services --env-file "$env_file" >"$log_file" 2>&1 &
    echo $! >"$pid_file"
    for _ in $(seq 1 120); do
      [ -s "$env_file" ] && { cat "$env_file"; exit 0; }
      kill -0 "$(cat "$pid_file")" 2>/dev/null || break
      sleep 0.5
    done
    echo "ERROR: the services did not start; see $log_file" >&2
    cat "$log_file" >&2
    exit 1
    ;;
  stop)
    [ -f "$pid_file" ] || { echo "not running"; exit 0; }
    pid=$(cat "$pid_file")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    rm -f "$pid_file" "$env_file"
    echo "stopped"
    ;;
  *)
    echo "usage: $0 start|stop" >&2; exit 2
    ;;
esac
