"""Incremental nights in Dagster terms: a night keeps what did not change since the current version (extract, pdf
and dedup reuse.py); a run tagged ``corpus_pipeline/full_night: true`` recomputes everything (after a change the code
version does not see: a model file swapped by hand, a suspicion).
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pyarrow as pa

from corpus_pipeline.core.versions import PartitionHistory

FULL_NIGHT_TAG = "corpus_pipeline/full_night"
_TRUE = ("true", "1", "yes")


def last_memo(context: dg.AssetExecutionContext, memo: PartitionHistory) -> Path | None:
    """The current file of a memo, what the last night learned (extract/reuse.py, pdf/reuse.py, dedup/reuse.py); none
    on a full night, which computes everything again."""
    if context.run.tags.get(FULL_NIGHT_TAG, "").strip().lower() in _TRUE:
        context.log.info(f"A full night ({FULL_NIGHT_TAG}): {memo.location()} is not read")
        return None
    return memo.current_file()


def asset_code_version(context: dg.AssetExecutionContext) -> str:
    """The code version of the asset being materialized, as its definition declares it."""
    return context.assets_def.code_versions_by_key.get(context.asset_key) or ""


def publish_memo_table(memo: PartitionHistory, table: pa.Table, run_id: str) -> None:
    """Make ``table`` the current version of a memo (pdf_memo, dedup_memo, corpus_memo, groups_memo)."""
    with memo.new_version(table.schema, run_id=run_id, drop_columns=()) as version:
        version.write_table(table)
    memo.publish(version.version_id)
