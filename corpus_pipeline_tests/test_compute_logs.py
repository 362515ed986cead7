"""Step output under the project's instance: captured for the UI, echoed to the terminal, without helper processes."""

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import dagster as dg

from corpus_pipeline.compute_logs import EchoingComputeLogManager, echoed_to_file

PROJECT = Path(__file__).resolve().parents[1]

JOB = textwrap.dedent("""
    import os, subprocess, sys
    import dagster as dg

    @dg.asset
    def talkative() -> None:
        print("out from the step", flush=True)
        print("err from the step", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-c", "print('out from a child process')"], check=True)
        children = subprocess.run(["ps", "-o", "args=", "--ppid", str(os.getpid())], capture_output=True, text=True)
        print("children:", children.stdout.replace("\\n", " | "), flush=True)

    defs = dg.Definitions(assets=[talkative], jobs=[dg.define_asset_job("talk", selection=[talkative])])
""")


def test_a_job_s_step_output_is_captured_and_echoed_by_the_project_s_instance(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(PROJECT / "dagster.yaml", home / "dagster.yaml")
    (tmp_path / "job.py").write_text(JOB)

    result = subprocess.run(
        [str(Path(sys.executable).parent / "dagster"), "job", "execute", "-f", "job.py", "-j", "talk"],
        cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "DAGSTER_HOME": str(home)}, capture_output=True, text=True,
        timeout=300,
    )

    assert result.returncode == 0, result.stderr[-3000:]
    # Echoed to the terminal, as Dagster's default does.
    assert "out from the step" in result.stdout and "out from a child process" in result.stdout
    assert "err from the step" in result.stderr
    # Captured in Dagster's usual place, where the UI reads it.
    instance = dg.DagsterInstance.from_config(str(home))
    assert isinstance(instance.compute_log_manager, EchoingComputeLogManager)
    captured = {path.suffix: path.read_text() for path in (home / "storage").rglob("compute_logs/*.*") if path.suffix in (".out", ".err")}
    assert "out from the step" in captured[".out"] and "out from a child process" in captured[".out"]
    assert "err from the step" in captured[".err"]
    # No `tail -F` or watcher process beside the step.
    children = next(line for line in captured[".out"].splitlines() if line.startswith("children:"))
    assert "tail" not in children and "watch_orphans" not in children


def test_echoed_to_file_echoes_everything_written_by_the_end_of_the_block(tmp_path, capfd):
    path = tmp_path / "captured.out"
    lines = [f"line {number}" for number in range(2000)]

    with echoed_to_file(sys.stdout, str(path)):
        for line in lines:
            print(line)
        sys.stdout.flush()

    echoed = capfd.readouterr().out.splitlines()
    assert echoed == lines
    assert path.read_text().splitlines() == lines
