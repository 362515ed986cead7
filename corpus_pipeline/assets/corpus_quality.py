"""corpus_quality: each corpus record with FineWeb's quality signals, its keep flag and PII counts."""

import dagster as dg

from corpus_pipeline.assets.catalog import TRAINING_SET
from corpus_pipeline.assets.code_versions import corpus_quality_version
from corpus_pipeline.assets.publishing import asset_check_specs, publish_if_good
from corpus_pipeline.lm.schema import CORPUS_QUALITY_SCHEMA
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.quality.checks import NOT_EMPTY, ROW_COUNT_VS_CURRENT
from corpus_pipeline.quality.kept_share import KEPT_SHARE_VS_CURRENT, kept_share_vs_current
from corpus_pipeline.quality.records import judge_records
from corpus_pipeline.resources import ParquetWarehouse
from corpus_pipeline.training_resources import TrainingSetPolicy

ASSET = "corpus_quality"
PREVIEW = ["url", "lang_detected", "words", "keep", "drop_reason"]
CHECKS = (NOT_EMPTY, ROW_COUNT_VS_CURRENT, KEPT_SHARE_VS_CURRENT)


@dg.asset(
    partitions_def=website_partitions,
    deps=["corpus"],
    code_version=corpus_quality_version(),
    check_specs=asset_check_specs(ASSET, CHECKS),
    **TRAINING_SET.asset_options(CORPUS_QUALITY_SCHEMA),
)
def corpus_quality(
    context: dg.AssetExecutionContext,
    training_policy: TrainingSetPolicy,
    warehouse: ParquetWarehouse,
):
    """Gopher quality and repetition, C4 and FineWeb verdicts (datatrove), language, counts, `keep`, PII counts;
    the metadata counts the records each rule removes (first failure in FineWeb's order)."""
    # Imported here: the scorer loads datatrove (with pandas, ~16 MiB), which the code location does not need.
    from corpus_pipeline.lm.scoring import score_corpus

    store = warehouse.open()
    website = context.partition_key
    corpus = store.scan("corpus", website).collect()
    with store.history(ASSET, website).lock() as history:
        scored, counts = score_corpus(corpus, training_policy.quality_policy())
        with history.new_version(CORPUS_QUALITY_SCHEMA, run_id=context.run.run_id) as version:
            version.write_frame(scored)
        current = history.current_file()
        outcomes = judge_records(version.path, current, corpus.height, warehouse.gate_policy(), with_errors=False)
        outcomes.append(kept_share_vs_current(version.path, current, training_policy.max_kept_share_drop))
        yield from publish_if_good(context, history, version, outcomes, CORPUS_QUALITY_SCHEMA, PREVIEW, counts)
