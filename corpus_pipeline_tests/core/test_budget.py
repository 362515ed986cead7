"""Items over their time budget are stopped, dead workers replaced, results kept in input order."""

import os
import threading
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_pipeline.core.budget import Budget, Unfinished, map_within_budget

HANG = -1  # an item that never finishes on its own
CRASH = -2  # an item whose worker process dies
RAISE = -3  # an item whose call raises


def work(item: int) -> str:
    if item == HANG:
        while True:  # a busy loop, like C code that ignores signals
            pass
    if item == CRASH:
        os._exit(3)
    if item == RAISE:
        raise ValueError("bad item")
    return f"done {item}"


def note(item: int, why: Unfinished) -> str:
    return f"{item}: {why.reason} ({'budget' if why.budget_exceeded else 'failure'})"


def test_an_item_over_its_budget_is_stopped_and_the_others_go_on_in_order():
    items = [1, HANG, 2, 3, HANG, 4]
    results = list(map_within_budget(work, items, fallback=note, budget=Budget(item_s=1.0), workers=2))
    assert results == [
        "done 1", "-1: budget exceeded: 1 s (budget)", "done 2", "done 3", "-1: budget exceeded: 1 s (budget)", "done 4"
    ]


def test_a_dead_worker_or_a_raising_call_costs_only_its_own_item():
    results = list(map_within_budget(work, [1, CRASH, 2, RAISE, 3], fallback=note, budget=Budget(), workers=1))
    assert results[0::2] == ["done 1", "done 2", "done 3"]
    assert results[1] == "-2: worker process died (exit code 3) (failure)"
    assert results[3] == "-3: ValueError: bad item (failure)"


def test_once_the_total_budget_is_spent_the_remaining_items_are_not_started():
    items = [1, 2, HANG, 5, 6, 7]
    # The budget counts from the call, the worker's start-up included: 1 s was spent before item 2 was done on a
    # machine at load 8-10. 5 s leaves room for that, and the hung item still spends it all.
    results = list(map_within_budget(work, items, fallback=note, budget=Budget(total_s=5.0), workers=1))
    assert results[:2] == ["done 1", "done 2"]
    assert results[2:] == [f"{item}: budget exceeded: 5 s in all (budget)" for item in items[2:]]


def child_processes() -> set[int]:
    """This process's live children (Linux: each thread's ``children`` file lists the children it started), but
    multiprocessing's resource tracker, which stays for the life of the process once a pool has started it."""
    pids: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            listed = (task / "children").read_text()
        except FileNotFoundError:  # the thread ended meanwhile: its children now belong to another thread
            continue
        pids.update(int(pid) for pid in listed.split())
    return {pid for pid in pids if b"resource_tracker" not in _command(pid)}


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return b""


def test_stopping_early_leaves_no_worker_behind():
    before = child_processes()
    results = map_within_budget(work, iter(range(1000)), fallback=note, budget=Budget(item_s=5), workers=2)
    assert next(results) == "done 0"
    started = child_processes() - before
    assert len(started) == 2
    # Fresh interpreters: a fork of a Dagster step would count its imports again in each worker's RSS.
    assert all(b"multiprocessing.spawn" in _command(pid) for pid in started)
    results.close()
    assert child_processes() - before == set()


def start_a_program_and_hang(pid_file: str) -> None:
    import subprocess

    program = subprocess.Popen(["sleep", "600"])
    Path(pid_file).write_text(str(program.pid))
    program.wait()


def test_a_program_started_by_an_item_over_its_budget_is_stopped_with_it(tmp_path):
    # As Tesseract is, under an OCR page: a worker that is stopped takes its process group with it.
    pid_file = tmp_path / "program.pid"
    results = list(map_within_budget(start_a_program_and_hang, [str(pid_file)], fallback=note, budget=Budget(item_s=2), workers=1))
    assert results == [f"{pid_file}: budget exceeded: 2 s (budget)"]
    assert not Path(f"/proc/{pid_file.read_text()}").exists() or b"sleep" not in _command(int(pid_file.read_text()))


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=80), st.integers(min_value=1, max_value=3))
def test_results_follow_the_input_order(items, workers):
    results = list(map_within_budget(work, items, fallback=note, budget=Budget(item_s=30), workers=workers))
    assert results == [f"done {item}" for item in items]


def measure(item: tuple[int, str]) -> int:
    return work(item[0]) and len(item[1])


def test_killing_a_worker_with_a_large_item_queued_behind_it_leaves_no_thread_behind():
    threads = set(threading.enumerate())
    items = [(1, "small"), (HANG, ""), (2, "x" * 500_000), (3, "y" * 500_000)]
    results = list(map_within_budget(measure, items, fallback=lambda item, why: why.reason, budget=Budget(item_s=1), workers=1))
    assert results == [5, "budget exceeded: 1 s", 500_000, 500_000]
    assert not [thread for thread in threading.enumerate() if thread not in threads and thread.is_alive()]


def modules_loaded(names: tuple[str, ...]) -> list[str]:
    import sys

    return [name for name in names if name in sys.modules]


LAUNCHER = """import sys
import {marker}
from corpus_pipeline.core.budget import Budget, map_within_budget
from corpus_pipeline.extract.pool import map_in_windows
from corpus_pipeline_tests.core.test_budget import modules_loaded, note
if __name__ == "__main__":
    names = ("{marker}",)
    spawned = list(map_within_budget(modules_loaded, [names], fallback=note, budget=Budget(), workers=1))
    pooled = list(map_in_windows(modules_loaded, [names] * 4, workers=2))
    print(spawned[0], pooled[0], __file__ == sys.argv[0])
"""


def test_spawned_workers_do_not_rerun_a_console_script_launcher(tmp_path):
    # A console script (no .py suffix, like the `dagster` command) imports its whole CLI at the top; spawned workers
    # must not import it again. `colorsys` stands in for the CLI: nothing else in a worker imports it.
    import subprocess
    import sys
    from pathlib import Path

    launcher = tmp_path / "pipeline-cli"
    launcher.write_text(LAUNCHER.format(marker="colorsys"))
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, str(launcher)], capture_output=True, text=True, env=env, cwd=root, check=True)
    assert out.stdout.split() == ["[]", "[]", "True"]  # and the parent's own __main__ keeps its path
    script = tmp_path / "pipeline_script.py"  # a .py script may define what workers run: it is still imported
    script.write_text(LAUNCHER.format(marker="colorsys"))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=root, check=True)
    assert out.stdout.split() == ["['colorsys']", "['colorsys']", "True"]
