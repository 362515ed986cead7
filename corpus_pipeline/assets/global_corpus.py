"""global_corpus: the kept records of every website, exact and near duplicates removed across websites."""

import dagster as dg
import polars as pl

from corpus_pipeline.assets.catalog import OFFLINE_TAGS, OWNERS, TRAINING_SET
from corpus_pipeline.assets.code_versions import global_corpus_version
from corpus_pipeline.assets.reporting import declared_metadata, partition_metadata
from corpus_pipeline.core.partition_writer import PartitionWriter
from corpus_pipeline.lm.global_dedup import deduplicate_across_websites, global_corpus_path, kept_records
from corpus_pipeline.lm.schema import GLOBAL_CORPUS_SCHEMA
from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
from corpus_pipeline.training_resources import TrainingSetPolicy

ASSET = "global_corpus"
PREVIEW = ["website", "url", "lang", "words", "merged_from"]
NOT_EMPTY = dg.AssetCheckSpec(
    "not_empty", asset=ASSET, description="Some record is kept whenever some website's corpus_quality has records."
)


@dg.asset(
    deps=[dg.AssetDep("corpus_quality", partition_mapping=dg.AllPartitionMapping())],
    group_name=TRAINING_SET.name,
    owners=OWNERS,
    tags=OFFLINE_TAGS,
    code_version=global_corpus_version(),
    kinds={"python", "parquet"},
    metadata={**declared_metadata(GLOBAL_CORPUS_SCHEMA), **TRAINING_SET.metadata()},
    check_specs=[NOT_EMPTY],
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
    store = warehouse.open()
    names = websites.load().names
    ready = [name for name in names if store.exists("corpus_quality", name)]
    frames = [store.scan("corpus_quality", name) for name in ready]
    scored = sum(frame.select(pl.len()).collect().item() for frame in frames)
    records = kept_records(frames)  # only the kept records' texts are read
    if scored and records.height == 0:
        raise dg.Failure(
            description=f"global_corpus: no record kept out of {scored} scored in {len(ready)} websites",
            allow_retries=False,
        )
    merged, counts = deduplicate_across_websites(
        records, threshold=training_policy.near_duplicate_threshold, workers=crawler_config.workers
    )
    path = global_corpus_path(store.root)
    with PartitionWriter(path, GLOBAL_CORPUS_SCHEMA) as writer:
        writer.write_frame(merged)
    metadata = partition_metadata(path, GLOBAL_CORPUS_SCHEMA, PREVIEW, counts)
    metadata["websites_without_corpus_quality"] = ", ".join(sorted(set(names) - set(ready))) or "none"
    yield dg.MaterializeResult(
        metadata=metadata,
        check_results=[dg.AssetCheckResult(check_name=NOT_EMPTY.name, passed=merged.height > 0 or scored == 0)],
    )
