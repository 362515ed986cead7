"""Processes of the pipeline hand freed memory back: Arrow allocates with malloc, polars' jemalloc keeps no pages."""

from __future__ import annotations

import os
import subprocess
import sys

_ALLOCATOR_VARIABLES = ("ARROW_DEFAULT_MEMORY_POOL", "_RJEM_MALLOC_CONF")


def _run(code: str, **environment: str) -> list[str]:
    """``code``'s output in a fresh interpreter: allocators are chosen once per process, when their library loads.
    The test session's own allocator settings are left out of its environment."""
    env = {key: value for key, value in os.environ.items() if key not in _ALLOCATOR_VARIABLES} | environment
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return done.stdout.split()


def test_importing_the_package_first_sets_both_allocators() -> None:
    code = (
        "import corpus_pipeline, os, pyarrow as pa, polars\n"
        "print(pa.default_memory_pool().backend_name, os.environ['_RJEM_MALLOC_CONF'])"
    )
    pool, jemalloc = _run(code)
    assert pool == "system"
    assert jemalloc.endswith(",dirty_decay_ms:0,muzzy_decay_ms:0")  # after polars' own defaults: jemalloc keeps the last


def test_a_users_own_allocator_settings_stand() -> None:
    code = "import corpus_pipeline, os, pyarrow as pa\nprint(pa.default_memory_pool().backend_name, os.environ['_RJEM_MALLOC_CONF'])"
    pool, jemalloc = _run(code, ARROW_DEFAULT_MEMORY_POOL="mimalloc", _RJEM_MALLOC_CONF="narenas:2")
    assert pool == "mimalloc"
    assert jemalloc == "narenas:2"


def test_the_code_location_sets_arrows_pool_even_when_pyarrow_was_loaded_first() -> None:
    code = (
        "import pyarrow as pa\n"
        "before = pa.default_memory_pool().backend_name\n"
        "import corpus_pipeline.definitions\n"
        "print(before, pa.default_memory_pool().backend_name)"
    )
    assert _run(code) == ["mimalloc", "system"]


def test_returning_freed_memory_keeps_live_buffers() -> None:
    code = (
        "import pyarrow as pa\n"
        "from corpus_pipeline.core.memory import return_freed_memory\n"
        "kept = pa.array([b'x' * 1000] * 1000)\n"
        "freed = pa.array([b'y' * 1000] * 1000)\n"
        "del freed\n"
        "return_freed_memory()\n"
        "print(kept[999].as_py() == b'x' * 1000, pa.total_allocated_bytes() >= 1_000_000)"
    )
    assert _run(code) == ["True", "True"]


def test_freed_memory_is_returned_once_the_process_has_grown(monkeypatch) -> None:
    from corpus_pipeline.core import memory

    trims: list[int] = []
    monkeypatch.setattr(memory, "malloc_trimmed", lambda: trims.append(1))
    monkeypatch.setattr(memory._trims, "lowest", 0)
    memory.return_freed_memory()
    assert len(trims) == 1  # the first call trims
    memory.return_freed_memory()
    assert len(trims) == 1  # nothing grew since
    held = [b"x" * 2**20 for _ in range(memory.TRIM_AFTER_GROWTH_BYTES // 2**20 + 8)]  # written: resident
    memory.return_freed_memory()
    assert len(trims) == 2
    del held


def test_the_loaded_code_location_is_out_of_the_garbage_collectors_rounds() -> None:
    # A run's process walks its hundreds of thousands of module objects no more at each full collection; what the run
    # makes afterwards is collected as usual.
    before, after, collected = _run(
        "import gc; before = gc.get_freeze_count(); import corpus_pipeline.definitions\n"
        "cycle = []; cycle.append(cycle); del cycle\n"
        "print(before, gc.get_freeze_count(), gc.collect())"
    )
    assert int(before) == 0 and int(after) > 50_000
    assert int(collected) >= 1
