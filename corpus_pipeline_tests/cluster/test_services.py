"""The loopback PostgreSQL and Redis the cluster set-up is tested against."""

from __future__ import annotations

import socket

import dagster as dg
from dagster_postgres import PostgresRunStorage

from corpus_pipeline_tests.support.services import LOOPBACK


def test_postgres_accepts_its_credentials_and_keeps_dagster_runs(postgres):
    storage = PostgresRunStorage(postgres.url)
    run = dg.DagsterRun(job_name="probe", run_id="00000000-0000-0000-0000-000000000001")
    storage.add_run(run)
    (stored,) = storage.get_runs(dg.RunsFilter(run_ids=[run.run_id]))
    assert stored.job_name == "probe"
    assert postgres.host == LOOPBACK and postgres.env()["DAGSTER_PG_PORT"] == str(postgres.port)


def test_redis_answers_on_loopback(redis):
    with socket.create_connection((redis.host, redis.port), timeout=5) as connection:
        connection.sendall(f"AUTH {redis.password}\r\nPING\r\n".encode())
        replies = b""
        while replies.count(b"\r\n") < 2:
            replies += connection.recv(64)
        assert replies == b"+OK\r\n+PONG\r\n"
    assert redis.env()["CORPUS_PIPELINE_CELERY_BROKER"] == f"redis://:{redis.password}@{LOOPBACK}:{redis.port}/0"
