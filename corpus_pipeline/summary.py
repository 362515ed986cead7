"""Print where a website's Parquet outputs are and what they hold.

Usage: ``python -m corpus_pipeline.summary <website> [--warehouse DIR_OR_S3_URI]``
"""

from __future__ import annotations

import argparse

import polars as pl

from corpus_pipeline.core.warehouse import Warehouse
from corpus_pipeline.crawl.report import UNCHANGED, USABLE
from corpus_pipeline.history import ASSETS


def summarize_website(warehouse: Warehouse, website: str) -> dict[str, int]:
    """Headline figures of a website's partitions (missing partitions count as 0)."""

    def count(asset: str, condition: pl.Expr | bool = True) -> int:
        if not warehouse.exists(asset, website):
            return 0
        return warehouse.scan(asset, website).filter(condition).select(pl.len()).collect().item()

    absorbed = (
        warehouse.scan("corpus", website)
        .select(pl.col("absorbed").explode(empty_as_null=False).struct.field("reason"))
        .collect()
        .to_series()
        if warehouse.exists("corpus", website)
        else pl.Series([], dtype=pl.String)
    )
    return {
        "pages fetched": count("raw_pages", pl.col("outcome").is_in(USABLE)),
        "pages unchanged (304)": count("raw_pages", pl.col("outcome").is_in(UNCHANGED)),
        "URLs not fetched or failed": count("raw_pages", ~pl.col("outcome").is_in(USABLE)),
        "HTML records parsed": count("parsed_pages", pl.col("error").is_null()),
        "PDF records": count("pdf_documents", pl.col("error").is_null()),
        "OCR'd PDF records": count("pdf_documents", pl.col("kind") == "pdf_ocr"),
        "canonical URL groups": count("canonical_url_groups"),
        "exact duplicates removed": int((absorbed == "same_content").sum()),
        "near duplicates removed": int((absorbed == "near_duplicate").sum()),
        "corpus records": count("corpus"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("website")
    parser.add_argument("--warehouse", default=None, help="warehouse folder or s3:// URI (default: data/warehouse)")
    args = parser.parse_args()
    from corpus_pipeline.resources import ParquetWarehouse

    warehouse = ParquetWarehouse(base_dir=args.warehouse or "").open()
    print(f"\nParquet outputs for website '{args.website}':")
    for asset in ASSETS:
        missing = "" if warehouse.exists(asset, args.website) else "  (missing)"
        print(f"  {asset:<21} {warehouse.partition_uri(asset, args.website)}{missing}")
    print("\nSummary:")
    for label, value in summarize_website(warehouse, args.website).items():
        print(f"  {label:<26} {value}")
    options = ", storage_options=..." if warehouse.storage_options() else ""
    print(
        "\nRead it in a notebook:\n"
        f'  pl.scan_parquet("{warehouse.asset_glob("corpus")}", hive_partitioning=True{options})'
    )


if __name__ == "__main__":
    main()
