"""global_corpus: the kept records of every website, exact and near duplicates removed across websites."""

import dagster as dg
import polars as pl

from corpus_pipeline.assets.catalog import TRAINING_SET, partition_metadata
from corpus_pipeline.assets.code_versions import global_corpus_version
from corpus_pipeline.assets.publishing import asset_check_specs, publish_or_fail
from corpus_pipeline.lm.checks import UNIQUE_IDS, unique_ids
from corpus_pipeline.lm.schema import GLOBAL_CORPUS_SCHEMA
from corpus_pipeline.quality.checks import NOT_EMPTY, ROW_COUNT_VS_CURRENT, not_empty, row_count_vs_current
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
from corpus_pipeline.training_resources import TrainingSetPolicy

ASSET = "global_corpus"
PREVIEW = ["website", "url", "lang", "words", "merged_from"]
CHECKS = (NOT_EMPTY, ROW_COUNT_VS_CURRENT, UNIQUE_IDS)


@dg.asset(
    deps=[dg.AssetDep("corpus_quality", partition_mapping=dg.AllPartitionMapping())],
    code_version=global_corpus_version(),
    check_specs=asset_check_specs(ASSET, CHECKS, partitioned=False),
    **TRAINING_SET.asset_options(GLOBAL_CORPUS_SCHEMA),
)
def global_corpus(
    context: dg.AssetExecutionContext,
    training_policy: TrainingSetPolicy,
    crawler_config: CrawlerConfig,
    websites: WebsiteRegistry,
    warehouse: ParquetWarehouse,
):
    """Kept records of all websites, one per text across websites; `merged_from` says which website and URL each
    merged copy came from. Websites without a corpus_quality partition yet are listed in the metadata."""
    # Imported when the step runs: loading the code location must not import the near-duplicate libraries.
    from corpus_pipeline.lm.global_dedup import deduplicate_across_websites, kept_records

    store = warehouse.open()
    names = websites.load().names
    ready = [name for name in names if store.exists("corpus_quality", name)]
    frames = [store.scan("corpus_quality", name) for name in ready]
    scored = sum(frame.select(pl.len()).collect().item() for frame in frames)
    records = kept_records(frames)  # only the kept records' texts are read
    with store.whole_asset_history(ASSET).lock() as history:
        merged, counts = deduplicate_across_websites(
            records, threshold=training_policy.near_duplicate_threshold, workers=crawler_config.workers
        )
        with history.new_version(GLOBAL_CORPUS_SCHEMA, run_id=context.run.run_id, drop_columns=()) as version:
            version.write_frame(merged)
        current = history.current()
        outcomes = [
            not_empty(version.rows_written, scored, what="records kept"),
            row_count_vs_current(
                version.rows_written, current.rows if current else None, warehouse.gate_policy(), what="records"
            ),
            unique_ids(version.path),
        ]
        metadata = partition_metadata(version.path, GLOBAL_CORPUS_SCHEMA, PREVIEW, counts)
        metadata["websites_without_corpus_quality"] = ", ".join(sorted(set(names) - set(ready))) or "none"
        metadata["records_scored"] = scored
        yield from publish_or_fail(history, version.version_id, outcomes, ASSET, lambda: metadata)
