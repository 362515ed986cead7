"""The Dagster instance of the project: scripts/env.sh makes the project folder DAGSTER_HOME, so Dagster reads
the project's own dagster.yaml and an edit of it takes effect at the next start."""

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

PROJECT = Path(__file__).resolve().parents[1]

READ_INSTANCE = """
import dagster as dg
instance = dg.DagsterInstance.get()
queue = instance.get_concurrency_config().run_queue_config
print(type(instance.run_coordinator).__name__, queue.max_concurrent_runs, instance.root_directory)
"""


def _instance_seen_from(project: Path) -> list[str]:
    """What Dagster's instance is in a shell that sourced the project's scripts/env.sh (from another folder)."""
    command = f'source "{project}/scripts/env.sh" && "{sys.executable}" -c "$0"'
    result = subprocess.run(
        ["bash", "-c", command, READ_INSTANCE], cwd="/", capture_output=True, text=True, timeout=300, check=True
    )
    return result.stdout.split()


def _copy_of_the_project(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    (copy / "scripts").mkdir(parents=True)
    shutil.copy(PROJECT / "dagster.yaml", copy / "dagster.yaml")
    shutil.copy(PROJECT / "scripts" / "env.sh", copy / "scripts" / "env.sh")
    return copy


def test_the_project_folder_is_dagster_home_and_its_dagster_yaml_configures_the_instance(tmp_path):
    project = _copy_of_the_project(tmp_path)
    settings = yaml.safe_load((PROJECT / "dagster.yaml").read_text())

    coordinator, max_runs, home = _instance_seen_from(project)

    assert Path(home) == project
    assert coordinator == settings["run_coordinator"]["class"]
    assert int(max_runs) == settings["concurrency"]["runs"]["max_concurrent_runs"]


def test_an_edit_of_the_project_s_dagster_yaml_takes_effect_at_the_next_start(tmp_path):
    project = _copy_of_the_project(tmp_path)
    _instance_seen_from(project)  # a first start, which creates the instance's storage
    settings = yaml.safe_load((project / "dagster.yaml").read_text())
    settings["concurrency"]["runs"]["max_concurrent_runs"] = 7
    (project / "dagster.yaml").write_text(yaml.safe_dump(settings))

    _, max_runs, _ = _instance_seen_from(project)

    assert int(max_runs) == 7
