"""Publishing an asset built across websites (not partitioned): its checks, then publication or a failure."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import dagster as dg

from corpus_pipeline.assets.publishing import _check_result
from corpus_pipeline.core.versions import PartitionHistory
from corpus_pipeline.quality.checks import CheckOutcome, CheckSpec, refusal_cause


def whole_asset_check_specs(asset: str, checks: Sequence[CheckSpec]) -> list[dg.AssetCheckSpec]:
    """Dagster check specs of an asset that is not partitioned."""
    return [
        dg.AssetCheckSpec(check.name, asset=asset, description=check.description, blocking=check.blocking)
        for check in checks
    ]


def publish_whole_if_good(
    context: dg.AssetExecutionContext,
    history: PartitionHistory,
    version_id: str,
    outcomes: Sequence[CheckOutcome],
    metadata: Mapping[str, Any],
) -> Iterator[dg.AssetCheckResult | dg.MaterializeResult]:
    """Make the new version current when no blocking check failed; otherwise keep the current one and fail with
    the one-line cause (e.g. "global_corpus: no records kept out of 37 input documents")."""
    asset = context.asset_key.to_user_string()
    results = [_check_result(outcome) for outcome in outcomes]
    cause = refusal_cause(outcomes)
    previous = history.current()
    if cause is not None:
        history.refuse(version_id, cause)
        yield from results
        raise dg.Failure(
            description=f"{asset}: {cause}",
            metadata={
                "refused_version": version_id,
                "current_version": previous.id if previous else "none",
                "refused_path": dg.MetadataValue.path(history.uri_of(version_id)),
            },
            allow_retries=False,  # the same inputs would be refused again
        )
    history.publish(version_id)
    published = {
        **metadata,
        "path": dg.MetadataValue.path(history.current_uri()),
        "version": version_id,
        "previous_version": previous.id if previous else "none",
    }
    yield dg.MaterializeResult(metadata=published, check_results=results)
