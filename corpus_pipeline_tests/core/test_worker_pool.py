"""Kept worker processes: several maps on the same workers, in order or as they come."""

import math
import os

import pytest

from corpus_pipeline.core.budget import WorkerPool


def test_one_pool_serves_several_maps_in_order_and_as_they_come():
    with WorkerPool(2) as pool:
        assert list(pool.map(math.factorial, [30, 3, 200, 0, 7])) == [math.factorial(n) for n in [30, 3, 200, 0, 7]]
        assert list(pool.map(str.upper, ["é", "a"])) == ["É", "A"]  # another function, the same workers
        assert sorted(pool.map_unordered(abs, range(-50, 50))) == sorted(abs(n) for n in range(-50, 50))
        pids = set(pool.map(_pid, range(40)))
    assert len(pids) <= 2 and os.getpid() not in pids


def test_a_failing_job_raises_in_the_caller():
    with WorkerPool(2) as pool, pytest.raises(RuntimeError, match="ZeroDivisionError"):
        list(pool.map(_inverse, [1, 2, 0, 4]))


def _pid(_: int) -> int:
    return os.getpid()


def _inverse(number: int) -> float:
    return 1 / number
