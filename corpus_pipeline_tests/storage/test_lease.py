"""The partition lock on an object store: one holder at a time, a dead run's lease taken over, a lost one noticed."""

from __future__ import annotations

import multiprocessing
import time

import polars as pl
import pytest

from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.core.storage import ObjectStoreSettings
from corpus_pipeline.core.versions import PartitionBusyError
from corpus_pipeline.core.warehouse import ObjectWarehouse

LEASE_KEY = "_versions/corpus/website=site/.lease"
SHORT_LEASE_S = 5.0  # renewed every 1.7 s even on a busy CI machine, and short enough to wait for its expiry


def record(url: str) -> dict:
    return {"website": "site", "url": url, "canonical_url": url, "content": "text", "h1": [], "h2": []}


def machine(uri: str, settings: ObjectStoreSettings, cache, lease_seconds: float = SHORT_LEASE_S) -> ObjectWarehouse:
    """A warehouse as another worker machine opens it: same URI, its own cache and its own lease."""
    return ObjectWarehouse(uri, settings=settings, cache_dir=cache, lease_seconds=lease_seconds)


def _hold_lock_until_killed(uri: str, endpoint_url: str, cache: str, ready) -> None:
    warehouse = machine(uri, ObjectStoreSettings(endpoint_url=endpoint_url, region="us-east-1"), cache)
    with warehouse.history("corpus", "site").lock():
        ready.set()
        time.sleep(600)  # killed long before


def test_two_machines_cannot_write_one_partition_at_once(loopback_s3, bucket, tmp_path):
    uri = f"s3://{bucket}/w"
    first = machine(uri, loopback_s3.settings(), tmp_path / "a").history("corpus", "site")
    second = machine(uri, loopback_s3.settings(), tmp_path / "b").history("corpus", "site")
    with first.lock(), pytest.raises(PartitionBusyError, match="held by"), second.lock():
        pass
    with second.lock():  # released by its holder
        pass


def test_a_killed_runs_lease_is_taken_over_once_it_expires(loopback_s3, bucket, tmp_path):
    uri = f"s3://{bucket}/w"
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    holder = context.Process(
        target=_hold_lock_until_killed, args=(uri, loopback_s3.endpoint_url, str(tmp_path / "dead"), ready)
    )
    holder.start()
    history = machine(uri, loopback_s3.settings(), tmp_path / "next").history("corpus", "site")
    try:
        while not ready.wait(1) and holder.is_alive():
            pass
        assert ready.is_set(), "the first run never took the lock"
        with pytest.raises(PartitionBusyError), history.lock():  # alive: it keeps renewing its lease
            pass
    finally:
        holder.kill()
        holder.join(30)
    assert history.store.exists(LEASE_KEY), "a killed run never releases its lease"
    taken_over = False
    for _ in range(240):  # the store's clock decides when the lease expired
        try:
            with history.lock():
                taken_over = True
            break
        except PartitionBusyError:
            time.sleep(0.5)
    assert taken_over


def test_a_run_whose_lease_was_taken_over_publishes_nothing(loopback_s3, bucket, tmp_path):
    warehouse = machine(f"s3://{bucket}/w", loopback_s3.settings(), tmp_path, lease_seconds=60)
    warehouse.write_frame("corpus", "site", pl.DataFrame([record("http://site.test/current")]), RECORD_SCHEMA)
    history = warehouse.history("corpus", "site")
    current = history.current()
    with history.lock():
        with history.new_version(RECORD_SCHEMA) as version:
            version.write(record("http://site.test/late"))
        warehouse.store.write_bytes(LEASE_KEY, b'{"holder": "the run that took over"}')
        with pytest.raises(PartitionBusyError, match="no longer held"):
            history.publish(version.version_id)
    assert history.current() == current
    assert warehouse.store.read_bytes(LEASE_KEY) == b'{"holder": "the run that took over"}', "not released by the loser"
