"""The worker side of :mod:`corpus_pipeline.core.budget`: a process that runs one function over the items it is sent.

It is started as a plain interpreter (``python -c``, see ``budget.PipeWorker``) and talks to its parent over two
pipes whose descriptors it gets on its command line: items come in on one, results go back on the other, each
message a pickle with multiprocessing's length prefix. Nothing here uses multiprocessing's processes, queues or
locks, so the parent never starts multiprocessing's resource tracker (one more process, 13 MiB of RSS, for
as long as the parent lives).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from multiprocessing import spawn
from multiprocessing.connection import Connection

from corpus_pipeline.core.memory import malloc_trimmed

READY = (None, True, None)  # the first message of every worker: its start-up is over
PARENT_CHECK_S = 1.0  # how often an idle worker checks that its parent is still there
# A worker hands its free heap pages back every this many items: parsing left ~29 MiB free but held in a worker's
# heap after 400 Debian handbook pages. A trim takes ~2 ms, 5 % of a page's time when done after every page; one in
# 16 items kept the worker as small (219 MiB against 247) for 0.3 ms a page.
TRIM_EVERY_ITEMS = 16


def serve_pipes(tasks_fd: int, results_fd: int) -> None:
    """Run in a fresh worker process: set it up as the parent asked, then serve items until told to stop."""
    tasks = Connection(tasks_fd, writable=False)
    results = Connection(results_fd, readable=False)
    # What multiprocessing's "spawn" gives a worker (the parent's sys.path, working folder, and its __main__ script
    # run again as __mp_main__, so functions defined there resolve), applied before the function is unpickled.
    spawn.prepare(tasks.recv())
    function, initializer, parent = tasks.recv()
    serve(tasks, results, function, initializer, parent)


def serve(
    tasks: Connection, results: Connection, function: Callable, initializer: Callable[[], None] | None, parent: int
) -> None:
    """Answer each ``(index, item)`` message with ``(index, True, result)``, or ``(index, False, reason)`` when the
    call raised; stop at ``None``, at the end of the pipe, or when the parent is gone."""
    if initializer is not None:
        initializer()
    results.send(READY)
    done = 0
    while True:
        if not tasks.poll(PARENT_CHECK_S):
            if os.getppid() != parent:  # orphaned: nobody will read the results
                return
            continue
        try:
            message = tasks.recv()
        except EOFError:  # the parent closed its end: nothing more will come
            return
        if message is None:
            return
        done += 1
        if done % TRIM_EVERY_ITEMS == 0:
            malloc_trimmed()
        index, item = message
        try:
            outcome = (index, True, function(item))
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which records it for this item
            outcome = (index, False, f"{type(exc).__name__}: {exc}")
        try:
            results.send(outcome)
        except Exception as exc:  # noqa: BLE001 - a result that cannot be pickled
            results.send((index, False, f"result could not be sent back: {type(exc).__name__}: {exc}"))
