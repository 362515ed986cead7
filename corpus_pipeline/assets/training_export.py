"""training_export: the global corpus as a Hugging Face-ready dataset (sharded Parquet, JSONL.gz, dataset card)."""

from pathlib import Path

import dagster as dg
import polars as pl

from corpus_pipeline.assets.catalog import OFFLINE_TAGS, OWNERS, TRAINING_SET
from corpus_pipeline.assets.code_versions import training_export_version
from corpus_pipeline.assets.reporting import declared_metadata
from corpus_pipeline.core.warehouse import default_data_dir
from corpus_pipeline.lm.card import facts_from, render_card
from corpus_pipeline.lm.export import export_training_set, training_records
from corpus_pipeline.lm.global_dedup import global_corpus_path
from corpus_pipeline.lm.schema import EXPORT_SCHEMA
from corpus_pipeline.resources import ParquetWarehouse, WebsiteRegistry
from corpus_pipeline.training_resources import TrainingSetPolicy

DATASET_NAME = "corpus_pipeline training set"


@dg.asset(
    deps=["global_corpus"],
    group_name=TRAINING_SET.name,
    owners=OWNERS,
    tags=OFFLINE_TAGS,
    code_version=training_export_version(),
    kinds={"python", "parquet"},
    metadata={**declared_metadata(EXPORT_SCHEMA), **TRAINING_SET.metadata()},
)
def training_export(
    context: dg.AssetExecutionContext,
    training_policy: TrainingSetPolicy,
    websites: WebsiteRegistry,
    warehouse: ParquetWarehouse,
):
    """Sharded Parquet and JSONL.gz that `datasets.load_dataset` reads directly, PII replaced by placeholders (an
    option, on by default), and a dataset card from the run: websites, languages, counts, filters and effects."""
    store = warehouse.open()
    merged = pl.read_parquet(global_corpus_path(store.root))
    quality = pl.concat(
        [
            store.scan("corpus_quality", name).select("drop_reason").collect()
            for name in websites.load().names
            if store.exists("corpus_quality", name)
        ]
        or [pl.DataFrame(schema={"drop_reason": pl.String})]
    )
    exported, emails, ips = training_records(merged, training_policy.scrub_pii)
    dedup = {
        "kept by the quality filters": int(quality["drop_reason"].is_null().sum()),
        "merged: same content": _merged(merged, "same_content"),
        "merged: near duplicate": _merged(merged, "near_duplicate"),
        "exported": exported.height,
    }
    pii = {"scrubbed": training_policy.scrub_pii, "emails": emails, "ips": ips}
    card = render_card(facts_from(DATASET_NAME, training_policy.quality_policy(), quality, exported, dedup, pii))
    folder = Path(training_policy.export_dir or default_data_dir() / "export")
    summary = export_training_set(merged, folder, card, training_policy.shard_records, training_policy.scrub_pii)
    context.log.info(f"Exported {summary.records} records ({summary.words} words) to {folder}")
    return dg.MaterializeResult(
        metadata={
            "dagster/row_count": summary.records,
            "words": summary.words,
            "folder": dg.MetadataValue.path(str(folder)),
            "parquet_files": len(summary.parquet_files),
            "jsonl_files": len(summary.jsonl_files),
            "pii_emails_replaced": summary.pii_emails_replaced,
            "pii_ips_replaced": summary.pii_ips_replaced,
            "dataset_card": dg.MetadataValue.md(card),
        }
    )


def _merged(merged: pl.DataFrame, reason: str) -> int:
    is_reason = pl.col("merged_from").list.eval(pl.element().struct.field("reason") == reason)
    return int(merged.select(is_reason.list.sum().sum()).item() or 0)
