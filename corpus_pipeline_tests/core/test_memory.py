"""Processes that load the code location allocate Arrow buffers with malloc, which gives them back."""

from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_loading_the_code_location_makes_arrow_allocate_with_malloc() -> None:
    # A fresh interpreter (with the session's registry in its environment): the pool is a process setting.
    code = (
        "import pyarrow as pa\n"
        "before = pa.default_memory_pool().backend_name\n"
        "import corpus_pipeline.definitions\n"
        "print(before, pa.default_memory_pool().backend_name)"
    )
    before, after = _run(code).split()
    assert before != "system"
    assert after == "system"


def test_returning_freed_memory_keeps_live_buffers() -> None:
    code = (
        "import pyarrow as pa\n"
        "from corpus_pipeline.core.memory import arrow_allocations_returned_to_system, return_freed_memory\n"
        "arrow_allocations_returned_to_system()\n"
        "kept = pa.array([b'x' * 1000] * 1000)\n"
        "freed = pa.array([b'y' * 1000] * 1000)\n"
        "del freed\n"
        "return_freed_memory()\n"
        "print(kept[999].as_py() == b'x' * 1000, pa.total_allocated_bytes() >= 1_000_000)"
    )
    assert _run(code).split() == ["True", "True"]
