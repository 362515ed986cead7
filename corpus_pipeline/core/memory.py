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
from types import SimpleNamespace


def arrow_allocations_returned_to_system() -> None:
    """Make Arrow allocate with malloc, not its mimalloc (which keeps freed buffers' pages for the process's life), in
    a process that imported pyarrow before ``corpus_pipeline`` (which sets ``ARROW_DEFAULT_MEMORY_POOL``)."""
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())


def loaded_code_frozen() -> None:
    """Take every object alive now out of the cyclic collector's rounds (``gc.freeze``): once the code location is
    loaded, its few hundred thousand objects live as long as the process; a cycle among them that becomes garbage
    later (code reloaded) is not collected."""
    import gc

    gc.freeze()


def return_freed_memory() -> None:
    """Give back to the system the free pages Arrow's pool and malloc keep after a stage's data is freed (glibc
    returns a page from the middle of its heap only when asked), once the process has grown by TRIM_AFTER_GROWTH_BYTES
    since the lowest seen since the last trim: a trim at every call would fault the pages in again."""
    resident = resident_bytes()
    if resident is not None:
        _trims.lowest = min(_trims.lowest, resident)
        if resident - _trims.lowest < TRIM_AFTER_GROWTH_BYTES:
            return
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    malloc_trimmed()
    _trims.lowest = resident_bytes() or 0


# Growth of resident memory above its lowest since the last trim that makes return_freed_memory trim: ten times
# fewer trims than at every call on an unchanged night's parse, for a peak within a few MiB.
TRIM_AFTER_GROWTH_BYTES = 32 * 2**20
_trims = SimpleNamespace(lowest=0)  # resident bytes: the least seen since the last trim (0 before the first: it trims)


def resident_bytes() -> int | None:
    """This process's resident memory (RSS) in bytes, from /proc (None where there is no /proc: macOS)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return None


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
