"""The training-set stages materialized once through Dagster on the demo website (served on 127.0.0.1)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest

from corpus_pipeline.core.warehouse import Warehouse


@dataclass
class TrainingSetRun:
    warehouse: Warehouse
    export_dir: Path  # the warehouse's current export
    mirror_dir: Path  # the local copy export_dir asks for
    per_website: dg.ExecuteInProcessResult
    training_set: dg.ExecuteInProcessResult


@pytest.fixture(scope="session")
def training_set_run(demo_site, tmp_path_factory) -> TrainingSetRun:
    """corpus_job's five assets and corpus_quality for 'demo', then global_corpus and training_export."""
    # Imported here, not at the top: pytest may load this conftest before the session's test registry is set,
    # and importing the assets reads the registry (the website partitions).
    from corpus_pipeline.assets import ALL_ASSETS
    from corpus_pipeline.assets.corpus_quality import corpus_quality
    from corpus_pipeline.assets.global_corpus import global_corpus
    from corpus_pipeline.assets.training_export import training_export
    from corpus_pipeline.resources import CrawlerConfig, ParquetWarehouse, WebsiteRegistry
    from corpus_pipeline.training_resources import TrainingSetPolicy

    root = tmp_path_factory.mktemp("training_set")
    resources = {
        "crawler_config": CrawlerConfig(min_delay_s=0.0, workers=1),
        "websites": WebsiteRegistry(),
        "warehouse": ParquetWarehouse(base_dir=str(root / "warehouse")),
        "training_policy": TrainingSetPolicy(export_dir=str(root / "export"), shard_records=5),
    }
    per_website = dg.materialize([*ALL_ASSETS, corpus_quality], partition_key="demo", resources=resources)
    training_set = dg.materialize([global_corpus, training_export], resources=resources)
    return TrainingSetRun(
        Warehouse(root / "warehouse"), root / "warehouse" / "training_export", root / "export", per_website, training_set
    )
