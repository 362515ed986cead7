"""Mapping a function over a stream of pages on worker processes, in order, in bounded memory."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

WINDOW_PER_WORKER = 64


def map_in_windows(function: Callable[[Item], Result], items: Iterable[Item], workers: int) -> Iterator[Result]:
    """``map(function, items)`` on ``workers`` processes (in this process when ``workers <= 1``), results in order.

    Items are submitted one window at a time: a pool's map would otherwise read the whole website ahead.
    """
    if workers <= 1:
        yield from map(function, items)
        return
    iterator = iter(items)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        while window := list(islice(iterator, workers * WINDOW_PER_WORKER)):
            yield from pool.map(function, window, chunksize=8)
