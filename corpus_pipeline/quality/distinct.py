"""Check of a new version against a soft outage (every page answering one "Down for maintenance" page with 200):
the share of its documents whose title (body, text) is distinct must not collapse from the current version's
(sharing alone is no fault: a website may give every page one title).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus_pipeline.core.arrow_values import string_array, string_scalar
from corpus_pipeline.core.memory import return_freed_memory
from corpus_pipeline.core.outcomes import USABLE_OUTCOME_VALUES
from corpus_pipeline.quality.checks import CheckOutcome, CheckSpec, GatePolicy

DISTINCT_VS_CURRENT = CheckSpec(
    "distinct_vs_current",
    "The share of documents with a title, body or text of their own is at least (1 - max_distinct_drop_share) of the "
    "current version's (default: half): a night where most pages answer one maintenance page is refused.",
)

# A page's <title> sits in its <head>: the first 64 KiB hold it on every page of the real-websites bench.
TITLE_SCAN_BYTES = 64 * 1024
_TITLE = re.compile(rb"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
PREVIEW_CHARS = 60
_PLURALS = {"body": "bodies"}  # of the words Distinctness.what holds, for messages


@dataclass(frozen=True)
class Distinctness:
    """How many distinct values (titles, bodies, texts) a version's documents have, and the value most of them share."""

    what: str  # "title", "body", "text": the word messages use
    documents: int
    distinct: int
    most_common_count: int = 0
    most_common: str | None = None  # a preview of the value most documents share (None for bodies: unreadable)

    @property
    def share(self) -> float:
        """Distinct values per document (1.0: every document has its own; 1/n: all share one)."""
        return self.distinct / self.documents if self.documents else 1.0


class DistinctValues:
    """Counts one field's distinct values over a version's documents by digest; None counts as a value."""

    def __init__(self, what: str, preview: bool = True) -> None:
        self.what = what
        self.preview = preview
        self.counts: Counter[bytes] = Counter()
        self.previews: dict[bytes, str] = {}

    def add(self, value: bytes | str | None) -> None:
        """Count one document's value."""
        key = _digest(value)
        self.counts[key] += 1
        if self.preview and key not in self.previews:
            self.previews[key] = _preview(value)

    def measure(self) -> Distinctness:
        """The counts so far."""
        if not self.counts:
            return Distinctness(self.what, 0, 0)
        ((key, count),) = self.counts.most_common(1)
        return Distinctness(self.what, self.counts.total(), len(self.counts), count, self.previews.get(key))


def distinct_vs_current(
    new: Sequence[Distinctness], current: Sequence[Distinctness] | None, policy: GatePolicy
) -> CheckOutcome:
    """Fails on the first respect (in ``new``'s order) whose share of distinct values fell by more than
    ``max_distinct_drop_share`` from the current version's; passes on a first version."""
    before = {measure.what: measure for measure in current or ()}
    metadata: dict[str, float | int] = {}
    cause = None
    for measure in new:
        old = before.get(measure.what)
        metadata[f"distinct_{measure.what}_share"] = round(measure.share, 4)
        metadata[f"{measure.what}_most_common_count"] = measure.most_common_count
        if old is None or not old.documents or not measure.documents:
            continue
        metadata[f"current_distinct_{measure.what}_share"] = round(old.share, 4)
        drop = max(0.0, 1 - measure.share / old.share)
        if cause is None and drop > policy.max_distinct_drop_share:
            cause = _collapse_cause(measure, old, policy)
    return CheckOutcome(DISTINCT_VS_CURRENT, cause is None, metadata, cause)


def pages_distinct_vs_current(candidate: Path, current: Path | None, policy: GatePolicy) -> CheckOutcome:
    """distinct_vs_current for a raw_pages version: its pages' titles, then their bodies."""
    before = page_distinctness(current) if current is not None else None
    return distinct_vs_current(page_distinctness(candidate), before, policy)


def page_distinctness(raw_pages: Path) -> list[Distinctness]:
    """Titles and bodies of a raw_pages file's usable HTML pages (titles first: the cause then shows the title)."""
    titles, bodies = DistinctValues("title"), DistinctValues("body", preview=False)
    for body in _html_bodies(raw_pages):
        titles.add(_title(body))
        bodies.add(body)
    return [titles.measure(), bodies.measure()]


def record_distinctness(records: Path) -> list[Distinctness]:
    """Titles and texts of a record file's (parsed_pages') records."""
    titles, texts = DistinctValues("title"), DistinctValues("text", preview=False)
    for group in _row_groups(records, ["title", "content"]):
        for title, text in zip(group.column("title").to_pylist(), group.column("content").to_pylist(), strict=True):
            titles.add(_normal_title(title))
            texts.add(text)
    return [titles.measure(), texts.measure()]


def _html_bodies(raw_pages: Path) -> Iterator[bytes]:
    usable, html = string_array(USABLE_OUTCOME_VALUES), string_scalar("html")
    for group in _row_groups(raw_pages, ["kind", "outcome", "body"]):
        keep = pc.and_(
            pc.and_(pc.equal(group.column("kind"), html), pc.is_in(group.column("outcome"), value_set=usable)),
            pc.is_valid(group.column("body")),
        )
        bodies = group.filter(keep).column("body")
        del group
        for index in range(len(bodies)):
            yield bodies[index].as_py()  # one body at a time: a row group's bodies are not copied at once
        del bodies  # before the next row group is read


def _row_groups(path: Path, columns: list[str]) -> Iterator[pa.Table]:
    """The file's row groups, one at a time, each handed back to the system once read (see core.memory)."""
    parquet = pq.ParquetFile(path)
    for index in range(parquet.metadata.num_row_groups):
        yield parquet.read_row_group(index, columns=columns)
        return_freed_memory()


def _title(body: bytes) -> str | None:
    """The page's <title>, whitespace-collapsed (None without one)."""
    found = _TITLE.search(body, 0, TITLE_SCAN_BYTES)
    return _normal_title(found.group(1).decode("utf-8", "replace")) if found else None


def _normal_title(title: str | None) -> str | None:
    return " ".join(title.split()) if title is not None else None


def _digest(value: bytes | str | None) -> bytes:
    if value is None:
        return b""  # shorter than any digest: "missing" is a value of its own
    return hashlib.blake2b(value.encode() if isinstance(value, str) else value, digest_size=16).digest()


def _preview(value: bytes | str | None) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else value.decode("utf-8", "replace")
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 3] + "..."


def _collapse_cause(new: Distinctness, old: Distinctness, policy: GatePolicy) -> str:
    shared = f" {new.most_common!r}" if new.most_common is not None else ""
    return (
        f"{new.most_common_count} of {new.documents} pages share one {new.what}{shared} (a soft outage?): "
        f"distinct {_PLURALS.get(new.what, new.what + 's')} {new.distinct} of {new.documents}, "
        f"{old.distinct} of {old.documents} in the current version "
        f"(max_distinct_drop_share {policy.max_distinct_drop_share:.0%})"
    )
