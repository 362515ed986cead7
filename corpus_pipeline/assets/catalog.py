"""How the assets present themselves in Dagster's UI: their groups, owners, tags and columns, and the row count and
preview of each materialization.

Dagster has no description field for an asset group, so each group's description travels as metadata on the
assets of the group (``group_description``), shown on every asset's page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import polars as pl
import pyarrow as pa

from corpus_pipeline.core.columns import RAW_PAGES_COLUMN_DOCS, RECORD_COLUMN_DOCS

# The team answering for the corpus; a deployment puts its own team or e-mail addresses here.
OWNERS = ["team:corpus-pipeline"]

# ``network`` says which assets talk to websites: select ``tag:network=offline`` to rebuild without traffic.
CRAWLS_TAGS = {"network": "crawls"}
OFFLINE_TAGS = {"network": "offline"}

PREVIEW_ROWS = 5
PREVIEW_CELL_CHARS = 60


@dataclass(frozen=True)
class AssetGroup:
    """A stage of the pipeline as the UI groups it."""

    name: str
    description: str

    def asset_options(self, schema: pa.Schema, tags: Mapping[str, str] = OFFLINE_TAGS) -> dict[str, Any]:
        """The ``dg.asset`` arguments of an asset of the group writing ``schema``: its group, owners and tags, and as
        metadata the group's purpose and the columns (shown in the UI before the first materialization)."""
        return {"group_name": self.name, "kinds": {"python", "parquet"}, "owners": OWNERS, "tags": tags,
                "metadata": {"dagster/column_schema": column_schema(schema), "group_description": self.description}}


CRAWL = AssetGroup("crawl", "Fetches the website: the only stage that sends requests.")
EXTRACT = AssetGroup("extract", "Reads the stored pages and PDFs into text records, offline.")
DEDUP = AssetGroup("dedup", "Groups records by canonical URL and merges exact and near duplicates, offline.")
TRAINING_SET = AssetGroup(
    "training_set", "Quality signals per website, then one corpus across websites exported for model training, offline."
)


def partition_metadata(
    path: Path,
    schema: pa.Schema,
    preview_columns: Sequence[str],
    counts: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Metadata of a written partition: ``dagster/row_count``, column schema, markdown preview, counts."""
    frame = pl.scan_parquet(path)
    columns = [c for c in preview_columns if c in schema.names and c != "website"]
    preview = frame.select(columns).head(PREVIEW_ROWS).collect()
    return {
        "dagster/row_count": frame.select(pl.len()).collect().item(),
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
