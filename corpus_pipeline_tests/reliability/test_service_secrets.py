"""scripts/services.sh keeps its passwords to its owner, and the Redis it starts asks for one (issue 43, item 8)."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
from pathlib import Path

import pytest
import redis as redis_client

from corpus_pipeline_tests.support.services import missing_services, running_redis

ROOT = Path(__file__).resolve().parents[2]


def _require_services() -> None:
    missing = missing_services()
    if missing:
        pytest.fail(f"these tests need PostgreSQL and Redis (scripts/setup.sh installs them): {'; '.join(missing)}")


def _services(command: str, state_dir: Path) -> subprocess.CompletedProcess:
    """scripts/services.sh as a user with the usual umask (022: new files world-readable unless told otherwise)."""
    env = {**os.environ, "CORPUS_PIPELINE_SERVICES_DIR": str(state_dir)}
    return subprocess.run(["bash", str(ROOT / "scripts" / "services.sh"), command], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, preexec_fn=lambda: os.umask(0o022))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_services_sh_writes_its_secrets_for_the_owner_only_and_redis_wants_the_password(tmp_path):
    _require_services()
    state = tmp_path / "state"
    started = _services("start", state)
    try:
        assert started.returncode == 0, started.stderr
        env_file = state / "services.env"
        assert _mode(env_file) == 0o600 and _mode(state / "services.log") == 0o600
        exports = dict(line.removeprefix("export ").split("=", 1) for line in env_file.read_text().splitlines())
        password = exports["DAGSTER_PG_PASSWORD"]
        assert password not in (state / "services.log").read_text()
        broker = exports["CORPUS_PIPELINE_CELERY_BROKER"]
        assert broker.startswith("redis://:") and "@127.0.0.1:" in broker
        client = redis_client.Redis.from_url(broker, socket_timeout=5)
        assert client.ping() and client.set("probe", "1")
        host, port = broker.rsplit("@", 1)[1].split("/")[0].split(":")
        _assert_refused_without_password(host, int(port))
    finally:
        stopped = _services("stop", state)
    assert stopped.returncode == 0, stopped.stderr
    assert not (state / "services.env").exists()


def test_running_redis_refuses_a_client_without_the_password(tmp_path):
    _require_services()
    with running_redis() as server:
        _assert_refused_without_password(server.host, server.port)
        for url in (server.broker_url, server.backend_url):
            assert server.password in url and redis_client.Redis.from_url(url, socket_timeout=5).ping()


def _assert_refused_without_password(host: str, port: int) -> None:
    with socket.create_connection((host, port), timeout=5) as connection:
        connection.sendall(b"SET probe 2\r\n")
        assert connection.recv(64).startswith(b"-NOAUTH")
