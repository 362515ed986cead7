"""corpus: the final deduplicated corpus of a website."""

import time
from pathlib import Path
from typing import Any

import dagster as dg

from corpus_pipeline.assets.catalog import DEDUP
from corpus_pipeline.assets.code_versions import corpus_version
from corpus_pipeline.assets.incremental import asset_code_version, last_memo, publish_memo_table
from corpus_pipeline.assets.publishing import asset_check_specs, judged_file, publish_if_good
from corpus_pipeline.core.memory import return_freed_memory
from corpus_pipeline.core.schema import CORPUS_SCHEMA
from corpus_pipeline.core.versions import VersionWriter
from corpus_pipeline.dedup.reuse import (
    CORPUS_MEMO,
    DEDUP_MEMO,
    DedupMemo,
    dedup_memo,
    inputs_key,
    kept_version_counts,
    memo_table,
)
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.quality.checks import NOT_EMPTY, ROW_COUNT_VS_CURRENT
from corpus_pipeline.quality.records import (
    NO_EMPTY_CONTENT,
    NO_IGNORED_URLS,
    UNIQUE_CANONICAL_URLS,
    judge_records,
    no_empty_content,
    no_ignored_urls,
    unique_canonical_urls,
)
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse

ASSET = "corpus"
PREVIEW = ["url", "title", "lang", "kind", "content"]
CHECKS = (NOT_EMPTY, ROW_COUNT_VS_CURRENT, UNIQUE_CANONICAL_URLS, NO_IGNORED_URLS, NO_EMPTY_CONTENT)


@dg.asset(
    partitions_def=website_partitions,
    deps=["canonical_url_groups"],
    code_version=corpus_version(),
    check_specs=asset_check_specs(ASSET, CHECKS),
    **DEDUP.asset_options(CORPUS_SCHEMA),
)
def corpus(
    context: dg.AssetExecutionContext,
    crawler_config: CrawlerConfig,
    warehouse: ParquetWarehouse,
):
    """One record per unique text: exact and near duplicates merged, each merge listed in `absorbed`."""
    store = warehouse.open()
    website = context.partition_key
    groups = store.scan("canonical_url_groups", website).collect()
    inputs = groups.height
    settings = f"{asset_code_version(context)}|{crawler_config.near_duplicate_threshold!r}"
    with (
        store.history(ASSET, website).lock() as history,
        store.history(CORPUS_MEMO, website).lock() as memo,
        store.history(DEDUP_MEMO, website).lock() as dedup_history,
    ):
        # Deduplication is a function of its input: a night whose records are the current corpus's keeps it.
        key = inputs_key(groups, settings)
        current, standing = history.current_file(), history.current()
        kept = kept_version_counts(last_memo(context, memo), standing.id if standing else None, key)
        judged: VersionWriter | Path
        metadata: dict[str, Any]
        if kept is not None and current is not None:
            context.log.info(f"dedup: the {inputs:,} records are those of the current version: kept")
            del groups
            judged, metadata = current, {**kept, "dedup_reused": True}
        else:
            # Imported when used: a night that keeps its corpus needs none of the deduplication's modules.
            from corpus_pipeline.dedup.corpus import deduplicate

            # What the last deduplication learned of its texts and pairs spares their keys and verifications.
            started = time.monotonic()
            last = dedup_memo(last_memo(context, dedup_history), settings)
            learned = DedupMemo({}, {})
            context.log.info(
                f"dedup: {inputs:,} records, exact then near duplicates"
                + (f" ({len(last.keys):,} texts and {len(last.scores):,} pairs known)" if last else "")
            )
            records, counts = deduplicate(
                groups, threshold=crawler_config.near_duplicate_threshold, workers=crawler_config.workers,
                log=context.log.info, memo=last, learned=learned,
            )
            publish_memo_table(dedup_history, learned.table(settings), context.run.run_id)
            known = {
                "dedup_texts_known": sum(text in last.keys for text in learned.keys) if last else 0,
                "dedup_pairs_known": sum(last.score(*pair) is not None for pair in learned.scores) if last else 0,
            }
            seconds = time.monotonic() - started
            rate = inputs / max(seconds, 1e-9)
            context.log.info(f"dedup: {inputs:,} records -> {records.height:,} in {seconds:.1f} s ({rate:.0f}/s)")
            with history.new_version(CORPUS_SCHEMA, run_id=context.run.run_id) as judged:
                judged.write_frame(records)
            publish_memo_table(memo, memo_table(key, judged.version_id, counts), context.run.run_id)
            del records, groups
            return_freed_memory()  # every text of the website went through this process as Python objects
            metadata = {**counts, **known, "dedup_records_per_s": round(rate, 1), "dedup_reused": False}
        path = judged_file(judged)
        outcomes = judge_records(path, current, inputs, warehouse.gate_policy(), with_errors=False)
        outcomes += [unique_canonical_urls(path), no_ignored_urls(path, crawler_config.urls_to_ignore),
                     no_empty_content(path)]
        yield from publish_if_good(context, history, judged, outcomes, CORPUS_SCHEMA, PREVIEW, metadata)
