"""List the kept versions of a website's partitions, and put an earlier one back.

Usage::

    python -m corpus_pipeline.history demo                       # every asset's versions
    python -m corpus_pipeline.history demo --roll-back corpus    # the version before the current one
    python -m corpus_pipeline.history demo --roll-back all       # all five assets to the versions of one earlier run
    python -m corpus_pipeline.history demo --roll-back raw_pages --to 20261124T020000123456Z-a1b2c3

A roll-back refuses a damaged file (not the rows and checksum its ledger recorded) and changes nothing; with
``$DAGSTER_HOME`` set, it is recorded in Dagster, so the UI shows which version is current.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import ExitStack

from corpus_pipeline.core.versions import (
    DamagedVersionError,
    PartitionBusyError,
    PartitionHistory,
    UnknownVersionError,
    Version,
    VersionState,
)
from corpus_pipeline.core.warehouse import Warehouse

ASSETS = ("raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus")


def describe(warehouse: Warehouse, website: str) -> str:
    """A table of every kept version of the website's partitions, the current one starred."""
    lines = []
    for asset in ASSETS:
        history = warehouse.history(asset, website)
        current = history.current()
        lines.append(f"{asset}:")
        versions = history.versions()
        if not versions:
            lines.append("    (no versions yet)")
        for version in versions:
            mark = "*" if current is not None and version.id == current.id else " "
            cause = f"  {version.cause}" if version.cause else ""
            run = f"  run {version.run_id[:8]}" if version.run_id else ""
            lines.append(f"  {mark} {version.id}  {version.state:<9} {version.rows:>8} rows{run}{cause}")
    return "\n".join(lines)


def roll_back_all(warehouse: Warehouse, website: str) -> dict[str, Version]:
    """Move every asset to its version of one earlier run, or change nothing; the versions now current, by asset.

    The run is the newest one that published (or kept) a version of every asset before the newest current version,
    so a roll-back of one asset followed by "all" leaves the five on one run. Every version is checked before the
    first one becomes current, and a publication failing half-way puts back the assets already moved.
    """
    with ExitStack() as stack:
        histories = {asset: stack.enter_context(warehouse.history(asset, website).lock()) for asset in ASSETS}
        targets = _versions_of_earlier_run(histories)
        for asset, version in targets.items():
            histories[asset].verify(version.id)
        previous = {asset: history.current() for asset, history in histories.items()}
        moved: list[str] = []
        try:
            for asset, version in targets.items():
                current = previous[asset]
                if current is None or current.id != version.id:
                    histories[asset].publish(version.id)
                    moved.append(asset)
        except BaseException:
            for asset in reversed(moved):
                before = previous[asset]
                if before is not None:
                    histories[asset].publish(before.id)
            raise
        return {asset: histories[asset].current() or targets[asset] for asset in ASSETS}


def _versions_of_earlier_run(histories: dict[str, PartitionHistory]) -> dict[str, Version]:
    currents = [history.current() for history in histories.values()]
    newest_current = max((v.id for v in currents if v is not None), default=None)
    if newest_current is None:
        raise UnknownVersionError("no asset has a current version: nothing to roll back")
    by_run: dict[str, dict[str, Version]] = {}
    for asset, history in histories.items():
        for version in history.versions():
            if version.state is VersionState.PUBLISHED:
                for run in history.runs_of(version):  # a version kept by a later run is that run's too
                    by_run.setdefault(run, {})[asset] = version
    complete = {run: versions for run, versions in by_run.items() if len(versions) == len(histories)}
    earlier = [versions for versions in complete.values() if max(v.id for v in versions.values()) < newest_current]
    if not earlier:
        raise UnknownVersionError(
            "no earlier run has a kept published version of every asset "
            f"({', '.join(histories)}): nothing was rolled back"
        )
    return max(earlier, key=lambda versions: max(v.id for v in versions.values()))


def _record_in_dagster(asset: str, website: str, version: Version) -> None:
    import dagster as dg

    with dg.DagsterInstance.get() as instance:
        instance.report_runless_asset_event(
            dg.AssetMaterialization(
                asset_key=asset,
                partition=website,
                description=f"rolled back to version {version.id}",
                metadata={"version": version.id, "rolled_back": True, "dagster/row_count": version.rows},
            )
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("website")
    parser.add_argument("--roll-back", choices=[*ASSETS, "all"], help="asset whose previous version becomes current")
    parser.add_argument("--to", help="version id to restore (default: the one before the current)")
    parser.add_argument("--warehouse", default=None, help="warehouse folder or s3:// URI (default: data/warehouse)")
    args = parser.parse_args(argv)
    from corpus_pipeline.resources import ParquetWarehouse

    warehouse = ParquetWarehouse(base_dir=args.warehouse or "").open()
    if args.roll_back:
        if args.to and args.roll_back == "all":
            parser.error("--to names one version of one asset; use it with a single asset")
        try:
            if args.roll_back == "all":
                restored = roll_back_all(warehouse, args.website)
            else:
                with warehouse.history(args.roll_back, args.website).lock() as history:
                    restored = {args.roll_back: history.roll_back(args.to)}
        except (UnknownVersionError, PartitionBusyError, DamagedVersionError) as error:
            print(f"{args.roll_back}: not rolled back: {error}", file=sys.stderr)
            return 1
        for asset, version in restored.items():
            print(f"{asset}: version {version.id} is current again ({version.rows} rows)")
            if os.environ.get("DAGSTER_HOME"):
                _record_in_dagster(asset, args.website, version)
    print(describe(warehouse, args.website))
    return 0


if __name__ == "__main__":
    sys.exit(main())
