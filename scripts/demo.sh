#!/usr/bin/env bash
# One command for newcomers: set up, serve the bundled demo website on
# 127.0.0.1:8765, run the whole corpus job on it through Dagster, and print
# where the Parquet outputs are with a short summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

PORT=8765
# DAGSTER_HOME is this folder: Dagster reads ./dagster.yaml itself and keeps the run history the UI shows.
source scripts/env.sh
echo "==> DAGSTER_HOME=$DAGSTER_HOME (instance settings: $DAGSTER_HOME/dagster.yaml)"

python -m corpus_pipeline_demo.site data/demo_site
python -m corpus_pipeline_demo.server --root data/demo_site --port "$PORT" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
python - "$PORT" <<'PY'
import socket, sys, time
deadline = time.time() + 20
while time.time() < deadline:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        break
    except OSError:
        time.sleep(0.2)
else:
    sys.exit("demo server did not start")
PY

echo "==> Running corpus_job for the demo website"
log=data/demo_run.log
if ! dg launch --job corpus_job --partition demo >"$log" 2>&1; then
  tail -n 40 "$log"
  echo "ERROR: the demo run failed; full log in $log" >&2
  exit 1
fi
echo "    run log: $log"
python -m corpus_pipeline.summary demo
