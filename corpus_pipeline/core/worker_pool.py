"""Worker processes kept for several maps: :func:`corpus_pipeline.core.budget.worker_processes`, without a time budget.

The corpus stage maps two functions over its texts (content keys and signatures, then verification blocks), and
starting workers twice would import their modules twice. Jobs are read (their texts pickled) only as workers have
room for them, two per worker, so the texts of every job are never held twice at once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from contextlib import ExitStack
from itertools import islice
from typing import Any

from corpus_pipeline.core.budget import call_and_trim, worker_processes

_QUEUED_PER_WORKER = 2  # the running job and the next, so a worker never waits for this process


class WorkerPool:
    """``size`` worker processes, stopped by :meth:`close` (or leaving a ``with`` block)."""

    def __init__(self, size: int) -> None:
        self._stack = ExitStack()
        self._pool = self._stack.enter_context(worker_processes(size))
        self._room = max(1, size) * _QUEUED_PER_WORKER

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker (a busy one is killed)."""
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
