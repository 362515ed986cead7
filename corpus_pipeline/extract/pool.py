"""Mapping a function over a stream of pages on worker processes, in order, in bounded memory."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from typing import TypeVar

from corpus_pipeline.core.budget import launcher_script_hidden

Item = TypeVar("Item")
Result = TypeVar("Result")

WINDOW_PER_WORKER = 64
# Fresh interpreters rather than forks of the caller, for the reason given at extract.page.WORKER_START_METHOD:
# a fork of a Dagster step maps its ~260 MiB again in every worker's RSS.
START_METHOD = "spawn"


def map_in_windows(function: Callable[[Item], Result], items: Iterable[Item], workers: int) -> Iterator[Result]:
    """``map(function, items)`` on ``workers`` processes (in this process when ``workers <= 1``), results in order.

    Items are submitted one window at a time: a pool's map would otherwise read the whole website ahead.
    ``function`` must be module-level (workers are spawned, see ``START_METHOD``).
    """
    if workers <= 1:
        yield from map(function, items)
        return
    iterator = iter(items)
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(START_METHOD)) as pool:
        while window := list(islice(iterator, workers * WINDOW_PER_WORKER)):
            with launcher_script_hidden():  # the pool starts its workers as items are submitted
                results = pool.map(function, window, chunksize=8)
            yield from results
