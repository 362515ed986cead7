"""corpus: one record per unique text, every merge explained. Only the small columns become Python objects; texts
stay in the Arrow column and are read one at a time.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from urllib.parse import urlsplit

import numpy as np
import polars as pl

from corpus_pipeline.core.progress import Progress
from corpus_pipeline.core.schema import CORPUS_SCHEMA
from corpus_pipeline.dedup.election import ELECTION_COLUMNS, election_key
from corpus_pipeline.dedup.near import (
    connected_components,
    content_keys_signatures_and_forms,
    decoded,
    map_text_blocks,
    near_duplicate_pairs,
    worker_pool,
)
from corpus_pipeline.dedup.normalize import normalize_paragraphs
from corpus_pipeline.dedup.reuse import DedupMemo
from corpus_pipeline.dedup.settings import DEFAULT_THRESHOLD

_DECISION_COLUMNS = [*ELECTION_COLUMNS, "canonical_url", "candidate_urls"]


class ColumnTexts(Sequence[str]):
    """Some rows of a text column, read on demand by index (no slices, no copies); a null reads as empty."""

    def __init__(self, column: pl.Series, rows: list[int]) -> None:
        self.column, self.rows = column, rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index):
        return self.column[self.rows[index]] or ""


def deduplicate(
    groups: pl.DataFrame,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    workers: int = 2,
    log: Callable[[str], None] | None = None,
    memo: DedupMemo | None = None,
    learned: DedupMemo | None = None,
) -> tuple[pl.DataFrame, dict[str, int]]:
    """Merge exact duplicates (normalized content), then near duplicates (similarity >= threshold).

    ``groups`` has the canonical_url_groups columns; the result has the corpus columns (``absorbed``: every URL
    merged into a record, and why). ``log`` hears the progress. ``memo`` (dedup/reuse.py, at the same threshold)
    spares what it knows, for the same result; ``learned`` receives what this one knows.
    """
    contents = groups["content"]
    with ExitStack() as stack:
        # The workers start first, so that their start-up overlaps the reading of the records. With a memo, they
        # start once the texts it does not know are counted: a night that changed a few pages needs none.
        pool = stack.enter_context(worker_pool(workers, groups.height)) if memo is None else None
        records = _decision_records(groups)
        counts = {"records_in": len(records), "same_url": sum(len(r["absorbed"]) for r in records)}
        # Each distinct text is normalized once, on the workers, for its key, its signature and its verification.
        distinct_rows, distinct_of_row, digests = _distinct_texts(contents)
        # In page order, so that a block holds a page's copies and translations, which share lines.
        known = memo.keys if memo is not None else {}
        if memo is not None:
            pool = stack.enter_context(worker_pool(workers, sum(text not in known for text in digests)))
        keyed_distinct: list = [None] * len(distinct_rows)
        for k, text_digest in enumerate(digests):
            if text_digest in known:  # its form is made only if one of its pairs is verified (_Forms)
                keyed_distinct[k] = (*known[text_digest], None)
        order = [k for k in _page_order(groups["url"].gather(distinct_rows).to_list()) if keyed_distinct[k] is None]
        rows_in_order = [distinct_rows[k] for k in order]
        costs = contents.str.len_bytes().fill_null(0).gather(rows_in_order).to_list()
        keying = Progress("dedup: keys and signatures", len(rows_in_order), log, unit="texts")
        keyed_in_order = map_text_blocks(
            content_keys_signatures_and_forms, ColumnTexts(contents, rows_in_order), pool, workers, costs=costs,
            progress=keying.advance,
        ) if rows_in_order else []
        for k, result in zip(order, keyed_in_order, strict=True):
            keyed_distinct[k] = result
        del keyed_in_order
        if learned is not None:
            learned.keys.update((text_digest, (key, signature)) for text_digest, (key, signature, _) in zip(
                digests, keyed_distinct, strict=True))
        by_content: dict[str, list[dict]] = {}
        for record in records:
            by_content.setdefault(keyed_distinct[distinct_of_row[record["row"]]][0], []).append(record)
        unique = [_merge(members, "same_content") for members in by_content.values()]
        counts["same_content"] = len(records) - len(unique)

        rows = [record["row"] for record in unique]
        kept = [keyed_distinct[distinct_of_row[row]] for row in rows]
        del keyed_distinct
        signatures = np.stack([signature for _, signature, _ in kept]) if rows else None
        forms = _Forms([form for *_, form in kept], ColumnTexts(contents, rows))
        del kept
        text_of = [digests[distinct_of_row[row]] for row in rows]
        verified: list[tuple[int, int, float]] = []
        pairs = near_duplicate_pairs(
            # No pool: no workers (not some started there for the texts' number, when the memo knows most of them).
            forms, threshold, workers if pool is not None else 1, prepare=decoded, pool=pool,
            signatures=signatures, log=log, verified=verified,
            known=(lambda i, j: memo.score(text_of[i], text_of[j])) if memo is not None else None,
            # The blocks' order by the texts' bytes: a night that keeps most texts does not make all their forms.
            lengths=contents.str.len_bytes().fill_null(0).gather(rows).to_list(),
        )
        if learned is not None:
            learned.scores.update(((text_of[i], text_of[j]), score) for i, j, score in verified)
        del signatures, forms
        # The workers leave while this thread builds the records (each one's exit is a serial wait).
        closing = stack.pop_all()
    closer = threading.Thread(target=closing.close, name="corpus-workers-closing")
    closer.start()
    try:
        return _corpus(groups, unique, pairs, counts)
    finally:
        closer.join()


class _Forms(Sequence[bytes]):
    """The texts' forms by index (no slices); one the memo spared is made when first read."""

    def __init__(self, forms: list[bytes | None], texts: ColumnTexts) -> None:
        self.forms, self.texts = forms, texts

    def __len__(self) -> int:
        return len(self.forms)

    def __getitem__(self, index):
        form = self.forms[index]
        if form is None:
            paragraphs = normalize_paragraphs(self.texts[index])  # as content_keys_signatures_and_forms'
            form = self.forms[index] = paragraphs.encode("utf-8", "surrogatepass")
        return form


def merge_near_duplicates(
    unique: list[dict], pairs: list[tuple[int, int, float]], merge: Callable[[list[dict], str, list[float]], dict]
) -> list[dict]:
    """``unique`` merged by ``merge`` along ``pairs`` (indices into it), each with its best score (1.0 alone)."""
    best: dict[int, float] = {}
    for i, j, score in pairs:
        best[i], best[j] = max(best.get(i, 0.0), score), max(best.get(j, 0.0), score)
    return [
        merge([unique[i] for i in members], "near_duplicate", [best.get(i, 1.0) for i in members])
        for members in connected_components(len(unique), pairs)
    ]


def _corpus(
    groups: pl.DataFrame, unique: list[dict], pairs: list[tuple[int, int, float]], counts: dict[str, int]
) -> tuple[pl.DataFrame, dict[str, int]]:
    """The corpus frame of ``unique`` merged along the near-duplicate ``pairs``, and ``counts`` completed."""
    kept = merge_near_duplicates(unique, pairs, _merge)
    counts["near_duplicate"] = len(unique) - len(kept)
    counts["records_out"] = len(kept)

    corpus = groups[[record["row"] for record in kept]].with_columns(
        pl.Series("absorbed", [record["absorbed"] for record in kept], dtype=_schema()["absorbed"])
    )
    return corpus.select(list(_schema())).cast(_schema()).sort("canonical_url"), counts


def _decision_records(groups: pl.DataFrame) -> list[dict]:
    """A dict per row of the columns the election reads, with its row number, text length and ``absorbed``."""
    lengths = groups["content"].str.len_chars().fill_null(0).to_list()  # characters, as len() counts them
    records = groups.select([c for c in _DECISION_COLUMNS if c in groups.columns]).to_dicts()
    for row, (record, length) in enumerate(zip(records, lengths, strict=True)):
        record["row"] = row
        record["length"] = length
        record["absorbed"] = [
            {"url": url, "reason": "same_url", "score": 1.0}
            for url in record["candidate_urls"] or []
            if url != record["url"]
        ]
    return records


def _distinct_texts(contents: pl.Series) -> tuple[list[int], list[int], list[bytes]]:
    """The first row of each distinct text (a null reads as empty), each row's number of its text among them, and
    each distinct text's 128-bit digest."""
    first_rows: list[int] = []
    number_of: dict[bytes, int] = {}
    distinct_of_row = []
    for row, text in enumerate(ColumnTexts(contents, list(range(len(contents))))):
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        number = number_of.setdefault(digest, len(first_rows))
        if number == len(first_rows):
            first_rows.append(row)
        distinct_of_row.append(number)
    return first_rows, distinct_of_row, list(number_of)


def _page_order(urls: list[str]) -> list[int]:
    """Positions of ``urls``, the same page under several folders (a site's languages) next to each other: by
    the path's last segment, then by URL."""
    return sorted(range(len(urls)), key=lambda k: (urlsplit(urls[k] or "").path.rsplit("/", 1)[-1], urls[k] or ""))


def _schema() -> pl.Schema:
    return pl.Schema(CORPUS_SCHEMA)  # not from an empty table: that imports pandas (core.arrow_values)


def _merge(members: list[dict], reason: str, scores: list[float] | None = None) -> dict:
    """The elected member, having absorbed the others (and what they had absorbed), each with its score."""
    if len(members) == 1:  # most texts (no need for its sort key)
        return members[0]
    ranked = sorted(zip(members, scores or [1.0] * len(members), strict=True), key=lambda m: election_key(m[0]))
    winner = ranked[0][0]
    for loser, score in ranked[1:]:
        score = round(score, 4)
        winner["absorbed"].append({"url": loser["canonical_url"], "reason": reason, "score": score})
        if loser["url"] != loser["canonical_url"]:
            winner["absorbed"].append({"url": loser["url"], "reason": reason, "score": score})
        winner["absorbed"].extend(loser["absorbed"])
    return winner
