"""Materialization metadata shared by the assets: row count, column schema, a preview."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import dagster as dg
import polars as pl
import pyarrow as pa

from corpus_pipeline.core.columns import RAW_PAGES_COLUMN_DOCS, RECORD_COLUMN_DOCS

PREVIEW_ROWS = 5
PREVIEW_CELL_CHARS = 60


def partition_metadata(
    path: Path,
    schema: pa.Schema,
    preview_columns: Sequence[str],
    counts: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Metadata of a written partition: ``dagster/row_count``, column schema, markdown preview, counts."""
    frame = pl.scan_parquet(path)
    row_count = frame.select(pl.len()).collect().item()
    preview = (
        frame.select([c for c in preview_columns if c in schema.names and c != "website"]).head(PREVIEW_ROWS).collect()
    )
    return {
        "dagster/row_count": row_count,
        "dagster/column_schema": column_schema(schema),
        "preview": dg.MetadataValue.md(markdown_preview(preview)),
        **(counts or {}),
    }


def column_schema(schema: pa.Schema) -> dg.TableSchema:
    """The columns of a Parquet contract with their types and meanings, as the Dagster UI shows them."""
    docs = RAW_PAGES_COLUMN_DOCS if "outcome" in schema.names else RECORD_COLUMN_DOCS
    return dg.TableSchema(
        columns=[
            dg.TableColumn(name=field.name, type=str(field.type), description=docs.get(field.name)) for field in schema
        ]
    )


def markdown_preview(frame: pl.DataFrame) -> str:
    """A small markdown table; long cells are cut so the UI stays readable."""
    if frame.height == 0:
        return "_empty partition_"
    shortened = frame.with_columns(
        _as_short_text(pl.col(name), dtype).alias(name) for name, dtype in frame.schema.items()
    )
    with pl.Config(
        tbl_formatting="MARKDOWN",
        tbl_hide_column_data_types=True,
        tbl_hide_dataframe_shape=True,
        fmt_str_lengths=PREVIEW_CELL_CHARS,
        tbl_width_chars=1000,
    ):
        return str(shortened)


def _as_short_text(column: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    if isinstance(dtype, pl.List):
        column = column.list.eval(pl.element().cast(pl.String)).list.join(", ")
    elif isinstance(dtype, pl.Struct):
        column = column.struct.json_encode()
    else:
        column = column.cast(pl.String)
    return column.str.replace_all(r"[\s|]+", " ").str.slice(0, PREVIEW_CELL_CHARS)
