"""Run a function over many items in worker processes, with a time budget that can really stop an item.

Parsers and OCR engines run C code that no signal or thread can interrupt. The only sure way to stop an item
that runs over its budget is to kill the process doing it: each worker here is a process of its own (with its
own process group, so programs it started, such as Tesseract, die with it), and a worker that is killed, or
dies, is replaced so the remaining items go on. Results come back in input order, with a bounded number of
items read ahead.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import spawn
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

_QUEUED_PER_WORKER = 2  # the running item and the next, so a worker never waits for the parent
_READ_AHEAD_PER_WORKER = 32  # items read ahead of the oldest unfinished one: bounds memory, keeps workers busy


@contextmanager
def launcher_script_hidden() -> Iterator[None]:
    """While this block starts "spawn" or "forkserver" workers, they do not run the parent's launcher script.

    A spawned worker runs the parent's ``__main__`` file again (as ``__mp_main__``) before its function. When
    that file is a console-script launcher, such as the ``dagster`` command CI runs, it imports the whole CLI:
    under ``dagster job execute`` every parsing worker imported 868 modules it never uses, 57 MiB of RSS and
    about half a CPU second each. A launcher (a ``__main__`` run from a path without a ``.py`` suffix) only imports
    its package's ``main``, so hiding its path from the workers' start loses nothing. Scripts (``.py``) and
    ``python -m`` modules are left alone: they may define the functions a worker runs.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or getattr(main, "__spec__", None) is not None or not isinstance(path, str) or path.endswith(
        (".py", ".pyw")
    ):
        yield
        return
    del main.__file__  # multiprocessing.spawn reads the main module's path here, when each worker starts
    try:
        yield
    finally:
        main.__file__ = path


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
    start_method: str | None = None,
) -> Iterator[Result]:
    """``function`` over ``items`` on ``workers`` processes, in input order; ``fallback`` stands in for an item
    that ran over ``budget``, whose worker died, or whose call raised. Once the total budget is spent, every
    remaining item gets the fallback without being started.

    Each worker is a fresh interpreter, as with multiprocessing's ``"spawn"`` (the only ``start_method`` there
    is, the argument is kept for callers that name it): it imports only what ``function`` needs instead of sharing
    the parent's memory, so ``function``, ``initializer`` and the items must be picklable, and module-level."""
    if start_method not in (None, "spawn"):
        raise ValueError(f"workers start as fresh interpreters (spawn), not {start_method!r}")
    pool = _WorkerPool(function, max(1, workers), initializer)
    try:
        yield from _Schedule(pool, iter(items), fallback, budget, max(1, workers) * _READ_AHEAD_PER_WORKER).run()
    finally:
        pool.close()


class PipeWorker:
    """One fresh interpreter taking items from a pipe and sending results back over another.

    Two items are queued per worker, so it starts the next one without waiting for the parent to wake up (on a
    loaded machine that wait cost a fifth of the throughput); a feeder thread writes them, so the parent never
    blocks on a large item while the worker is busy. The worker is started with :mod:`subprocess`, not
    multiprocessing: a multiprocessing worker, queue or lock starts multiprocessing's resource tracker, one more
    process of 13 MiB for as long as the parent lives (the whole Dagster run), which these workers never need.
    """

    def __init__(self, function: Callable, initializer: Callable[[], None] | None) -> None:
        tasks_read, tasks_write = os.pipe()
        results_read, results_write = os.pipe()
        command = _WORKER_COMMAND.format(root=_PACKAGE_ROOT, tasks=tasks_read, results=results_write)
        try:
            # Its own process group (set before the interpreter starts), so a kill reaches what it started too.
            self.process = subprocess.Popen(
                [sys.executable, "-c", command],
                pass_fds=(tasks_read, results_write),
                stdin=subprocess.DEVNULL,
                process_group=0,
            )
        except BaseException:
            for fd in (tasks_write, results_read):
                os.close(fd)
            raise
        finally:
            os.close(tasks_read)
            os.close(results_write)
        self.connection = Connection(results_read, writable=False)
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._feeder = threading.Thread(
            target=_feed, args=(self._outbox, Connection(tasks_write, readable=False)), name=FEEDER_THREAD, daemon=True
        )
        self._feeder.start()
        with launcher_script_hidden():  # what multiprocessing's spawn would tell the worker, the launcher left out
            preparation = spawn.get_preparation_data("corpus_pipeline worker")
        preparation.pop("authkey", None)  # for multiprocessing's own connections, which these workers do not make
        self._send(preparation)
        self._send((function, initializer, os.getpid()))
        self.queued: deque[int] = deque()  # indices given to this worker; the first is running
        self.started = 0.0  # when the first of them started (as far as the parent can tell)
        # A new process starts and runs its initializer before its first item: on a loaded machine that can take
        # seconds, which are not the item's. The clock of the first item starts when the worker says it is ready.
        self.ready = False

    def mark_ready(self) -> None:
        """The worker process is up and waits for (or has begun) its first item."""
        self.ready = True
        self.started = time.monotonic()

    @property
    def index(self) -> int | None:
        """The item running now, if any."""
        return self.queued[0] if self.queued else None

    @property
    def exit_code(self) -> int | None:
        """The worker's exit code once it has ended (minus the signal's number when a signal ended it)."""
        try:
            return self.process.wait(timeout=_EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            return None

    def take(self, index: int, item: object) -> None:
        self._send((index, item))
        if not self.queued and self.ready:
            self.started = time.monotonic()
        self.queued.append(index)

    def finished(self, index: int) -> None:
        """The running item sent its result: the next queued one has started."""
        self.queued.remove(index)
        self.started = time.monotonic()

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            self.process.kill()
        self.process.wait()
        self._close()

    def stop(self) -> None:
        """Ask an idle worker to leave; kill a busy one."""
        if self.queued:
            self.kill()
            return
        self._send(None)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return
        self._close()

    def _send(self, message: object) -> None:
        # Pickled here, so an item that cannot be pickled fails in the caller, not silently in the feeder.
        self._outbox.put(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))

    def _close(self) -> None:
        """End the feeder (its writes to a dead worker fail at once; what is still queued is dropped)."""
        self._outbox.put(None)
        self._feeder.join(timeout=_EXIT_WAIT_S)
        self.connection.close()


FEEDER_THREAD = "WorkerFeederThread"
_EXIT_WAIT_S = 5.0  # a worker that closed its pipe, or was killed, has ended within this
# The worker's interpreter finds this package where the parent found it (PYTHONPATH may say otherwise), then takes
# the parent's whole sys.path from the preparation data before it unpickles the function.
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
_WORKER_COMMAND = (
    "import sys; sys.path.insert(0, {root!r}); "
    "from corpus_pipeline.core.worker_process import serve_pipes; serve_pipes({tasks}, {results})"
)


def _feed(outbox: queue.SimpleQueue[bytes | None], tasks: Connection) -> None:
    """Write the worker's messages in order until told to stop; a worker gone (killed, died) ends it early."""
    try:
        while (data := outbox.get()) is not None:
            tasks.send_bytes(data)
    except OSError:
        pass
    finally:
        tasks.close()


class _WorkerPool:
    def __init__(
        self, function: Callable, size: int, initializer: Callable[[], None] | None
    ) -> None:
        self._function, self._initializer = function, initializer
        self.workers = [PipeWorker(function, initializer) for _ in range(size)]

    def replace(self, worker: PipeWorker) -> None:
        """Kill a worker (and what it started) and put a fresh one in its place."""
        worker.kill()
        self.workers[self.workers.index(worker)] = PipeWorker(self._function, self._initializer)

    def free_places(self) -> list[PipeWorker]:
        """Workers that can queue one more item, the least loaded first."""
        open_workers = [worker for worker in self.workers if len(worker.queued) < _QUEUED_PER_WORKER]
        return sorted(open_workers, key=lambda worker: len(worker.queued))

    def busy(self) -> list[PipeWorker]:
        return [worker for worker in self.workers if worker.index is not None]

    def close(self) -> None:
        for worker in self.workers:
            worker.stop()


class _Schedule:
    """Feeds items to the pool, enforces the budgets, and hands results back in input order."""

    def __init__(self, pool: _WorkerPool, items: Iterator, fallback: Callable, budget: Budget, read_ahead: int):
        self.pool, self.items, self.fallback, self.budget, self.read_ahead = pool, items, fallback, budget, read_ahead
        self.waiting: list[tuple[int, object]] = []  # read, not yet given to a worker
        self.taken: dict[int, object] = {}  # given to a worker, no result yet
        self.results: dict[int, object] = {}
        self.next_in = self.next_out = 0
        self.exhausted = False
        self.deadline = time.monotonic() + budget.total_s if budget.total_s is not None else None

    def run(self) -> Iterator:
        while True:
            self._read_ahead()
            if self.deadline is not None and time.monotonic() >= self.deadline:
                self._abandon_the_rest()
            else:
                self._dispatch()
            while self.next_out in self.results:
                yield self.results.pop(self.next_out)
                self.next_out += 1
            if self.exhausted and self.next_out == self.next_in:
                return
            if self.pool.busy():
                self._collect()

    def _read_ahead(self) -> None:
        while not self.exhausted and self.next_in - self.next_out < self.read_ahead:
            try:
                item = next(self.items)
            except StopIteration:
                self.exhausted = True
                return
            self.waiting.append((self.next_in, item))
            self.next_in += 1

    def _dispatch(self) -> None:
        while self.waiting and (places := self.pool.free_places()):
            index, item = self.waiting.pop(0)
            self.taken[index] = item
            places[0].take(index, item)

    def _collect(self) -> None:
        busy = self.pool.busy()
        ready = wait([worker.connection for worker in busy], timeout=self._next_timeout(busy))
        for worker in busy:
            if worker.connection in ready:
                self._receive(worker)
        if self.budget.item_s is None:
            return
        now = time.monotonic()
        for worker in self.pool.busy():
            if worker.ready and now - worker.started >= self.budget.item_s:
                self._give_up(worker, Unfinished(f"budget exceeded: {self.budget.item_s:g} s", budget_exceeded=True))

    def _next_timeout(self, busy: list[PipeWorker]) -> float | None:
        timed = [worker for worker in busy if worker.ready]
        limits = [worker.started + self.budget.item_s for worker in timed] if self.budget.item_s is not None else []
        if self.deadline is not None:
            limits.append(self.deadline)
        return max(0.0, min(limits) - time.monotonic()) if limits else None

    def _receive(self, worker: PipeWorker) -> None:
        try:
            index, succeeded, value = worker.connection.recv()
        except (EOFError, OSError):
            self._give_up(worker, Unfinished(f"worker process died (exit code {worker.exit_code})"))
            return
        if index is None:  # the READY message
            worker.mark_ready()
            return
        worker.finished(index)
        item = self.taken.pop(index)
        self.results[index] = value if succeeded else self.fallback(item, Unfinished(value))

    def _give_up(self, worker: PipeWorker, why: Unfinished) -> None:
        """Replace the worker; its running item gets the fallback, the items queued behind it go back to wait."""
        running, *queued = worker.queued
        self.pool.replace(worker)
        self.results[running] = self.fallback(self.taken.pop(running), why)
        self.waiting[:0] = [(index, self.taken.pop(index)) for index in queued]

    def _abandon_the_rest(self) -> None:
        why = Unfinished(f"budget exceeded: {self.budget.total_s:g} s in all", budget_exceeded=True)
        for worker in self.pool.busy():
            self._give_up(worker, why)
        for index, item in self.waiting:
            self.results[index] = self.fallback(item, why)
        self.waiting.clear()
