"""An S3-compatible server (moto's server mode) on 127.0.0.1, and a fresh bucket per test."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from corpus_pipeline.core.storage import ObjectStoreSettings

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "loopback-key", "AWS_SECRET_ACCESS_KEY": "loopback-secret"}


@dataclass(frozen=True)
class LoopbackS3:
    """Where the test's S3 server listens."""

    endpoint_url: str

    def settings(self) -> ObjectStoreSettings:
        return ObjectStoreSettings(endpoint_url=self.endpoint_url, region="us-east-1")

    def new_bucket(self) -> str:
        """A fresh, empty bucket's name."""
        import boto3

        name = f"warehouse-{uuid.uuid4().hex[:12]}"
        client = boto3.client("s3", endpoint_url=self.endpoint_url, region_name="us-east-1")
        client.create_bucket(Bucket=name)
        return name


@pytest.fixture(scope="session")
def loopback_s3() -> Iterator[LoopbackS3]:
    """moto's S3 server on a free loopback port, with test credentials in the environment."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    with pytest.MonkeyPatch.context() as environment:
        for name, value in CREDENTIALS.items():
            environment.setenv(name, value)
        for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
            environment.delenv(name, raising=False)
        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        server.start()
        try:
            host, port = server.get_host_and_port()
            yield LoopbackS3(f"http://{host}:{port}")
        finally:
            server.stop()


@pytest.fixture
def bucket(loopback_s3: LoopbackS3) -> str:
    return loopback_s3.new_bucket()
