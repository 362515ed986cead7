"""corpus: one record per unique text, every merge explained."""

from __future__ import annotations

import polars as pl

from corpus_pipeline.core.schema import CORPUS_SCHEMA
from corpus_pipeline.dedup.election import election_key
from corpus_pipeline.dedup.near import near_duplicate_pairs
from corpus_pipeline.dedup.normalize import content_key, normalize_paragraphs
from corpus_pipeline.dedup.settings import DEFAULT_THRESHOLD


def deduplicate(groups: pl.DataFrame, *, threshold: float = DEFAULT_THRESHOLD, workers: int = 2) -> tuple[pl.DataFrame, dict[str, int]]:
    """Merge exact duplicates (normalized content), then near duplicates (similarity >= threshold)."""
    records = groups.to_dicts()
    for record in records:
        record["absorbed"] = [
            {"url": url, "reason": "same_url", "score": 1.0} for url in record.get("candidate_urls") or [] if url != record["url"]
        ]
    counts = {"records_in": len(records), "same_url": sum(len(r["absorbed"]) for r in records)}

    by_content: dict[str, list[dict]] = {}
    for record in records:
        by_content.setdefault(content_key(record["content"] or ""), []).append(record)
    unique = [_merge(members, "same_content", {}) for members in by_content.values()]
    counts["same_content"] = len(records) - len(unique)

    pairs = near_duplicate_pairs([r["content"] or "" for r in unique], threshold, workers, prepare=normalize_paragraphs)
    components = _components(len(unique), pairs)
    scores: dict[int, float] = {}
    for i, j, score in pairs:
        scores[i] = max(scores.get(i, 0.0), score)
        scores[j] = max(scores.get(j, 0.0), score)
    kept = []
    for members in components:
        kept.append(_merge([unique[i] for i in members], "near_duplicate", {id(unique[i]): scores.get(i, 1.0) for i in members}))
    counts["near_duplicate"] = len(unique) - len(kept)
    counts["records_out"] = len(kept)

    schema = pl.from_arrow(CORPUS_SCHEMA.empty_table()).schema
    for record in kept:
        record.pop("candidate_urls", None)
        record.pop("candidates", None)
    frame = pl.DataFrame(kept, schema=schema) if kept else pl.DataFrame(schema=schema)
    return frame.sort("canonical_url"), counts


def _merge(members: list[dict], reason: str, scores: dict[int, float]) -> dict:
    """The elected member, having absorbed the others (and what they had absorbed)."""
    members = sorted(members, key=election_key)
    winner = members[0]
    for loser in members[1:]:
        winner["absorbed"].append({"url": loser["canonical_url"], "reason": reason, "score": round(scores.get(id(loser), 1.0), 4)})
        if loser["url"] != loser["canonical_url"]:
            winner["absorbed"].append({"url": loser["url"], "reason": reason, "score": round(scores.get(id(loser), 1.0), 4)})
        winner["absorbed"].extend(loser["absorbed"])
    return winner


def _components(size: int, pairs: list[tuple[int, int, float]]) -> list[list[int]]:
    """Connected components of the near-duplicate graph (union-find)."""
    parent = list(range(size))

    def find(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for i, j, _ in pairs:
        root_i, root_j = find(i), find(j)
        if root_i != root_j:
            parent[max(root_i, root_j)] = min(root_i, root_j)
    components: dict[int, list[int]] = {}
    for node in range(size):
        components.setdefault(find(node), []).append(node)
    return list(components.values())
