"""Python values to Arrow without pyarrow's own conversion of Python objects, which imports pandas.

pyarrow checks every Python value it converts (``pa.array``, ``Table.from_pylist``, a ``str`` given to a compute
function) against pandas' types, importing pandas when it is installed, in processes that never use it. polars
builds the same columns from Python objects in Rust, and hands them to Arrow through the C data interface.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import polars as pl
import pyarrow as pa

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECONDS_PER_UNIT = {"s": 1_000_000, "ms": 1_000, "us": 1}
_FIXED_OFFSET = re.compile(r"(?P<sign>[+-])(?P<hours>\d{2}):(?P<minutes>\d{2})")


def table_from_rows(rows: Sequence[Mapping[str, Any]], schema: pa.Schema) -> pa.Table:
    """``pa.Table.from_pylist(rows, schema=schema)``, built by polars: the same table, values and types. Every row
    must have a value (None for null) for every field of ``schema``; a value of the wrong type raises."""
    frame = pl.from_dicts(rows, schema=pl.Schema(schema), strict=True)
    # polars exports large strings, lists and binaries; the cast gives the schema's own types (and fails on a null
    # in a non-nullable field, as from_pylist does).
    return frame.to_arrow().cast(schema)


def string_array(values: Iterable[str]) -> pa.Array:
    """``pa.array(values, type=pa.string())`` for a few strings."""
    return pl.Series(values=list(values), dtype=pl.String).to_arrow().cast(pa.string())


def string_scalar(value: str) -> pa.Scalar:
    """``pa.scalar(value, type=pa.string())``, for comparing a string column with a constant in pyarrow.compute."""
    return string_array([value])[0]


def bool_scalar(value: bool) -> pa.Scalar:
    """``pa.scalar(value)``, a boolean constant for pyarrow.compute."""
    return pl.Series(values=[value], dtype=pl.Boolean).to_arrow()[0]


def value_reader(column: pa.Array | pa.ChunkedArray) -> Callable[[int], Any]:
    """``lambda index: column[index].as_py()``, without pandas for timestamps with a time zone (pyarrow's ``as_py``
    of one imports pandas, for nanoseconds): seconds to microseconds give the UTC instant in the column's zone."""
    kind = column.type
    if not (pa.types.is_timestamp(kind) and kind.tz is not None and kind.unit in _MICROSECONDS_PER_UNIT):
        return lambda index: column[index].as_py()
    zone, scale = _zone(kind.tz), _MICROSECONDS_PER_UNIT[kind.unit]
    counts = column.cast(pa.int64())

    def read(index: int) -> datetime | None:
        count = counts[index].as_py()
        return None if count is None else (_EPOCH + timedelta(microseconds=count * scale)).astimezone(zone)

    return read


def _zone(name: str) -> tzinfo:
    """The time zone object pyarrow's ``as_py`` gives for a timestamp type's zone: a fixed offset ("+02:00") as a
    ``datetime.timezone``, a named zone as a ``zoneinfo.ZoneInfo``."""
    offset = _FIXED_OFFSET.fullmatch(name)
    if offset is None:
        return ZoneInfo(name)
    sign = -1 if offset["sign"] == "-" else 1
    return timezone(sign * timedelta(hours=int(offset["hours"]), minutes=int(offset["minutes"])))


def table_rows(table: pa.Table) -> list[dict[str, Any]]:
    """``table.to_pylist()``, without pandas for timestamps with a time zone (see :func:`value_reader`)."""
    columns = [_column_values(table.column(name)) for name in table.column_names]
    return [dict(zip(table.column_names, values, strict=True)) for values in zip(*columns, strict=True)]


def _column_values(column: pa.ChunkedArray) -> list[Any]:
    kind = column.type
    if not (pa.types.is_timestamp(kind) and kind.tz is not None and kind.unit in _MICROSECONDS_PER_UNIT):
        return column.to_pylist()
    read = value_reader(column)
    return [read(index) for index in range(len(column))]
