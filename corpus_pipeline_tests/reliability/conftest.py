"""Shared set-up of the reliability suite: hostile loopback servers and a guard against real traffic."""

from __future__ import annotations

import ipaddress
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from corpus_pipeline.crawl.settings import CrawlSettings


@dataclass
class NetworkGuard:
    """Records, and blocks by raising, every lookup or connection beyond loopback while active."""

    active: bool = False
    attempts: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, event: str, args: tuple) -> None:
        if not self.active or event not in ("socket.connect", "socket.getaddrinfo"):
            return
        host = args[0] if event == "socket.getaddrinfo" else _address_host(args[1])
        if host is None or _is_loopback(str(host)):
            return
        with self.lock:
            self.attempts.append((event, str(host)))
        raise PermissionError(f"test network guard: {event} to {host} is beyond loopback")


def _address_host(address) -> str | None:
    return address[0] if isinstance(address, tuple) and address else None  # AF_UNIX paths are no traffic


def _is_loopback(host: str) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]").split("%", 1)[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(scope="session")
def _session_guard() -> NetworkGuard:
    guard = NetworkGuard()
    sys.addaudithook(guard)  # audit hooks cannot be removed: one per session, switched on per test
    return guard


@pytest.fixture
def network_guard(_session_guard: NetworkGuard) -> Iterator[NetworkGuard]:
    """While the test runs, any traffic beyond loopback is recorded in ``attempts`` and refused."""
    _session_guard.attempts.clear()
    _session_guard.active = True
    try:
        yield _session_guard
    finally:
        _session_guard.active = False


@pytest.fixture
def hostile_settings() -> CrawlSettings:
    """Fast settings for hostile servers: no politeness delay, short timeouts, few retries."""
    return CrawlSettings(
        min_delay_s=0.0, backoff_base_s=0.01, connect_timeout_s=1.0, read_timeout_s=1.0, total_timeout_s=3.0,
        max_retries=2, max_retry_after_s=1.0,
    )


@pytest.fixture(scope="session")
def nightly_demo_root(tmp_path_factory) -> Path:
    """The demo website's files, for tests that start and stop its server (the registry's ``nightly`` entry)."""
    from corpus_pipeline_demo.site import build_demo_site

    root = tmp_path_factory.mktemp("nightly_site")
    build_demo_site(root)
    return root
