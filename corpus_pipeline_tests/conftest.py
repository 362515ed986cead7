"""Session set-up shared by all tests.

The Dagster code location reads its registry when it is imported, so the test
registry (the demo website on a free loopback port, plus a website whose host
is down) is written and announced through the environment before any test
imports ``corpus_pipeline.definitions``.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from corpus_pipeline.core.registry import REGISTRY_ENV_VAR
from corpus_pipeline.core.warehouse import DATA_DIR_ENV_VAR

# Property tests judge behaviour, not speed: on a busy 2-core CI machine generation can be slow,
# and a slow draw is no failure of the code under test.
# Under CI the draws are derandomized: a landing is judged on the same examples each time, and new cases are found by
# the runs on developers' machines (which then become explicit tests).
settings.register_profile(
    "corpus_pipeline", deadline=None, suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CI") == "true",
)
settings.load_profile("corpus_pipeline")


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def pytest_configure(config: pytest.Config) -> None:
    session_dir = Path(tempfile.mkdtemp(prefix="corpus_pipeline_tests_"))
    demo_port, closed_port, nightly_port, blog_port = free_port(), free_port(), free_port(), free_port()
    wordpress_port = free_port()
    registry = session_dir / "websites.yaml"
    registry.write_text(
        f"""
websites:
  - name: demo
    url: http://127.0.0.1:{demo_port}/
    mode: sitemap
    langs: [fr]
    default_lang: en
    category: demo
  - name: unreachable
    url: http://127.0.0.1:{closed_port}/
    mode: crawl
  - name: nightly
    url: http://127.0.0.1:{nightly_port}/
    mode: sitemap
    langs: [fr]
    default_lang: en
  - name: blog
    url: http://127.0.0.1:{blog_port}/
    mode: crawl
  - name: wordpress-sitemap
    url: http://127.0.0.1:{wordpress_port}/
    mode: sitemap
    sitemap: /wp-sitemap.xml
  - name: wordpress-crawl
    url: http://127.0.0.1:{wordpress_port}/
    mode: crawl
"""
    )
    os.environ[REGISTRY_ENV_VAR] = str(registry)
    os.environ[DATA_DIR_ENV_VAR] = str(session_dir / "data")
    config.stash[_SESSION] = (session_dir, demo_port)
    config.stash[NIGHTLY_PORT] = nightly_port
    config.stash[BLOG_PORT] = blog_port
    config.stash[WORDPRESS_PORT] = wordpress_port


def pytest_unconfigure(config: pytest.Config) -> None:
    session_dir, _ = config.stash.get(_SESSION, (None, None))
    if session_dir is not None:
        shutil.rmtree(session_dir, ignore_errors=True)


_SESSION = pytest.StashKey[tuple[Path, int]]()
NIGHTLY_PORT = pytest.StashKey[int]()
BLOG_PORT = pytest.StashKey[int]()
WORDPRESS_PORT = pytest.StashKey[int]()


@pytest.fixture(scope="session")
def demo_site(pytestconfig):
    """The bundled demo website, built once and served on the registry's loopback port."""
    from corpus_pipeline_demo.server import serve_site
    from corpus_pipeline_demo.site import build_demo_site

    session_dir, port = pytestconfig.stash[_SESSION]
    root = session_dir / "demo_site"
    facts = build_demo_site(root)
    with serve_site(root, port=port) as base_url:
        yield base_url, facts


@pytest.fixture(scope="session")
def nightly_site_port(pytestconfig) -> int:
    """Loopback port of the registry's ``nightly`` website, which tests start and stop themselves."""
    return pytestconfig.stash[NIGHTLY_PORT]


@pytest.fixture(scope="session")
def wordpress_site_port(pytestconfig) -> int:
    """Loopback port of the registry's ``wordpress-sitemap`` and ``wordpress-crawl`` websites (one WordPress, two
    modes), which test_wordpress_end_to_end.py serves."""
    return pytestconfig.stash[WORDPRESS_PORT]


@pytest.fixture(scope="session")
def blog_site(pytestconfig):
    """A small blog with date, tag and category archives and a paginated home page (corpus_pipeline_tests/blog_site.py),
    served on the registry's ``blog`` port."""
    from corpus_pipeline_demo.server import serve_site
    from corpus_pipeline_tests.blog_site import build_blog_site

    session_dir, _ = pytestconfig.stash[_SESSION]
    root = session_dir / "blog_site"
    facts = build_blog_site(root)
    with serve_site(root, port=pytestconfig.stash[BLOG_PORT]) as base_url:
        yield base_url, facts
