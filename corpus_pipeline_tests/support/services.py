"""PostgreSQL and Redis started on 127.0.0.1 in a temporary folder, for tests, benchmarks and trying the cluster set-up.

Nothing here assumes a server is already running: each context manager starts its own on a free loopback port and
stops it (and removes its files) on exit, even when the body fails. Usage from a shell: ``scripts/services.sh``.
"""

from __future__ import annotations

import argparse
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

LOOPBACK = "127.0.0.1"
# Starting either server takes well under a second on an idle machine; a busy 2-core CI machine gets ample slack.
START_TIMEOUT_S = 60.0
# PostgreSQL refuses to run as root; as root we run it as Debian's `postgres` system user.
POSTGRES_SYSTEM_USER = "postgres"
POSTGRES_DB = "dagster"
POSTGRES_USER = "corpus_pipeline"


class ServiceUnavailable(RuntimeError):
    """A server binary is not installed (``scripts/setup.sh`` installs them)."""


@dataclass(frozen=True)
class PostgresServer:
    """Where a running PostgreSQL listens, and the credentials of its one database."""

    port: int
    user: str
    password: str
    db_name: str
    host: str = LOOPBACK

    @property
    def url(self) -> str:
        """SQLAlchemy URL with the driver dagster-postgres installs (psycopg2), as deploy/dagster.yaml names it."""
        return f"postgresql+psycopg2://{self.user}:{self.password}@{self.host}:{self.port}/{self.db_name}"

    def env(self) -> dict[str, str]:
        """The variables deploy/dagster.yaml reads its Postgres connection from."""
        return {
            "DAGSTER_PG_HOST": self.host,
            "DAGSTER_PG_PORT": str(self.port),
            "DAGSTER_PG_USERNAME": self.user,
            "DAGSTER_PG_PASSWORD": self.password,
            "DAGSTER_PG_DB": self.db_name,
        }


@dataclass(frozen=True)
class RedisServer:
    """Where a running Redis listens, and its password; database 0 is the Celery broker, database 1 its backend."""

    port: int
    password: str
    host: str = LOOPBACK

    @property
    def broker_url(self) -> str:
        return f"redis://:{self.password}@{self.host}:{self.port}/0"

    @property
    def backend_url(self) -> str:
        return f"redis://:{self.password}@{self.host}:{self.port}/1"

    def env(self) -> dict[str, str]:
        """The variables deploy/celery.yaml and the Celery executor read the broker and backend from."""
        return {"CORPUS_PIPELINE_CELERY_BROKER": self.broker_url, "CORPUS_PIPELINE_CELERY_BACKEND": self.backend_url}


def write_secret(path: Path, text: str) -> None:
    """Write a file only its owner can read (0600 from its creation, whatever the umask), replacing it whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    descriptor = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w") as handle:
            os.fchmod(handle.fileno(), 0o600)  # the umask can only take bits away; make the mode exact
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def free_port() -> int:
    """A loopback TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def postgres_bin_dir() -> Path:
    """Folder of initdb/pg_ctl: on the PATH, else Debian's newest /usr/lib/postgresql/<version>/bin."""
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).resolve().parent
    installed = Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")
    versions = sorted(installed, key=lambda p: _version_key(p.parent.parent.name))
    if not versions:
        raise ServiceUnavailable("PostgreSQL is not installed (pg_ctl not found): apt-get install postgresql")
    return versions[-1].parent


def redis_server_binary() -> Path:
    """Path of redis-server."""
    found = shutil.which("redis-server")
    if not found:
        raise ServiceUnavailable("Redis is not installed (redis-server not found): apt-get install redis-server")
    return Path(found)


def missing_services() -> list[str]:
    """The reasons the cluster set-up cannot start here (empty when both servers are installed)."""
    reasons = []
    for probe in (postgres_bin_dir, redis_server_binary):
        try:
            probe()
        except ServiceUnavailable as missing:
            reasons.append(str(missing))
    return reasons


@contextmanager
def running_postgres(port: int | None = None) -> Iterator[PostgresServer]:
    """A fresh PostgreSQL cluster on 127.0.0.1 with one database, password-authenticated; removed on exit."""
    bin_dir = postgres_bin_dir()
    server = PostgresServer(port=port or free_port(), user=POSTGRES_USER, password=secrets.token_hex(12),
                            db_name=POSTGRES_DB)
    workdir = Path(tempfile.mkdtemp(prefix="corpus_pipeline_pg_"))
    try:
        run_as = _unprivileged_prefix(workdir)
        data_dir, log = workdir / "data", workdir / "postgres.log"
        password_file = workdir / "password"
        write_secret(password_file, server.password + "\n")
        _chown_to_runner(workdir, password_file)
        _run(run_as + [str(bin_dir / "initdb"), "-D", str(data_dir), "-U", server.user, "-A", "scram-sha-256",
                       f"--pwfile={password_file}", "-E", "UTF8", "--no-sync"], "initdb")
        password_file.unlink()
        # Unix socket in our own folder: the system's /var/run/postgresql may not exist or belong to another server.
        options = f"-h {LOOPBACK} -p {server.port} -k {workdir} -c fsync=off -c full_page_writes=off"
        _run(run_as + [str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-l", str(log), "-o", options, "-w",
                       "-t", str(int(START_TIMEOUT_S)), "start"], "pg_ctl start", log)
        try:
            _run([str(bin_dir / "createdb"), "-h", LOOPBACK, "-p", str(server.port), "-U", server.user,
                  server.db_name], "createdb", env={**os.environ, "PGPASSWORD": server.password})
            yield server
        finally:
            stop = [str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-m", "immediate", "-w", "stop"]
            subprocess.run(run_as + stop, check=False, capture_output=True, timeout=START_TIMEOUT_S)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@contextmanager
def running_redis(port: int | None = None) -> Iterator[RedisServer]:
    """A fresh Redis on 127.0.0.1 that asks for a password and keeps nothing on disk; stopped on exit.

    The password is in a 0600 configuration file, not on the command line where ``ps`` would show it.
    """
    binary = redis_server_binary()
    server = RedisServer(port=port or free_port(), password=secrets.token_hex(16))
    workdir = Path(tempfile.mkdtemp(prefix="corpus_pipeline_redis_"))
    log = workdir / "redis.log"
    config = workdir / "redis.conf"
    write_secret(config, f"requirepass {server.password}\n")
    process = subprocess.Popen(
        [str(binary), str(config), "--bind", LOOPBACK, "--port", str(server.port), "--dir", str(workdir),
         "--save", "", "--appendonly", "no", "--logfile", str(log), "--daemonize", "no"],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
    )
    try:
        _wait_for_redis(server, process, log)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(workdir, ignore_errors=True)


@contextmanager
def running_services() -> Iterator[tuple[PostgresServer, RedisServer]]:
    """PostgreSQL and Redis together, stopped in reverse order."""
    with ExitStack() as stack:
        yield stack.enter_context(running_postgres()), stack.enter_context(running_redis())


def _wait_for_redis(server: RedisServer, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server exited with {process.returncode}: {_tail(log)}")
        try:
            with socket.create_connection((server.host, server.port), timeout=1) as connection:
                connection.sendall(f"AUTH {server.password}\r\nPING\r\n".encode())
                if _read_replies(connection, 2) == b"+OK\r\n+PONG\r\n":
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"redis-server did not answer on {server.host}:{server.port} within {START_TIMEOUT_S} s")


def _read_replies(connection: socket.socket, count: int) -> bytes:
    """The next ``count`` one-line replies of a Redis connection."""
    received = b""
    while received.count(b"\r\n") < count:
        chunk = connection.recv(256)
        if not chunk:
            break
        received += chunk
    return received


def _unprivileged_prefix(workdir: Path) -> list[str]:
    """Command prefix that runs a program as the postgres system user when we are root (and nothing otherwise)."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(POSTGRES_SYSTEM_USER)
    except KeyError as missing:
        reason = f"running as root and no '{POSTGRES_SYSTEM_USER}' user to run PostgreSQL as"
        raise ServiceUnavailable(reason) from missing
    return ["runuser", "-u", POSTGRES_SYSTEM_USER, "--"]


def _chown_to_runner(*paths: Path) -> None:
    if os.geteuid() != 0:
        return
    account = pwd.getpwnam(POSTGRES_SYSTEM_USER)
    for path in paths:
        os.chown(path, account.pw_uid, account.pw_gid)


def _run(command: list[str], what: str, log: Path | None = None, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=START_TIMEOUT_S * 2,
                            env=env)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip()[-2000:]
        raise RuntimeError(f"{what} failed ({result.returncode}): {detail} {_tail(log) if log else ''}".strip())


def _tail(log: Path, chars: int = 2000) -> str:
    try:
        return log.read_text(errors="replace")[-chars:]
    except OSError:
        return ""


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def main() -> None:
    """Start both servers, print their environment variables as shell exports, and run until interrupted."""
    parser = argparse.ArgumentParser(description="Run PostgreSQL and Redis on 127.0.0.1 until interrupted.")
    parser.add_argument("--env-file", type=Path, help="also write the export lines to this file")
    args = parser.parse_args()
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, frame: stop.set())
    with running_services() as (postgres, redis):
        exports = "".join(f"export {key}={value}\n" for key, value in {**postgres.env(), **redis.env()}.items())
        if args.env_file:  # the passwords go to the owner-only file alone, not to a log
            write_secret(args.env_file, exports)
            print(f"variables (passwords included) in {args.env_file}", flush=True)
        else:
            sys.stdout.write(exports)
            sys.stdout.flush()
        stop.wait()


if __name__ == "__main__":
    main()
