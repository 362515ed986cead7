"""How the pipeline's processes hand memory back to the system.

pyarrow is imported only by the functions that use it: parsing and OCR workers trim their heap with
:func:`malloc_trimmed` and must not load Arrow for it (~40 MiB of RSS).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Callable
from functools import cache


def arrow_allocations_returned_to_system() -> None:
    """Make Arrow allocate with the C library's malloc instead of its bundled mimalloc, in this process.

    mimalloc keeps the pages of freed Arrow buffers for reuse: a run that writes a crawl's bodies to Parquet and
    reads them back for the parse kept what every batch had used for the rest of its life. malloc maps large buffers
    one by one and unmaps them when freed, and :func:`return_freed_memory` gives back the rest. Importing
    ``corpus_pipeline`` before pyarrow already makes malloc Arrow's default (``ARROW_DEFAULT_MEMORY_POOL``); this
    covers a process that loaded pyarrow first, for what Arrow allocates on Python's behalf.
    """
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


def loaded_code_frozen() -> None:
    """Take every object alive now out of the cyclic garbage collector's rounds, in this process (``gc.freeze``).

    Called once the code location is loaded: Dagster's, Arrow's, polars' and the pipeline's modules are a few
    hundred thousand objects that live as long as the process, and every full round of the collector walked them
    again. An unchanged night of the Debian handbook (2,667 pages, everything kept) spent ~1 of its ~11 CPU s there.
    What they hold is still freed by reference counting; only a reference cycle among them that becomes garbage
    later (code reloaded in a long-lived process) is not collected.
    """
    import gc

    gc.freeze()


def return_freed_memory() -> None:
    """Give back to the system the free pages that Arrow's pool and malloc keep after a stage's data is freed, once
    the process has grown by TRIM_AFTER_GROWTH_BYTES since the lowest it was seen at since the last time.

    glibc's malloc returns a free page from the middle of its heap only when asked (``malloc_trim``): Python objects
    larger than 512 bytes, such as page bodies, come from that heap, and a site's worth of them leaves it holey. A
    trim gives back every free page, and the next allocations fault them in again, zeroed: trimmed after every row
    group and every 64 records, a night of the Debian handbook with nothing changed spent ~1 of its ~8 CPU s in page
    faults. What a skipped trim leaves held is less than TRIM_AFTER_GROWTH_BYTES.
    """
    resident = resident_bytes()
    if resident is not None:
        _trims.lowest = min(_trims.lowest, resident)
        if resident - _trims.lowest < TRIM_AFTER_GROWTH_BYTES:
            return
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    malloc_trimmed()
    _trims.lowest = resident_bytes() or 0


# return_freed_memory trims when the process's resident memory exceeds by this much the lowest it was at since the
# last trim. At 32 MiB, the parse step of an unchanged night of the Debian handbook (2,667 pages) trims ~12 times
# instead of ~120 (~1.8 -> ~1.6 CPU s), its peak RSS within a few MiB of what it was.
TRIM_AFTER_GROWTH_BYTES = 32 * 2**20


class _Trims:
    lowest = 0  # resident bytes: the least seen since the last trim (0 before the first: it trims)


_trims = _Trims()


def resident_bytes() -> int | None:
    """This process's resident memory (RSS) in bytes, from /proc (None where there is no /proc: macOS)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _page_size()
    except OSError:
        return None


@cache
def _page_size() -> int:
    return os.sysconf("SC_PAGE_SIZE")


def malloc_trimmed() -> None:
    """Hand glibc's free heap pages back to the system (nothing to do under another C library)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, None under another C library (musl, macOS), which has nothing like it to call."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
    except OSError:
        return None
    return getattr(libc, "malloc_trim", None)
