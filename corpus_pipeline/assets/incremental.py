"""Incremental nights in Dagster terms: the run tag that forces a full night, and the parse memo's versions.

By default a night keeps what did not change since the current version (extract/reuse.py, pdf/reuse.py); a run
tagged ``corpus_pipeline/full_night: true`` recomputes everything (after a change the code version does not see:
a model file swapped by hand, a suspicion).
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pyarrow as pa

from corpus_pipeline.core.registry import Website
from corpus_pipeline.core.versions import PartitionHistory
from corpus_pipeline.dedup.reuse import DedupMemo, dedup_memo, kept_version_counts
from corpus_pipeline.extract.page_input import ExtractionBudget
from corpus_pipeline.extract.reuse import MEMO_SCHEMA, LastNight, write_memo
from corpus_pipeline.pdf.reuse import LastPdfs

FULL_NIGHT_TAG = "corpus_pipeline/full_night"
_TRUE = ("true", "1", "yes")


def full_night(context: dg.AssetExecutionContext) -> bool:
    """Whether the run asks for a full night: every page parsed and every PDF read again."""
    return context.run.tags.get(FULL_NIGHT_TAG, "").strip().lower() in _TRUE


def parse_inputs(context: dg.AssetExecutionContext, website: Website, budget: ExtractionBudget) -> str:
    """What every page's parse depends on besides the page and the website's template: the code and settings of
    the extraction (the asset's code version, this run's budget) and the website's registry entry.

    The code version is the one the code location computed when it loaded, the code this run executes (computing it
    again would read source files that may have changed on disk since).
    """
    return f"{asset_code_version(context)}|{budget!r}|{website!r}"


def asset_code_version(context: dg.AssetExecutionContext) -> str:
    """The code version of the asset being materialized, as its definition declares it."""
    return context.assets_def.code_versions_by_key.get(context.asset_key) or ""


def open_last_night(
    context: dg.AssetExecutionContext, history: PartitionHistory, memo: PartitionHistory, current_file: Path | None
) -> LastNight:
    """What the current parsed_pages version (``current_file``, from ``history.current_file()``: read once, for it
    is verified, and a damaged one logged, at each call) and its memo offer this night; nothing on a first or a full
    night."""
    if full_night(context):
        context.log.info(f"A full night ({FULL_NIGHT_TAG}): every page is parsed again")
        return LastNight()
    current = history.current()
    return LastNight.open(
        memo.current_file(), current_file, current.id if current else None, context.partition_key
    )


def publish_memo(memo: PartitionHistory, scratch: Path, records_version: str, kinds_key: bytes, run_id: str) -> None:
    """Make the memo of the night whose files are in ``scratch`` current, describing the parsed_pages version
    ``records_version`` (and what its page-kind pass read, ``kinds_key``).

    Published whether or not that version is: a memo describing a version that is not current offers its pages'
    survey facts, never their records (LastNight.open).
    """
    with memo.new_version(MEMO_SCHEMA, run_id=run_id, drop_columns=()) as version:
        write_memo(scratch, version, records_version, kinds_key)
    memo.publish(version.version_id)


def open_last_pdfs(
    context: dg.AssetExecutionContext, history: PartitionHistory, memo: PartitionHistory, current_file: Path | None
) -> LastPdfs:
    """What the current pdf_documents version (``current_file``, see :func:`open_last_night`) and its memo offer this
    night; nothing on a first or a full night."""
    if full_night(context):
        context.log.info(f"A full night ({FULL_NIGHT_TAG}): every PDF is read again")
        return LastPdfs()
    current = history.current()
    return LastPdfs.open(memo.current_file(), current_file, current.id if current else None)


def kept_counts(
    context: dg.AssetExecutionContext, history: PartitionHistory, memo: PartitionHistory, key: bytes,
    version_column: str = "corpus_version",
) -> dict[str, int] | None:
    """The counts of the current version when its memo says it was computed from records whose key is ``key``
    (dedup/reuse.py: corpus, canonical_url_groups): the night keeps it. None otherwise, and on a full night."""
    if full_night(context):
        return None
    current = history.current()
    return kept_version_counts(memo.current_file(), current.id if current else None, key, version_column)


def open_dedup_memo(context: dg.AssetExecutionContext, memo: PartitionHistory, settings: str) -> DedupMemo | None:
    """What the last deduplication learned of its texts and pairs (dedup/reuse.py), when it ran with ``settings``;
    None on a full night."""
    if full_night(context):
        return None
    return dedup_memo(memo.current_file(), settings)


def publish_memo_table(memo: PartitionHistory, table: pa.Table, run_id: str) -> None:
    """Make ``table`` the current version of a memo (pdf_memo, dedup_memo, corpus_memo, groups_memo; see
    :func:`publish_memo`)."""
    with memo.new_version(table.schema, run_id=run_id, drop_columns=()) as version:
        version.write_table(table)
    memo.publish(version.version_id)
