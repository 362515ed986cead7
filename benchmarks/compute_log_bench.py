"""Memory of the processes Dagster's compute log manager starts beside a running step, under the project's dagster.yaml.

Usage: python benchmarks/compute_log_bench.py

One job of one step runs through ``dagster job execute`` with a copy of the project's dagster.yaml; the step waits a
moment, then measures itself and every process it did not start on purpose (the capture's ``tail -F`` and watchers).
Printed: the helpers' count, RSS and PSS next to the step process's own (the same run's baseline).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import print_table  # noqa: E402

PROJECT_ROOT = Path(__file__).resolve().parents[1]
MIB = 1 << 20
JOB = textwrap.dedent("""
    import json, time
    import dagster as dg
    import psutil

    def memory(process):
        info = process.memory_full_info()
        return {"command": " ".join(process.cmdline())[:90], "rss": info.rss, "pss": info.pss}

    @dg.asset
    def measured() -> None:
        time.sleep(3)  # the capture's helpers are up
        step = psutil.Process()
        helpers = [memory(child) for child in step.children(recursive=True)]
        print("MEASURED " + json.dumps({"step": memory(step), "helpers": helpers}), flush=True)

    defs = dg.Definitions(assets=[measured], jobs=[dg.define_asset_job("measure", selection=[measured])])
""")


def measure() -> dict:
    """The step's and its helpers' memory, read by the step of one ``dagster job execute``."""
    with tempfile.TemporaryDirectory(prefix="compute_log_bench_") as folder:
        work = Path(folder)
        (work / "home").mkdir()
        shutil.copy(PROJECT_ROOT / "dagster.yaml", work / "home" / "dagster.yaml")
        (work / "job.py").write_text(JOB)
        dagster = shutil.which("dagster", path=str(Path(sys.executable).parent)) or "dagster"
        result = subprocess.run([dagster, "job", "execute", "-f", "job.py", "-j", "measure"], cwd=work,
                                env={**os.environ, "DAGSTER_HOME": str(work / "home")}, capture_output=True,
                                text=True, check=True, timeout=600)
    line = next(line for line in result.stdout.splitlines() if line.startswith("MEASURED "))
    return json.loads(line.removeprefix("MEASURED "))


def main() -> None:
    measured = measure()
    step, helpers = measured["step"], measured["helpers"]
    rows = [[helper["command"], helper["rss"] / MIB, helper["pss"] / MIB] for helper in helpers]
    rows.append([f"all {len(helpers)} helpers", sum(h["rss"] for h in helpers) / MIB, sum(h["pss"] for h in helpers) / MIB])
    rows.append(["the step's own process (baseline)", step["rss"] / MIB, step["pss"] / MIB])
    print_table("Processes beside a running step, project dagster.yaml", ["process", "RSS MiB", "PSS MiB"], rows)


if __name__ == "__main__":
    main()
