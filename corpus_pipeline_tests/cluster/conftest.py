"""PostgreSQL and Redis for the cluster tests, started on loopback and stopped afterwards.

On a developer's machine without the servers the tests are skipped with the reason; under CI=true a missing server
fails the run, so CI never passes by skipping them (scripts/setup.sh installs both).
"""

from __future__ import annotations

import os

import pytest

from corpus_pipeline.cluster.services import missing_services, running_postgres, running_redis


def require_services() -> None:
    """Skip (locally) or fail (CI) when PostgreSQL or Redis is not installed."""
    missing = missing_services()
    if not missing:
        return
    reason = "; ".join(missing)
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI needs PostgreSQL and Redis: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def postgres():
    """A fresh PostgreSQL on 127.0.0.1 for the module's tests."""
    require_services()
    with running_postgres() as server:
        yield server


@pytest.fixture(scope="module")
def redis():
    """A fresh Redis on 127.0.0.1 for the module's tests."""
    require_services()
    with running_redis() as server:
        yield server
