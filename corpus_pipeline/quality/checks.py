"""Checks shared by every asset: the verdict type, and the gates that compare a new version with the current one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl


@dataclass(frozen=True)
class GatePolicy:
    """How much a new version may differ from the current one and still replace it."""

    # Losing over half a website's rows is likelier an outage, a block or a template change than a real shrink.
    max_row_drop_share: float = 0.5
    # Above this share of records with an error, the check warns (errors are recorded per record).
    max_error_share: float = 0.5
    # A soft outage keeps the row count but collapses the share of documents with a title, body or text of their own.
    max_distinct_drop_share: float = 0.5


@dataclass(frozen=True)
class CheckSpec:
    """A check an asset declares: its name, what it verifies, and whether a failure refuses the version."""

    name: str
    description: str
    blocking: bool = True


@dataclass(frozen=True)
class CheckOutcome:
    """The result of one check on a new version; ``cause`` says in one line why it failed."""

    spec: CheckSpec
    passed: bool
    metadata: Mapping[str, Any] = field(default_factory=dict)
    cause: str | None = None


NOT_EMPTY = CheckSpec("not_empty", "The new version has rows whenever its input had documents.")
ROW_COUNT_VS_CURRENT = CheckSpec(
    "row_count_vs_current",
    "The new version keeps at least (1 - max_row_drop_share) of the current version's rows (default: half).",
)
ERROR_SHARE = CheckSpec(
    "error_share", "At most max_error_share of the records carry an error (default: half).", blocking=False
)


def row_count(rows: pl.LazyFrame) -> int:
    """How many rows a lazy frame holds (only the count is computed)."""
    return rows.select(pl.len()).collect().item()


def repeated_values(rows: pl.LazyFrame, column: str) -> int:
    """How many values of ``column`` stand in more than one row."""
    return row_count(rows.group_by(column).len().filter(pl.col("len") > 1))


def refusal_cause(outcomes: Sequence[CheckOutcome]) -> str | None:
    """The cause of the first failed blocking check, or None when the version may become current."""
    return next((o.cause or o.spec.name for o in outcomes if o.spec.blocking and not o.passed), None)


def not_empty(rows: int, inputs: int | None = None, what: str = "records") -> CheckOutcome:
    """Passes when there are rows, or when the input itself held nothing (a website without PDFs)."""
    passed = rows > 0 or inputs == 0
    cause = None if passed else f"no {what} out of {inputs} input documents" if inputs else f"no {what}"
    return CheckOutcome(
        NOT_EMPTY, passed, {"rows": rows, "input_documents": inputs if inputs is not None else -1}, cause
    )


def row_count_vs_current(rows: int, current_rows: int | None, policy: GatePolicy, what: str = "rows") -> CheckOutcome:
    """Passes on a first version, or when the drop from the current version stays within the policy."""
    if not current_rows:
        return CheckOutcome(ROW_COUNT_VS_CURRENT, True, {"rows": rows, "current_rows": current_rows or 0})
    drop = max(0.0, 1 - rows / current_rows)
    passed = drop <= policy.max_row_drop_share
    cause = None if passed else (
        f"{rows} {what}, down {drop:.0%} from {current_rows} in the current version "
        f"(max_row_drop_share {policy.max_row_drop_share:.0%})"
    )
    return CheckOutcome(
        ROW_COUNT_VS_CURRENT, passed, {"rows": rows, "current_rows": current_rows, "drop_share": round(drop, 4)}, cause
    )


def error_share(errors: int, total: int, policy: GatePolicy) -> CheckOutcome:
    """Warns when too many records carry an error."""
    share = errors / total if total else 0.0
    passed = share <= policy.max_error_share
    cause = None if passed else f"{errors} of {total} records have an error ({share:.0%})"
    return CheckOutcome(ERROR_SHARE, passed, {"records": total, "with_error": errors, "share": round(share, 4)}, cause)
