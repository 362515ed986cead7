"""Mapping a function over a stream of pages on worker processes, in order, in bounded memory."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import NoReturn, TypeVar

from corpus_pipeline.core.budget import Budget, Unfinished, map_within_budget

Item = TypeVar("Item")
Result = TypeVar("Result")


class WorkerError(RuntimeError):
    """An item's call raised in a worker process, or its worker died."""


def map_in_windows(function: Callable[[Item], Result], items: Iterable[Item], workers: int) -> Iterator[Result]:
    """``map(function, items)`` on ``workers`` processes (in this process when ``workers <= 1``), results in order.

    The workers are :func:`map_within_budget`'s without a time budget: fresh interpreters (a fork of a Dagster step
    would map its ~260 MiB again in every worker) reading a bounded number of items ahead. ``function`` must be
    module-level. An item whose call raised, or whose worker died, raises :class:`WorkerError` here.
    """
    if workers <= 1:
        yield from map(function, items)
        return
    yield from map_within_budget(function, items, fallback=_raise, budget=Budget(), workers=workers)


def _raise(item: object, why: Unfinished) -> NoReturn:
    raise WorkerError(why.reason)
