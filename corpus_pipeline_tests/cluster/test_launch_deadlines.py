"""The deadlines of code-server start-up and run launches: the shipped instance files and scripts/env.sh give a busy
machine more than Dagster's defaults, so a backfill's runs are not failed while their processes start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import dagster as dg
import pytest
import yaml

from corpus_pipeline_tests.support.local_cluster import (
    DEPLOY_DIR,
    GRPC_TIMEOUT_ENV_VAR,
    GRPC_TIMEOUT_S,
    PROJECT_ROOT,
    deployment_env,
)

DAGSTER_DEFAULT_GRPC_TIMEOUT_S = 60

# What a process started from that shell sees: the instance's code-server start-up deadline, as Dagster reads the
# project's dagster.yaml, and the launch deadline Dagster reads from the environment.
READ_DEADLINES = f"""
import os
import dagster as dg
instance = dg.DagsterInstance.get()
print(instance.code_server_process_startup_timeout, os.environ["{GRPC_TIMEOUT_ENV_VAR}"])
"""


def _dagster_s_default_startup_timeout() -> int:
    """The code-server start-up deadline of an instance whose settings say nothing of it."""
    with dg.instance_for_test() as instance:
        return instance.code_server_process_startup_timeout


@pytest.mark.parametrize("folder", [PROJECT_ROOT, DEPLOY_DIR], ids=["dagster.yaml", "deploy/dagster.yaml"])
def test_each_shipped_instance_file_gives_code_servers_more_than_dagster_s_start_up_default(folder: Path):
    # The file's code-server settings, checked and read by Dagster itself (the deploy file's PostgreSQL storage is
    # left out: an instance built from the whole file would connect to it).
    settings = yaml.safe_load((folder / "dagster.yaml").read_text())["code_servers"]
    default = _dagster_s_default_startup_timeout()

    with dg.instance_for_test(overrides={"code_servers": settings}) as instance:
        assert instance.code_server_process_startup_timeout > default
        assert instance.code_server_reload_timeout > default


def test_a_shell_that_sourced_env_sh_gives_run_launches_the_project_s_deadline(tmp_path: Path):
    project = tmp_path / "project"
    (project / "scripts").mkdir(parents=True)
    (project / "dagster.yaml").write_text((PROJECT_ROOT / "dagster.yaml").read_text())
    (project / "scripts" / "env.sh").write_text((PROJECT_ROOT / "scripts" / "env.sh").read_text())
    command = f'unset {GRPC_TIMEOUT_ENV_VAR}; source "{project}/scripts/env.sh" && "{sys.executable}" -c "$0"'

    result = subprocess.run(["bash", "-c", command, READ_DEADLINES], cwd="/", capture_output=True, text=True,
                            timeout=300, check=True)
    startup_s, grpc_s = (int(value) for value in result.stdout.split())

    assert grpc_s == GRPC_TIMEOUT_S > DAGSTER_DEFAULT_GRPC_TIMEOUT_S
    assert startup_s > _dagster_s_default_startup_timeout()


def test_the_deployment_harness_sets_the_launch_deadline_unless_the_caller_did(monkeypatch, tmp_path: Path):
    monkeypatch.delenv(GRPC_TIMEOUT_ENV_VAR, raising=False)
    assert deployment_env(tmp_path, {})[GRPC_TIMEOUT_ENV_VAR] == str(GRPC_TIMEOUT_S)

    monkeypatch.setenv(GRPC_TIMEOUT_ENV_VAR, "900")
    assert deployment_env(tmp_path, {})[GRPC_TIMEOUT_ENV_VAR] == "900"
