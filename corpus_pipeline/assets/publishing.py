"""From a judged version to Dagster: per-partition check results, then publication or a failure with its cause."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import dagster as dg
import pyarrow as pa

from corpus_pipeline.assets.catalog import partition_metadata
from corpus_pipeline.assets.source_fingerprint import source_fingerprint
from corpus_pipeline.core.versions import PartitionHistory, VersionWriter
from corpus_pipeline.partitions import website_partitions
from corpus_pipeline.quality.checks import CheckOutcome, CheckSpec, GatePolicy, refusal_cause
from corpus_pipeline.quality.distinct import Distinctness, distinct_vs_current

# distinct_vs_current's measure of a version is kept among its facts (core/versions.py), for the code that measured
# it: the next night compares its candidate without reading the current version again.
DISTINCTNESS = "distinctness"
DISTINCTNESS_CODE = source_fingerprint(("corpus_pipeline.quality.distinct",))


def asset_check_specs(asset: str, checks: Sequence[CheckSpec], partitioned: bool = True) -> list[dg.AssetCheckSpec]:
    """Dagster check specs: one result per website partition, or one in all for an asset built across websites."""
    with warnings.catch_warnings():
        # Partitioned checks are a preview feature in Dagster 1.13; without them every result shows no
        # partition and the latest website to run overwrites the others' status.
        warnings.simplefilter("ignore", dg.PreviewWarning)
        return [
            dg.AssetCheckSpec(
                check.name,
                asset=asset,
                description=check.description,
                blocking=check.blocking,
                partitions_def=website_partitions if partitioned else None,
            )
            for check in checks
        ]


def known_distinctness(history: PartitionHistory, version_id: str | None) -> list[Distinctness] | None:
    """distinct_vs_current's measure of a version, as :func:`remember_distinctness` kept it (by this code), or None."""
    facts = history.facts(version_id, DISTINCTNESS) if version_id is not None else None
    if not isinstance(facts, dict) or facts.get("code") != DISTINCTNESS_CODE:
        return None
    return [Distinctness(**measure) for measure in facts["measures"]]


def remember_distinctness(history: PartitionHistory, version_id: str, measures: Sequence[Distinctness]) -> None:
    """Keep distinct_vs_current's measure of a version with it (see DISTINCTNESS)."""
    value = {"code": DISTINCTNESS_CODE, "measures": [dataclasses.asdict(measure) for measure in measures]}
    history.record_facts(version_id, DISTINCTNESS, value)


def judged_file(judged: VersionWriter | Path) -> Path:
    """The file of the night's version: a new version's, or the current one's when the night keeps it."""
    return judged if isinstance(judged, Path) else judged.path


def judge_distinctness(
    history: PartitionHistory,
    judged: VersionWriter | Path,
    current_file: Path | None,
    same_documents: bool,
    measure: Callable[[Path], list[Distinctness]],
    policy: GatePolicy,
) -> CheckOutcome:
    """distinct_vs_current of the night's version (a new one, or the current one's file when the night keeps it)
    beside the current one (``current_file``). Each measure is kept with its version: a version measured once is not
    read again, nor a new one whose documents are all the current one's (``same_documents``)."""
    current = history.current()
    before = None
    if current_file is not None and current is not None:
        before = known_distinctness(history, current.id) or measure(current_file)
    if isinstance(judged, Path):
        return distinct_vs_current(before or measure(judged), before, policy)
    measured = before if same_documents and before is not None else measure(judged_file(judged))
    remember_distinctness(history, judged.version_id, measured)
    return distinct_vs_current(measured, before, policy)


def publish_if_good(
    context: dg.AssetExecutionContext,
    history: PartitionHistory,
    judged: VersionWriter | Path,
    outcomes: Sequence[CheckOutcome],
    schema: pa.Schema,
    preview_columns: Sequence[str],
    counts: Mapping[str, Any] | None = None,
) -> Iterator[dg.AssetCheckResult | dg.MaterializeResult]:
    """Make the night's version of a website's partition current when no blocking check failed; otherwise keep the
    current one and fail with the one-line cause, e.g. "raw_pages for 'demo': 0 of 37 pages fetched: connection
    refused to 127.0.0.1:8765". ``judged`` is the new version, or the current version's file when the night's output
    would be that very version: then it stays current, as this run's output."""
    if isinstance(judged, Path):
        current = history.current()
        if current is None:
            raise ValueError(f"{history.location()} has no current version to keep")
        version_id, path, kept_for_run = current.id, judged, context.run.run_id
    else:
        # Described from the version's own file: the current file is a copy of it made a moment ago, and reading the
        # copy through current_file() would hash every byte of it again.
        version_id, path, kept_for_run = judged.version_id, judged.path, None
    yield from publish_or_fail(
        history, version_id, outcomes, f"{context.asset_key.to_user_string()} for '{context.partition_key}'",
        lambda: partition_metadata(path, schema, preview_columns, counts), kept_for_run,
    )


def publish_or_fail(
    history: PartitionHistory,
    version_id: str,
    outcomes: Sequence[CheckOutcome],
    label: str,
    metadata: Callable[[], Mapping[str, Any]],
    kept_for_run: str | None = None,
) -> Iterator[dg.AssetCheckResult | dg.MaterializeResult]:
    """Publish ``version_id`` when no blocking outcome failed; otherwise refuse it and fail with the cause after
    ``label`` (e.g. "global_corpus: no records kept out of 37 input documents"). With ``kept_for_run``,
    ``version_id`` is the current version, kept as that run's output: never refused."""
    results = [_check_result(outcome) for outcome in outcomes]
    cause = refusal_cause(outcomes)
    previous = history.current()
    if cause is not None:
        if kept_for_run is None:
            history.refuse(version_id, cause)
        yield from results
        raise dg.Failure(
            description=f"{label}: {cause}",
            metadata={
                "refused_version" if kept_for_run is None else "kept_version": version_id,
                "current_version": previous.id if previous else "none",
                "refused_path": dg.MetadataValue.path(history.uri_of(version_id)),
            },
            allow_retries=False,  # the same inputs (a crawl: the same broken night) would be refused again
        )
    if kept_for_run is None:
        history.publish(version_id)
    else:
        history.keep_for_run(version_id, kept_for_run)
    published = {
        **metadata(),
        "path": dg.MetadataValue.path(history.current_uri()),
        "version": version_id,
        "previous_version": previous.id if previous else "none",
        "version_kept": kept_for_run is not None,
    }
    yield dg.MaterializeResult(metadata=published, check_results=results)


def _check_result(outcome: CheckOutcome) -> dg.AssetCheckResult:
    metadata: dict[str, Any] = dict(outcome.metadata)
    if outcome.cause:
        metadata["cause"] = outcome.cause
    for key, value in metadata.items():
        if isinstance(value, str) and "\n" in value:
            metadata[key] = dg.MetadataValue.md(value)
    return dg.AssetCheckResult(
        check_name=outcome.spec.name,
        passed=outcome.passed,
        severity=dg.AssetCheckSeverity.ERROR if outcome.spec.blocking else dg.AssetCheckSeverity.WARN,
        metadata=metadata,
        description=outcome.cause,
    )
