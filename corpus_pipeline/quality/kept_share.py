"""Check of a new corpus_quality version: did the share of records kept fall sharply from the current one?"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from corpus_pipeline.quality.checks import CheckOutcome, CheckSpec

# A kept share halved overnight likelier means a changed template (or broken extraction) than worse prose.
DEFAULT_MAX_KEPT_SHARE_DROP = 0.5

KEPT_SHARE_VS_CURRENT = CheckSpec(
    "kept_share_vs_current",
    "The share of records the quality policy keeps is at least (1 - max_kept_share_drop) of the current version's.",
)


def kept_share(path: Path) -> float | None:
    """Share of a corpus_quality file's records that are kept; None for an empty file."""
    counted = pl.scan_parquet(path).select(pl.len().alias("records"), pl.col("keep").sum().alias("kept")).collect()
    records, kept = counted.row(0)
    return kept / records if records else None


def kept_share_vs_current(
    candidate: Path, current: Path | None, max_drop: float = DEFAULT_MAX_KEPT_SHARE_DROP
) -> CheckOutcome:
    """Passes on a first version, an empty one, or when the kept share fell by at most ``max_drop`` (relative)."""
    new = kept_share(candidate)
    old = kept_share(current) if current is not None else None
    metadata = {"kept_share": round(new or 0.0, 4), "current_kept_share": round(old or 0.0, 4)}
    if new is None or not old:
        return CheckOutcome(KEPT_SHARE_VS_CURRENT, True, metadata)
    drop = max(0.0, 1 - new / old)
    passed = drop <= max_drop
    cause = None if passed else (
        f"{new:.0%} of records kept, down {drop:.0%} from {old:.0%} in the current version "
        f"(max_kept_share_drop {max_drop:.0%})"
    )
    return CheckOutcome(KEPT_SHARE_VS_CURRENT, passed, {**metadata, "drop_share": round(drop, 4)}, cause)
