"""PostgreSQL and Redis for the cluster tests, started on loopback and stopped afterwards.

A missing server fails the tests with the reason, never skips them: scripts/setup.sh (run by the test command)
installs both, as it installs Tesseract and poppler.
"""

from __future__ import annotations

import pytest

from corpus_pipeline_tests.support.services import missing_services, running_postgres, running_redis


def require_services() -> None:
    """Fail with the reason when PostgreSQL or Redis is not installed."""
    missing = missing_services()
    if missing:
        pytest.fail(f"the cluster tests need PostgreSQL and Redis (scripts/setup.sh installs them): {'; '.join(missing)}")


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
