"""The object store primitives the warehouse relies on, against a real S3-compatible server."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus_pipeline.core.storage import ObjectStore, ObjectStoreSettings, is_object_store_uri


@pytest.fixture
def store(loopback_s3, bucket) -> ObjectStore:
    return ObjectStore(f"s3://{bucket}/prefix/", loopback_s3.settings())


def test_only_one_writer_creates_an_object(store):
    assert store.create("lease", b"first") is not None
    assert store.create("lease", b"second") is None
    assert store.read_bytes("lease") == b"first"


def test_a_conditional_replace_refuses_a_stale_etag(store):
    first = store.create("pointer", b"v1")
    second = store.replace_if("pointer", b"v2", first)
    assert second is not None and second != first
    assert store.replace_if("pointer", b"v3 from a writer that read v1", first) is None
    assert store.read_bytes("pointer") == b"v2"


def test_listing_returns_the_objects_of_one_folder_only(store):
    for key in ("a/x.parquet", "a/y.json", "a/deeper/z.parquet", "b/x.parquet"):
        store.write_bytes(key, b"-")
    assert store.list("a") == ["a/x.parquet", "a/y.json"]
    assert store.list("missing") == []
    store.delete_folder("a")
    assert store.list("a") == [] and store.exists("a/deeper/z.parquet")


def test_a_missing_object_reads_as_none(store):
    assert store.read_bytes("nothing") is None
    assert store.read_with_etag("nothing") is None
    assert store.etag("nothing") is None
    store.delete("nothing")  # no error


@given(st.sampled_from(["s3", "s3a", "file", "", "http", "C"]), st.text(alphabet="abc/-_.", max_size=20))
def test_only_s3_schemes_are_object_stores(scheme, rest):
    location = f"{scheme}://{rest}" if scheme else rest
    assert is_object_store_uri(location) == (scheme in ("s3", "s3a"))


def test_polars_is_told_the_endpoint_and_to_allow_plain_http_on_loopback():
    options = ObjectStoreSettings(endpoint_url="http://127.0.0.1:9000", region="eu-west-1").polars_options()
    assert options["aws_endpoint_url"] == "http://127.0.0.1:9000"
    assert options["aws_allow_http"] == "true" and options["aws_region"] == "eu-west-1"
    assert "aws_allow_http" not in ObjectStoreSettings(endpoint_url="https://s3.example.org").polars_options()
