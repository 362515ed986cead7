"""core/reuse: kept results and computed ones come out in the inputs' order; rows found by key without reading all."""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.core.reuse import KeyedRows, digest, kept_or_computed


def test_kept_and_computed_results_in_the_inputs_order():
    computed: list[int] = []

    def compute(items):
        for item in items:
            computed.append(item)
            yield f"computed {item}"

    def plan(item: int):
        return item, (lambda: f"kept {item}") if item % 3 else None

    results = list(kept_or_computed(range(10), plan, compute))
    assert [meta for meta, _, _ in results] == list(range(10))
    assert [result for _, result, _ in results] == [f"{'kept' if i % 3 else 'computed'} {i}" for i in range(10)]
    assert [kept for _, _, kept in results] == [bool(i % 3) for i in range(10)]
    assert computed == [0, 3, 6, 9]


def test_compute_is_not_called_when_everything_is_kept():
    def compute(items):
        raise AssertionError("no worker pool for a night with nothing to compute")

    results = list(kept_or_computed(["a", "b"], lambda item: (item, lambda: item.upper()), compute))
    assert results == [("a", "A", True), ("b", "B", True)]


def test_keyed_rows_by_value_and_by_a_key_of_it(tmp_path: Path):
    path = tmp_path / "rows.parquet"
    table = pa.table({"url": ["a", "b#page=1", "b#page=3", "c"], "n": [1, 2, 3, 4]})
    pq.write_table(table, path, row_group_size=2)
    rows = KeyedRows(path, "url")
    assert rows.get("c") == {"url": "c", "n": 4} and rows.get("z") is None
    by_source = KeyedRows(path, "url", key_of=lambda url: url.split("#")[0])
    assert [row["n"] for row in by_source.get_all("b")] == [2, 3] and by_source.count("b") == 2


def test_rows_taken_by_position_come_in_the_order_asked_across_row_groups(tmp_path: Path):
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"url": [f"u{n}" for n in range(10)], "n": list(range(10))}), path, row_group_size=3)
    rows = KeyedRows(path, "url")
    positions = [rows.position(f"u{n}") for n in (3, 4, 5, 6, 1, 0, 9, 8, 2, 7)]
    assert rows.take(positions).column("n").to_pylist() == [3, 4, 5, 6, 1, 0, 9, 8, 2, 7]
    # A night with nothing changed asks for runs of consecutive rows, in the file's order.
    assert rows.take([rows.position(f"u{n}") for n in range(10)]).to_pydict() == {
        "url": [f"u{n}" for n in range(10)], "n": list(range(10))
    }
    assert rows.take([]).num_rows == 0


def test_digest_tells_parts_apart():
    assert digest("ab", "c") != digest("a", "bc")
    assert digest(None) != digest("")
    assert digest(b"x") == digest("x")


def test_a_corpus_input_key_reads_every_column_and_row_in_order():
    import polars as pl

    from corpus_pipeline.dedup.reuse import inputs_key

    groups = pl.DataFrame({"canonical_url": ["a", "b", "c"], "content": ["A", "B", "C"], "fetched_at": [20, 10, 30]})
    assert inputs_key(groups, "v") == inputs_key(groups.clone(), "v")
    assert inputs_key(groups, "v") != inputs_key(groups.with_columns(pl.col("fetched_at") + 1), "v")
    assert inputs_key(groups, "v") != inputs_key(groups.with_columns(pl.lit("x").alias("content")), "v")
    assert inputs_key(groups, "v") != inputs_key(groups.reverse(), "v")
    assert inputs_key(groups, "v") != inputs_key(groups, "w")


def test_a_groups_input_key_ignores_the_order_of_records_only():
    import polars as pl

    from corpus_pipeline.dedup.reuse import records_key

    records = pl.DataFrame({"url": ["a", "b", "c"], "content": ["A", "B", "C"], "fetched_at": [1, 2, 3]})
    key = records_key(records, "v")
    assert key == records_key(records.reverse(), "v")
    assert key != records_key(records.with_columns(pl.col("fetched_at") * 10), "v")
    assert key != records_key(records.with_columns(pl.lit("x").alias("content")), "v")
    assert key != records_key(records, "w")
    assert key != records_key(pl.concat([records, records.head(1)]), "v")


def test_a_few_items_to_compute_go_the_few_way_and_many_the_pool_way():
    calls: list[str] = []

    def way(name):
        def compute(items):
            for item in items:
                calls.append(f"{name} {item}")
                yield item * 10
        return compute

    def plan(item: int):
        return item, None if item in changed else (lambda: -item)

    changed = {2, 5}
    results = list(kept_or_computed(range(8), plan, way("pool"), way("here"), few_below=3))
    assert [r for _, r, _ in results] == [0, -1, 20, -3, -4, 50, -6, -7] and calls == ["here 2", "here 5"]
    calls.clear()
    changed = {1, 2, 5, 7}
    results = list(kept_or_computed(range(8), plan, way("pool"), way("here"), few_below=3))
    assert [r for _, r, _ in results] == [0, 10, 20, -3, -4, 50, -6, 70] and calls == [f"pool {i}" for i in (1, 2, 5, 7)]
