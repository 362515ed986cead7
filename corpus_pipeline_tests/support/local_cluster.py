"""A whole Dagster deployment on one machine, as separate processes: the daemon that dequeues runs, Celery workers,
and a backfill of partitions launched through the run queue.

Tests and ``benchmarks/backfill_bench.py`` use it; every process is started in its own session and its whole process
group is stopped on exit, even when the body fails.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from dagster import DagsterRunStatus, RunRecord, RunsFilter

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEPLOY_DIR = PROJECT_ROOT / "deploy"
LOCATION_NAME = "corpus_pipeline"
# A process asked to stop gets this long to finish its current step before it is killed.
STOP_GRACE_S = 10.0
# How often the run storage is read while waiting for a backfill; runs take seconds, so this costs nothing.
POLL_INTERVAL_S = 1.0
FINISHED = {DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED}
# Deadline of a call to the code server, above all a run's launch, which waits for a fresh process to start: at
# load ~30 on 2 cores that exceeded Dagster's 60 s default and the run failed. scripts/env.sh sets the same value.
GRPC_TIMEOUT_ENV_VAR = "DAGSTER_GRPC_TIMEOUT_SECONDS"
GRPC_TIMEOUT_S = 300


class RunRecords(Protocol):
    """Where a deployment's runs are read: a ``DagsterInstance``, or a run storage such as dagster-postgres's."""

    def get_run_records(self, filters: RunsFilter | None = None) -> Sequence[RunRecord]: ...


@dataclass(frozen=True)
class BackfillOutcome:
    """What the runs of one backfill did: their final records, and the most that ran at once."""

    records: tuple[RunRecord, ...]
    wall_s: float

    @property
    def failures(self) -> list[str]:
        return [r.dagster_run.tags.get("dagster/partition", r.dagster_run.run_id) for r in self.records
                if r.dagster_run.status != DagsterRunStatus.SUCCESS]

    @property
    def max_parallel(self) -> int:
        """Largest number of runs between their start and end at one instant (from the recorded times)."""
        edges = sorted(edge for r in self.records if r.start_time is not None and r.end_time is not None
                       for edge in ((r.start_time, 1), (r.end_time, -1)))
        running = peak = 0
        for _, change in edges:
            running += change
            peak = max(peak, running)
        return peak


def tool(name: str) -> str:
    """A console script of this Python environment (dagster, dagster-daemon, dagster-celery, celery)."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or name


def deployment_env(dagster_home: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """The environment of every process of a deployment: this one's, plus DAGSTER_HOME, the project on the path,
    the code-server deadline (unless set), and ``extra`` (registry, data folder, Postgres and broker settings)."""
    python_path = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    path = os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", "")))
    return {GRPC_TIMEOUT_ENV_VAR: str(GRPC_TIMEOUT_S), **os.environ, "DAGSTER_HOME": str(dagster_home),
            "PYTHONPATH": python_path, "PATH": path, **extra}


def prepare_dagster_home(dagster_home: Path, instance_yaml: Path) -> Path:
    """``dagster_home`` holding a copy of ``instance_yaml`` as its dagster.yaml."""
    dagster_home.mkdir(parents=True, exist_ok=True)
    shutil.copy(instance_yaml, dagster_home / "dagster.yaml")
    return dagster_home


def create_instance_storage(env: Mapping[str, str], timeout_s: float) -> None:
    """Create the instance's tables once (``dagster instance migrate``) before several processes open it: on a fresh
    Postgres database, processes that each create missing tables race and fail with DuplicateObject."""
    result = subprocess.run([tool("dagster"), "instance", "migrate"], check=False, env=dict(env), cwd=PROJECT_ROOT,
                            capture_output=True, text=True, timeout=timeout_s)
    if result.returncode != 0:
        raise RuntimeError(f"dagster instance migrate failed ({result.returncode}): {result.stderr[-3000:]}")


@contextmanager
def background_process(command: Sequence[str], env: Mapping[str, str], log: Path) -> Iterator[subprocess.Popen]:
    """``command`` running in its own process group, output to ``log``; the group is stopped on exit."""
    with log.open("ab") as output:
        process = subprocess.Popen(list(command), env=dict(env), cwd=PROJECT_ROOT, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield process
    finally:
        _stop_group(process)


@contextmanager
def celery_workers(count: int, env: Mapping[str, str], log_dir: Path) -> Iterator[list[str]]:
    """``count`` Celery workers (one step at a time each) on the broker of deploy/celery.yaml; yields their names."""
    names = [f"corpus-worker-{index}" for index in range(1, count + 1)]
    with ExitStack() as stack:
        for name in names:
            # solo pool: the step runs in the worker process itself, so the pipeline's own process pools may fork.
            command = [tool("dagster-celery"), "worker", "start", "-A", "dagster_celery.app",
                       "-y", str(DEPLOY_DIR / "celery.yaml"), "-n", name, "--", "--pool=solo", "--concurrency=1"]
            stack.enter_context(background_process(command, env, log_dir / f"{name}.log"))
        yield names


@contextmanager
def dagster_daemon(env: Mapping[str, str], log_dir: Path) -> Iterator[subprocess.Popen]:
    """``dagster-daemon run`` on the project's workspace: it dequeues runs and launches them."""
    command = [tool("dagster-daemon"), "run", "-w", str(PROJECT_ROOT / "workspace.yaml")]
    with background_process(command, env, log_dir / "dagster-daemon.log") as process:
        yield process


def launch_backfill(env: Mapping[str, str], job: str, partitions: Sequence[str], timeout_s: float) -> str:
    """Queue one run of ``job`` per partition with ``dagster job backfill``; returns the backfill id."""
    command = [tool("dagster"), "job", "backfill", "-w", str(PROJECT_ROOT / "workspace.yaml"), "-l", LOCATION_NAME,
               "-j", job, "--partitions", ",".join(partitions), "--noprompt"]
    result = subprocess.run(command, check=False, env=dict(env), cwd=PROJECT_ROOT, capture_output=True, text=True,
                            timeout=timeout_s)
    found = re.search(r"Launched backfill job `([^`]+)`", result.stdout)
    if result.returncode != 0 or not found:
        raise RuntimeError(f"dagster job backfill failed ({result.returncode}): "
                           f"{result.stdout[-2000:]} {result.stderr[-3000:]}")
    return found.group(1)


def wait_for_backfill(runs: RunRecords, backfill_id: str, expected_runs: int, timeout_s: float,
                      started: float | None = None) -> BackfillOutcome:
    """Read ``runs`` until the backfill's ``expected_runs`` runs have all finished; raises TimeoutError after
    ``timeout_s`` with the status of each run."""
    started = time.monotonic() if started is None else started
    deadline = time.monotonic() + timeout_s
    while True:
        records = tuple(runs.get_run_records(RunsFilter(tags={"dagster/backfill": backfill_id})))
        if len(records) >= expected_runs and all(r.dagster_run.status in FINISHED for r in records):
            return BackfillOutcome(records=records, wall_s=time.monotonic() - started)
        if time.monotonic() > deadline:
            states = {r.dagster_run.tags.get("dagster/partition"): r.dagster_run.status.value for r in records}
            raise TimeoutError(f"backfill {backfill_id}: {len(records)} of {expected_runs} runs, not all finished "
                               f"after {timeout_s:.0f} s: {states}")
        time.sleep(POLL_INTERVAL_S)


def _stop_group(process: subprocess.Popen) -> None:
    """SIGTERM to the whole group, then SIGKILL to whatever of it is left after the grace period."""
    _signal_group(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while time.monotonic() < deadline and _group_alive(process):
        time.sleep(0.2)
    _signal_group(process.pid, signal.SIGKILL)
    process.wait()


def _group_alive(process: subprocess.Popen) -> bool:
    process.poll()
    try:
        os.killpg(process.pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _signal_group(group: int, sig: signal.Signals) -> None:
    try:
        os.killpg(group, sig)
    except (ProcessLookupError, PermissionError):
        pass
