"""Run a function over many items in worker processes, with a time budget that can really stop an item.

Parsers and OCR engines run C code that no signal or thread can interrupt: only ending its process stops an item
over budget. pebble's ``ProcessPool`` does that per task and starts a new worker in its place. Workers are fresh
interpreters (spawn): a fork of a Dagster step would count the step's imports again in each worker's RSS.
:class:`WorkerPool` keeps such workers, without a time budget, for several maps.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from itertools import islice
from typing import Any, TypeVar

from pebble import ProcessExpired, ProcessPool

from corpus_pipeline.core.memory import malloc_trimmed

Item = TypeVar("Item")
Result = TypeVar("Result")

_READ_AHEAD_PER_WORKER = 32  # items read ahead of the oldest unfinished one: bounds memory, keeps workers busy
# Freed pages stay in a worker's heap; a trim costs ~2 ms (5 % of a page), so one item in 16 at random is trimmed.
_TRIM_ONE_ITEM_IN = 16
# A WorkerPool's jobs in flight per worker: the running job and the next, so a worker never waits for this process;
# jobs are read only as workers have room for them, so their texts are never all held twice at once.
_QUEUED_PER_WORKER = 2


@contextmanager
def launcher_script_hidden() -> Iterator[None]:
    """While this block starts "spawn" workers, they do not run the parent's console-script launcher (``dagster``: a
    ``__main__`` without a ``.py`` suffix), which would import the whole CLI in every worker. Scripts (``.py``) and
    ``python -m`` modules still run: they may define the functions a worker runs."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or main.__spec__ is not None or not isinstance(path, str) or path.endswith((".py", ".pyw")):
        yield
        return
    del main.__file__  # multiprocessing.spawn reads the main module's path here, when each worker starts
    try:
        yield
    finally:
        main.__file__ = path


@contextmanager
def worker_processes(size: int, initializer: Callable[[], None] | None = None) -> Iterator[ProcessPool]:
    """A pebble pool of ``size`` fresh interpreters, each running ``initializer`` first; on leaving the block every
    worker is stopped, a busy one killed with what it started. The launcher script stays hidden while the pool lives,
    since pebble starts workers (and replaces killed ones) whenever it needs them."""
    pool = ProcessPool(max_workers=max(1, size), initializer=_start_worker, initargs=(initializer,),
                       context=multiprocessing.get_context("spawn"))
    with launcher_script_hidden():
        try:
            yield pool
        finally:
            pool.stop()
            pool.join()


def _start_worker(initializer: Callable[[], None] | None) -> None:
    """In a new worker: its own process group, ended whole when pebble stops the worker (an OCR page's Tesseract
    dies with it instead of running on alone), then the caller's ``initializer``."""
    os.setpgrp()
    signal.signal(signal.SIGTERM, _end_process_group)
    if initializer is not None:
        initializer()


def _end_process_group(signum: int, frame: object) -> None:
    os.killpg(0, signal.SIGKILL)


def call_and_trim(function: Callable[[Item], Result], item: Item) -> Result:
    """``function(item)`` in a worker, its heap trimmed now and then (what a page leaves freed stays mapped else)."""
    try:
        return function(item)
    finally:
        if random.randrange(_TRIM_ONE_ITEM_IN) == 0:
            malloc_trimmed()


@dataclass(frozen=True)
class Unfinished:
    """Why an item has no result: over a budget, its worker died, or the function raised."""

    reason: str
    budget_exceeded: bool = False


@dataclass(frozen=True)
class Budget:
    """Time limits: per item (from the moment a worker takes it) and for all items together; None is no limit."""

    item_s: float | None = None
    total_s: float | None = None


def map_within_budget(
    function: Callable[[Item], Result],
    items: Iterable[Item],
    *,
    fallback: Callable[[Item, Unfinished], Result],
    budget: Budget,
    workers: int,
    initializer: Callable[[], None] | None = None,
) -> Iterator[Result]:
    """``function`` over ``items`` on ``workers`` processes, in input order, a bounded number read ahead; ``fallback``
    stands in for an item that ran over ``budget``, whose worker died, or whose call raised. Once the total budget is
    spent, every remaining item gets the fallback without being started. ``function``, ``initializer`` and the items
    must be picklable (module-level): workers are fresh interpreters."""
    deadline = None if budget.total_s is None else time.monotonic() + budget.total_s
    window = max(1, workers) * _READ_AHEAD_PER_WORKER
    with worker_processes(workers, initializer) as pool:
        pending: deque[tuple[Item, Future | None]] = deque()
        for item in items:
            # Not started once the total budget is spent (the pool is stopped then, or about to be).
            started = pool.active and (deadline is None or time.monotonic() < deadline)
            future = pool.schedule(call_and_trim, (function, item), timeout=budget.item_s) if started else None
            pending.append((item, future))
            if len(pending) >= window:
                yield _outcome(pool, *pending.popleft(), fallback, budget, deadline)
        while pending:
            yield _outcome(pool, *pending.popleft(), fallback, budget, deadline)


def _outcome(pool: ProcessPool, item: Any, future: Future | None, fallback: Callable, budget: Budget,
             deadline: float | None) -> Any:
    """The item's result, or its fallback; once the total budget is spent, the pool is stopped."""
    remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
    if future is None or not wait([future], timeout=remaining).done:
        pool.stop()  # every running item is over the total budget too
        return fallback(item, Unfinished(f"budget exceeded: {budget.total_s:g} s in all", budget_exceeded=True))
    error = future.exception()
    if error is None:
        return future.result()
    return fallback(item, _why(error, budget))


def _why(error: BaseException, budget: Budget) -> Unfinished:
    if isinstance(error, TimeoutError) and not hasattr(error, "traceback"):  # pebble's own: the item's timeout
        return Unfinished(f"budget exceeded: {budget.item_s:g} s", budget_exceeded=True)
    if isinstance(error, ProcessExpired):
        return Unfinished(f"worker process died (exit code {error.exitcode})")
    return Unfinished(f"{type(error).__name__}: {error}")


class WorkerPool:
    """``size`` worker processes, stopped on leaving its ``with`` block (a busy one is killed)."""

    def __init__(self, size: int) -> None:
        self._stack = ExitStack()
        self._pool = self._stack.enter_context(worker_processes(size))
        self._room = max(1, size) * _QUEUED_PER_WORKER

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stack.close()

    def map(self, function: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterator[Any]:
        """``function`` (top-level, picklable) of each job, in the jobs' order."""
        pending: deque[Future] = deque()
        for job in jobs:
            pending.append(self._schedule(function, job))
            if len(pending) >= self._room:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())

    def map_unordered(self, function: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterator[Any]:
        """:meth:`map`'s results as they come, so a long job never holds the others back."""
        jobs = iter(jobs)
        running = {self._schedule(function, job) for job in islice(jobs, self._room)}
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            running |= {self._schedule(function, job) for job in islice(jobs, len(done))}
            yield from (_result(future) for future in done)

    def _schedule(self, function: Callable[[Any], Any], job: Any) -> Future:
        return self._pool.schedule(call_and_trim, (function, job))


def _result(future: Future) -> Any:
    """The job's value; a job that raised, or whose worker died, raises RuntimeError here."""
    error = future.exception()
    if error is not None:
        raise RuntimeError(f"a worker job failed: {type(error).__name__}: {error}") from error
    return future.result()
