"""The process harness of the local deployment: runs in parallel counted from recorded times, process groups
stopped whole."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
from hypothesis import given
from hypothesis import strategies as st

from corpus_pipeline_tests.support.local_cluster import BackfillOutcome, background_process

intervals = st.lists(
    st.tuples(st.integers(0, 100), st.integers(1, 50)).map(lambda pair: (float(pair[0]), float(pair[0] + pair[1]))),
    max_size=12,
)


def record(index: int, start: float, end: float, status=dg.DagsterRunStatus.SUCCESS) -> dg.RunRecord:
    run = dg.DagsterRun(job_name="corpus_job", run_id=f"run-{index}", status=status,
                        tags={"dagster/partition": f"site-{index}"})
    now = datetime.now(UTC)
    return dg.RunRecord(storage_id=index, dagster_run=run, create_timestamp=now, update_timestamp=now,
                     start_time=start, end_time=end)


@given(intervals)
def test_max_parallel_is_the_most_runs_in_progress_at_one_instant(spans):
    outcome = BackfillOutcome(records=tuple(record(i, s, e) for i, (s, e) in enumerate(spans)), wall_s=1.0)
    # A run ending at the instant another starts does not overlap it.
    brute = max((sum(s <= t < e for s, e in spans) for t, _ in spans), default=0)
    assert outcome.max_parallel == brute


def test_failures_name_the_partitions_of_runs_that_did_not_succeed():
    outcome = BackfillOutcome(
        records=(record(1, 0.0, 1.0), record(2, 0.0, 1.0, dg.DagsterRunStatus.FAILURE), record(3, 0.0, 1.0)),
        wall_s=1.0)
    assert outcome.failures == ["site-2"]


def test_a_background_process_and_its_children_are_stopped_on_exit(tmp_path):
    pids = tmp_path / "pids"
    command = ["sh", "-c", f"sleep 300 & echo $! > {pids}; echo $$ >> {pids}; wait"]
    with background_process(command, dict(os.environ), tmp_path / "log"):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(pids.read_text().split() if pids.exists() else []) < 2:
            time.sleep(0.1)
    child, parent = (int(pid) for pid in pids.read_text().split())
    for pid in (child, parent):
        assert not _alive(pid), pid


def _alive(pid: int) -> bool:
    # A killed process stays a zombie until its new parent (PID 1) reaps it, which a busy machine's init may do late:
    # it still answers kill(pid, 0) but runs nothing, so only a live state counts.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
