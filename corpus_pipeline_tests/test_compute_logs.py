"""Step output under the project's instance: captured for the UI by Dagster's own manager, echoed to the terminal."""

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]

JOB = textwrap.dedent("""
    import subprocess, sys
    import dagster as dg

    @dg.asset
    def talkative() -> None:
        print("out from the step", flush=True)
        print("err from the step", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-c", "print('out from a child process')"], check=True)

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
    # Echoed to the terminal by Dagster's `tail -F`, which is stopped at the step's end without waiting, so only the
    # lines written before the child process ran are sure to be echoed (Dagster issue 23336).
    assert "out from the step" in result.stdout
    assert "err from the step" in result.stderr
    # Captured in Dagster's usual place, where the UI reads it.
    captured = {path.suffix: path.read_text() for path in (home / "storage").rglob("compute_logs/*.*") if path.suffix in (".out", ".err")}
    assert "out from the step" in captured[".out"] and "out from a child process" in captured[".out"]
    assert "err from the step" in captured[".err"]
