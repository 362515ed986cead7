"""Worker processes kept for several maps: :mod:`corpus_pipeline.core.budget`'s pipe workers, without a time budget.

The corpus stage maps two functions over its texts (content keys and signatures, then verification blocks), and
starting workers twice would import their modules twice. multiprocessing's ``ProcessPoolExecutor`` would keep them,
but it starts multiprocessing's resource tracker, one more process of 13 MiB while the stage runs (where the Dagster
job peaks); these workers are plain interpreters talking over pipes, as parsing's are. Each job is a function and its
argument, so one set of workers serves any map.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from multiprocessing.connection import wait
from typing import Any

from corpus_pipeline.core.budget import PipeWorker

_QUEUED_PER_WORKER = 2  # the running job and the next, so a worker never waits for this process


class WorkerPool:
    """``size`` worker processes, started at once, stopped by :meth:`close` (or leaving a ``with`` block)."""

    def __init__(self, size: int) -> None:
        self._workers: list[PipeWorker] = []
        try:
            for _ in range(size):
                self._workers.append(PipeWorker(_call, None))
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker (a busy one is killed)."""
        for worker in self._workers:
            worker.stop()
        self._workers = []

    def map_unordered(self, function: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterator[Any]:
        """``function`` (top-level, picklable) of each job, as the results come; a job is given to a worker as
        soon as it has room (two jobs queued at most), so a long job never holds the others back, and jobs are
        read (their texts pickled) only then."""
        return (value for _, value in self._numbered_results(function, jobs))

    def map(self, function: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterator[Any]:
        """:meth:`map_unordered`'s results in the jobs' order."""
        early: dict[int, Any] = {}
        expected = 0
        for index, value in self._numbered_results(function, jobs):
            early[index] = value
            while expected in early:
                yield early.pop(expected)
                expected += 1

    def _numbered_results(self, function: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        pending = iter(enumerate(jobs))
        for worker in self._workers:
            self._feed(worker, function, pending)
        while busy := [worker for worker in self._workers if worker.queued]:
            for connection in wait([worker.connection for worker in busy]):
                worker = next(worker for worker in busy if worker.connection is connection)
                result = self._receive(worker)
                if result is not None:
                    yield result
                    self._feed(worker, function, pending)

    def _feed(self, worker: PipeWorker, function: Callable[[Any], Any], pending: Iterator[tuple[int, Any]]) -> None:
        for index, job in islice(pending, _QUEUED_PER_WORKER - len(worker.queued)):
            worker.take(index, (function, job))

    def _receive(self, worker: PipeWorker) -> tuple[int, Any] | None:
        """The worker's next message: a job's index and result, or None for its start-up message."""
        try:
            index, succeeded, value = worker.connection.recv()
        except (EOFError, OSError) as error:
            raise RuntimeError(f"a worker process died (exit code {worker.exit_code})") from error
        if index is None:
            worker.mark_ready()
            return None
        worker.finished(index)
        if not succeeded:
            raise RuntimeError(f"a worker job failed: {value}")
        return index, value


def _call(job: tuple[Callable[[Any], Any], Any]) -> Any:
    function, argument = job
    return function(argument)
