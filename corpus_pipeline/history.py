"""List the kept versions of a website's partitions, and put an earlier one back.

Usage::

    python -m corpus_pipeline.history demo                       # every asset's versions
    python -m corpus_pipeline.history demo --roll-back corpus    # the version before the current one
    python -m corpus_pipeline.history demo --roll-back all       # all five assets, each one step back
    python -m corpus_pipeline.history demo --roll-back raw_pages --to 20261124T020000123456Z-a1b2c3

A roll-back is recorded in Dagster (a materialization of the partition, with the version it restored)
when ``$DAGSTER_HOME`` is set, so the UI shows which version is current.
"""

from __future__ import annotations

import argparse
import os
import sys

from corpus_pipeline.core.versions import PartitionBusyError, UnknownVersionError, Version
from corpus_pipeline.core.warehouse import Warehouse, open_warehouse

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
            lines.append(f"  {mark} {version.id}  {version.state:<9} {version.rows:>8} rows{cause}")
    return "\n".join(lines)


def roll_back(warehouse: Warehouse, website: str, asset: str, to: str | None = None) -> Version:
    """Make an earlier published version of one partition current again."""
    with warehouse.history(asset, website).lock() as history:
        return history.roll_back(to)


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

    warehouse = open_warehouse(args.warehouse) if args.warehouse else ParquetWarehouse().open()
    if args.roll_back:
        if args.to and args.roll_back == "all":
            parser.error("--to names one version of one asset; use it with a single asset")
        assets = ASSETS if args.roll_back == "all" else (args.roll_back,)
        for asset in assets:
            try:
                version = roll_back(warehouse, args.website, asset, args.to)
            except (UnknownVersionError, PartitionBusyError) as error:
                print(f"{asset}: not rolled back: {error}", file=sys.stderr)
                return 1
            print(f"{asset}: version {version.id} is current again ({version.rows} rows)")
            if os.environ.get("DAGSTER_HOME"):
                _record_in_dagster(asset, args.website, version)
    print(describe(warehouse, args.website))
    return 0


if __name__ == "__main__":
    sys.exit(main())
