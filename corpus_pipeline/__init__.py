"""corpus_pipeline: websites to deduplicated text corpora, as Dagster assets.

Importing the package sets (unless set) how polars' and Arrow's allocators hand freed memory back: both read these
variables once, when they load, so before any module imports them; spawned workers inherit them (core.memory).
"""

import os

# polars' jemalloc keeps freed pages for 0.5 to 1 s (polars' own setting, which ours, appended, overrides): a step
# that builds and drops a few frames of a website's texts within that time would hold them all.
os.environ.setdefault("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")
# Arrow's bundled mimalloc keeps the pages of freed buffers for reuse; the C library's malloc unmaps large ones.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
