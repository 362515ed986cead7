"""corpus_quality: a website's corpus with its quality signals, keep flag and PII counts."""

from __future__ import annotations

from collections import Counter

import polars as pl

from corpus_pipeline.lm.pii import PiiScrubber
from corpus_pipeline.lm.policy import QualityPolicy
from corpus_pipeline.lm.schema import CORPUS_QUALITY_SCHEMA, VERDICT_COLUMNS
from corpus_pipeline.lm.signals import RecordScorer


def score_corpus(corpus: pl.DataFrame, policy: QualityPolicy) -> tuple[pl.DataFrame, dict[str, int]]:
    """The corpus records with the quality columns, and counts (:func:`quality_counts`): ``removed_by_<filter>:<rule>``
    by first failure (they add up to the records removed), ``failed_<filter>`` every record a filter fails."""
    scorer, scrubber = RecordScorer(policy), PiiScrubber()
    rows: dict[str, list] = {field.name: [] for field in CORPUS_QUALITY_SCHEMA if field.name not in corpus.columns}
    for text, lang in zip(corpus["content"], corpus["lang"], strict=True):
        signals = scorer.score(text, lang)
        pii = scrubber.scrub(text or "")
        values = {
            "lang_detected": signals.lang_detected,
            "lang_score": round(signals.lang_score, 4),
            "words": signals.words,
            "chars": signals.chars,
            "measures": signals.measures,
            "drop_reason": signals.drop_reason,
            "keep": signals.keep,
            "quality_error": signals.error,
            "pii_emails": pii.emails,
            "pii_ips": pii.ips,
        }
        values.update({f"filter_{name}": reason for name, reason in signals.verdicts.items()})
        for name, column in rows.items():
            column.append(values.get(name))
    schema = pl.Schema(CORPUS_QUALITY_SCHEMA)
    added = pl.DataFrame({name: pl.Series(name, values, dtype=schema[name]) for name, values in rows.items()})
    scored = corpus.hstack(added.get_columns()).select(list(schema)).cast(schema)
    return scored, quality_counts(scored, scorer.tokenizers.fallbacks())


def quality_counts(scored: pl.DataFrame, fallback_languages: list[str] | None = None) -> dict[str, int]:
    """Records, kept, kept share, removals per first-failed rule and failures per filter."""
    counts: dict = {"records": scored.height, "kept": int(scored["keep"].sum())}
    counts["kept_share"] = round(counts["kept"] / scored.height, 4) if scored.height else 0.0
    for reason, n in sorted(Counter(r for r in scored["drop_reason"] if r is not None).items()):
        counts[f"removed_by_{reason}"] = n
    for column in VERDICT_COLUMNS:
        counts[f"failed_{column.removeprefix('filter_')}"] = int(scored[column].is_not_null().sum())
    counts["scoring_errors"] = int(scored["quality_error"].is_not_null().sum())
    if fallback_languages:
        counts["tokenized_with_fallback_rules"] = ", ".join(fallback_languages)
    return counts
