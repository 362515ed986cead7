"""Items over their time budget are stopped, dead workers replaced, results kept in input order."""

import multiprocessing
import os
import threading

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
    results = list(map_within_budget(work, items, fallback=note, budget=Budget(total_s=1.0), workers=1))
    assert results[:2] == ["done 1", "done 2"]
    assert results[2:] == [f"{item}: budget exceeded: 1 s in all (budget)" for item in items[2:]]


def test_stopping_early_leaves_no_worker_behind():
    before = set(multiprocessing.active_children())
    results = map_within_budget(work, iter(range(1000)), fallback=note, budget=Budget(item_s=5), workers=2)
    assert next(results) == "done 0"
    assert len(set(multiprocessing.active_children()) - before) == 2
    results.close()
    assert set(multiprocessing.active_children()) - before == set()


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=80), st.integers(min_value=1, max_value=3))
def test_results_follow_the_input_order(items, workers):
    results = list(map_within_budget(work, items, fallback=note, budget=Budget(item_s=30), workers=workers))
    assert results == [f"done {item}" for item in items]


def measure(item: tuple[int, str]) -> int:
    return work(item[0]) and len(item[1])


def test_killing_a_worker_with_a_large_item_queued_behind_it_leaves_no_thread_behind():
    items = [(1, "small"), (HANG, ""), (2, "x" * 500_000), (3, "y" * 500_000)]
    results = list(map_within_budget(measure, items, fallback=lambda item, why: why.reason, budget=Budget(item_s=1), workers=1))
    assert results == [5, "budget exceeded: 1 s", 500_000, 500_000]
    # A queue's feeder thread left blocked on the dead worker's full pipe would never end.
    feeders = [thread for thread in threading.enumerate() if thread.name == "QueueFeederThread"]
    for thread in feeders:
        thread.join(timeout=10)
    assert not any(thread.is_alive() for thread in feeders)
