"""Dagster resource of the training-set stages: the quality policy, PII, the export's shape."""

from __future__ import annotations

import dagster as dg
from pydantic import Field

from corpus_pipeline.dedup.settings import DEFAULT_THRESHOLD
from corpus_pipeline.lm.export import DEFAULT_SHARD_RECORDS, TextFormat
from corpus_pipeline.lm.policy import FILTER_ORDER, QualityPolicy
from corpus_pipeline.quality.kept_share import DEFAULT_MAX_KEPT_SHARE_DROP
from corpus_pipeline.resources import Ratio, fields_named_alike

_DEFAULT = QualityPolicy()


class TrainingSetPolicy(dg.ConfigurableResource):
    """What corpus_quality keeps (FineWeb's defaults), how the global corpus is deduplicated, what is exported."""

    filters: list[str] = Field(
        default_factory=lambda: list(FILTER_ORDER),
        description=f"Quality filters a record must pass, among {list(FILTER_ORDER)}.",
    )
    languages: list[str] = Field(
        default_factory=lambda: list(_DEFAULT.languages),
        description="Languages kept (FineWeb: English only); empty keeps every language.",
    )
    min_language_score: Ratio = Field(default=_DEFAULT.min_language_score)
    min_doc_words: int = Field(default=_DEFAULT.min_doc_words, description="Gopher: fewer words is no document.")
    min_stop_words: int = Field(default=_DEFAULT.min_stop_words, description="Gopher: English stop words needed.")
    c4_filter_no_terminal_punct: bool = Field(
        default=_DEFAULT.c4_filter_no_terminal_punct, description="C4: drop lines without terminal punctuation."
    )
    c4_min_num_sentences: int = Field(default=_DEFAULT.c4_min_num_sentences)
    max_kept_share_drop: Ratio = Field(
        default=DEFAULT_MAX_KEPT_SHARE_DROP,
        description="kept_share_vs_current fails when a website's kept share falls by more than this (relative).",
    )
    near_duplicate_threshold: Ratio = Field(
        default=DEFAULT_THRESHOLD,
        description="Similarity from which texts of two websites are near duplicates.",
    )
    scrub_pii: bool = Field(default=True, description="Export: replace e-mail and IP addresses by placeholders.")
    shard_records: int = Field(default=DEFAULT_SHARD_RECORDS, ge=1, description="Export: records per shard.")
    text_format: TextFormat = Field(
        default="plain",
        description="Export: plain text (content) or markdown (the markdown column: headings, lists, tables, code).",
    )
    export_dir: str = Field(
        default="",
        description="A local folder that also receives each published export (the warehouse's training_export/ "
        "holds it in any case); empty: none.",
    )

    def quality_policy(self) -> QualityPolicy:
        """The core's view of the policy: the filters enabled, and every field QualityPolicy has under the same name."""
        values = fields_named_alike(QualityPolicy, self)
        return QualityPolicy(**{**values, "enabled": tuple(self.filters), "languages": tuple(self.languages)})
