"""training_export: the global corpus as a Hugging Face-ready dataset (sharded Parquet, JSONL.gz, dataset card)."""

from pathlib import Path

import dagster as dg
import polars as pl

from corpus_pipeline.assets.catalog import TRAINING_SET
from corpus_pipeline.assets.code_versions import training_export_version
from corpus_pipeline.assets.global_corpus import ASSET as GLOBAL_CORPUS_ASSET
from corpus_pipeline.assets.publishing import asset_check_specs, publish_or_fail
from corpus_pipeline.lm.card import facts_from, render_card
from corpus_pipeline.lm.checks import COMPLETE_EXPORT, complete_export
from corpus_pipeline.lm.export import EXPORT_ASSET, mirror_export, training_records, write_export_records
from corpus_pipeline.lm.schema import EXPORT_SCHEMA
from corpus_pipeline.quality.checks import NOT_EMPTY, ROW_COUNT_VS_CURRENT, not_empty, row_count_vs_current
from corpus_pipeline.resources import ParquetWarehouse, WebsiteRegistry
from corpus_pipeline.training_resources import TrainingSetPolicy

ASSET = EXPORT_ASSET
DATASET_NAME = "corpus_pipeline training set"
CHECKS = (NOT_EMPTY, ROW_COUNT_VS_CURRENT, COMPLETE_EXPORT)


@dg.asset(
    deps=["global_corpus"],
    code_version=training_export_version(),
    check_specs=asset_check_specs(ASSET, CHECKS, partitioned=False),
    **TRAINING_SET.asset_options(EXPORT_SCHEMA),
)
def training_export(
    context: dg.AssetExecutionContext,
    training_policy: TrainingSetPolicy,
    websites: WebsiteRegistry,
    warehouse: ParquetWarehouse,
):
    """Sharded Parquet and JSONL.gz that `datasets.load_dataset` reads directly, PII replaced by placeholders (on by
    default), and a dataset card: websites, languages, counts, filters and effects. Each export is a version folder
    of the warehouse; `training_export/` is the current one."""
    store = warehouse.open()
    merged = store.scan_whole_asset(GLOBAL_CORPUS_ASSET).collect()
    quality = pl.concat(
        [
            store.scan("corpus_quality", name).select("drop_reason", "quality_error", "keep").collect()
            for name in websites.load().names
            if store.exists("corpus_quality", name)
        ]
        or [pl.DataFrame(schema={"drop_reason": pl.String, "quality_error": pl.String, "keep": pl.Boolean})]
    )
    exported, emails, ips = training_records(merged, training_policy.scrub_pii, training_policy.text_format)
    dedup = {
        "kept by the quality filters": int(quality["keep"].sum()),
        "merged: same content": _merged(merged, "same_content"),
        "merged: near duplicate": _merged(merged, "near_duplicate"),
        "exported": exported.height,
    }
    pii = {"scrubbed": training_policy.scrub_pii, "emails": emails, "ips": ips}
    card = render_card(facts_from(DATASET_NAME, training_policy.quality_policy(), quality, exported, dedup, pii))
    history = store.folder_history(ASSET)
    with history.lock():
        with history.new_folder(run_id=context.run.run_id) as version:
            summary = write_export_records(exported, version.path, card, training_policy.shard_records)
            version.rows = summary.records
        current = history.current()
        outcomes = [
            not_empty(summary.records, merged.height, what="records exported"),
            row_count_vs_current(
                summary.records, current.rows if current else None, warehouse.gate_policy(), what="records"
            ),
            complete_export(version.path, merged["id"]),
        ]
        metadata = {
            "dagster/row_count": summary.records,
            "words": summary.words,
            "parquet_files": len(summary.parquet_files),
            "jsonl_files": len(summary.jsonl_files),
            "pii_emails_replaced": emails,
            "pii_ips_replaced": ips,
            "dataset_card": dg.MetadataValue.md(card),
        }
        yield from publish_or_fail(history, version.version_id, outcomes, ASSET, lambda: metadata)
        context.log.info(f"Exported {summary.records} records ({summary.words} words) to {history.current_uri()}")
        if training_policy.export_dir:
            published = history.current_file()
            assert published is not None  # just published
            mirror_export(published, Path(training_policy.export_dir))
            context.log.info(f"Copied the export to {training_policy.export_dir}")


def _merged(merged: pl.DataFrame, reason: str) -> int:
    is_reason = pl.col("merged_from").list.eval(pl.element().struct.field("reason") == reason)
    return int(merged.select(is_reason.list.sum().sum()).item() or 0)
