"""A backfill of many small websites through Dagster's run queue, on one machine and on the cluster set-up.

Usage: python benchmarks/backfill_bench.py [--sites 20] [--modes one-by-one local cluster] [--keep DIR]

Each generated website (a sitemap, an index and a few article pages of distinct text) is served on its own loopback
port and is one partition of ``corpus_job``. For each mode, ``dagster job backfill`` queues one run per website and
``dagster-daemon`` dequeues them under the instance's run concurrency:
- one-by-one: the project's dagster.yaml (sqlite, multiprocess executor) with max_concurrent_runs 1, the baseline;
- local: the project's dagster.yaml as shipped (max_concurrent_runs 4);
- cluster: deploy/dagster.yaml (PostgreSQL) and the Celery executor with two workers on Redis, max_concurrent_runs 4.
PostgreSQL and Redis are started on 127.0.0.1 for the run and stopped after it. Printed per mode: wall time from the
backfill's launch to its last run's end, its ratio to the one-by-one baseline measured in the same run, the most
runs in progress at one instant (from the recorded start and end times), the mean run time, failed runs, the CPU
seconds of the mode's process tree (daemon, code server, runs, steps, workers, sampled every second: a lower bound;
PostgreSQL, which detaches, is not counted), and the 1-minute load average during the mode (other jobs included).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import print_table
from corpus_pipeline.cluster.executor import EXECUTOR_ENV_VAR
from corpus_pipeline.core.registry import REGISTRY_ENV_VAR
from corpus_pipeline.core.warehouse import DATA_DIR_ENV_VAR
from corpus_pipeline_demo.server import serve_site
from corpus_pipeline_tests.support.local_cluster import (
    DEPLOY_DIR,
    PROJECT_ROOT,
    BackfillOutcome,
    celery_workers,
    create_instance_storage,
    dagster_daemon,
    deployment_env,
    launch_backfill,
    prepare_dagster_home,
    wait_for_backfill,
)
from corpus_pipeline_tests.support.services import running_postgres, running_redis

MODES = ("one-by-one", "local", "cluster")
PAGES_PER_SITE = 6
WORDS_PER_PAGE = 220
CELERY_WORKERS = 2
# Failure bounds for one mode (20 websites on a busy 2-core machine stay far below).
LAUNCH_TIMEOUT_S = 300
BACKFILL_TIMEOUT_S = 3600
# How often the process tree and the load average are read during a mode: a step's process lives seconds.
SAMPLE_INTERVAL_S = 1.0
# Words of the generated pages; the seed of each website picks its own text from them.
VOCABULARY_TEXT = (
    "river harbour lantern orchard granite meadow copper willow signal archive basalt cedar ferry glacier "
    "harvest island juniper kettle ledger marble nickel oyster pepper quarry ribbon saddle timber umbrella "
    "velvet walnut yarrow zephyr anchor beacon canyon delta ember falcon garnet hollow indigo jasper kelp lagoon "
    "maple nectar"
)
VOCABULARY = tuple(VOCABULARY_TEXT.split())


@dataclass(frozen=True)
class ModeResult:
    mode: str
    outcome: BackfillOutcome
    machine: MachineSamples

    def row(self, baseline_s: float | None) -> list[object]:
        durations = [r.end_time - r.start_time for r in self.outcome.records
                     if r.start_time is not None and r.end_time is not None]
        ratio = f"{self.outcome.wall_s / baseline_s:.2f}x" if baseline_s else "-"
        load = self.machine.load
        load_text = f"{statistics.mean(load):.1f} / {max(load):.1f}" if load else "-"
        return [self.mode, len(self.outcome.records), round(self.outcome.wall_s, 1), ratio,
                self.outcome.max_parallel, round(statistics.mean(durations), 1) if durations else "-",
                len(self.outcome.failures), round(self.machine.cpu_s), load_text]


@dataclass
class MachineSamples:
    """What a mode cost, read while it runs: CPU seconds per process of the tree, and the load average."""

    cpu_by_process: dict[tuple[int, float], float] = field(default_factory=dict)
    load: list[float] = field(default_factory=list)

    @property
    def cpu_s(self) -> float:
        return sum(self.cpu_by_process.values())

    def sample(self, root: psutil.Process) -> None:
        for process in root.children(recursive=True):
            try:
                with process.oneshot():
                    times = process.cpu_times()
                    self.cpu_by_process[(process.pid, process.create_time())] = times.user + times.system
            except psutil.Error:  # ended between the listing and the read
                continue
        self.load.append(os.getloadavg()[0])


@contextmanager
def sampled_machine(interval_s: float = SAMPLE_INTERVAL_S) -> Iterator[MachineSamples]:
    """Samples of this process's descendants and of the load average every ``interval_s`` while the body runs.

    A process's CPU time is its last reading, so what it spent after that (less than ``interval_s``) is missed:
    the figure is a lower bound. Processes that detach (PostgreSQL's server) are not descendants."""
    samples = MachineSamples()
    stop = threading.Event()
    root = psutil.Process()

    def run() -> None:
        while not stop.wait(interval_s):
            samples.sample(root)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield samples
    finally:
        stop.set()
        thread.join()


def write_site(root: Path, index: int) -> Path:
    """A small website of PAGES_PER_SITE articles with text of its own (seeded by ``index``)."""
    rng = random.Random(index)
    root.mkdir(parents=True)
    pages = [f"/article-{page}.html" for page in range(PAGES_PER_SITE)]
    for path in pages:
        words = " ".join(rng.choice(VOCABULARY) for _ in range(WORDS_PER_PAGE))
        body = f"<h1>Site {index} {path}</h1>" + "".join(f"<p>{words[i:i + 400]}</p>" for i in range(0, len(words), 400))
        (root / path.lstrip("/")).write_text(
            f"<!doctype html><html lang='en'><head><title>Site {index} {path}</title></head>"
            f"<body><main><article>{body}</article></main></body></html>"
        )
    links = "".join(f"<li><a href='{path}'>{path}</a></li>" for path in pages)
    (root / "index.html").write_text(f"<!doctype html><html><body><h1>Site {index}</h1><ul>{links}</ul></body></html>")
    (root / "robots.txt").write_text("User-agent: *\nAllow: /\n")
    return root


def write_sitemap(root: Path, base_url: str) -> None:
    entries = "".join(f"<url><loc>{base_url}/{page.name}</loc></url>" for page in sorted(root.glob("*.html")))
    (root / "sitemap.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"{entries}</urlset>"
    )


@contextmanager
def served_websites(workdir: Path, count: int) -> Iterator[dict[str, str]]:
    """``count`` generated websites, each on its own loopback port; yields partition name -> base URL."""
    with ExitStack() as stack:
        urls: dict[str, str] = {}
        for index in range(count):
            root = write_site(workdir / "sites" / f"site-{index:02d}", index)
            urls[f"site-{index:02d}"] = base_url = stack.enter_context(serve_site(root))
            write_sitemap(root, base_url)
        yield urls


def write_registry(path: Path, urls: dict[str, str]) -> Path:
    path.write_text("websites:\n" + "".join(
        f"  - name: {name}\n    url: {url}/\n    mode: sitemap\n    ocr: 0\n" for name, url in urls.items()))
    return path


def local_instance_yaml(path: Path, max_concurrent_runs: int) -> Path:
    """The project's dagster.yaml with another run concurrency."""
    config = yaml.safe_load((PROJECT_ROOT / "dagster.yaml").read_text())
    config["concurrency"]["runs"]["max_concurrent_runs"] = max_concurrent_runs
    path.write_text(yaml.safe_dump(config))
    return path


def run_mode(mode: str, workdir: Path, urls: dict[str, str]) -> ModeResult:
    """Backfill every website under ``mode``; returns the recorded outcome."""
    from dagster import DagsterInstance
    from dagster_postgres import PostgresRunStorage

    modedir = workdir / mode
    logs = modedir / "logs"
    logs.mkdir(parents=True)
    extra = {REGISTRY_ENV_VAR: str(write_registry(modedir / "websites.yaml", urls)),
             DATA_DIR_ENV_VAR: str(modedir / "data")}
    with ExitStack() as stack:
        machine = stack.enter_context(sampled_machine())
        if mode == "cluster":
            postgres = stack.enter_context(running_postgres())
            redis = stack.enter_context(running_redis())
            home = prepare_dagster_home(modedir / "home", DEPLOY_DIR / "dagster.yaml")
            env = deployment_env(home, {**extra, EXECUTOR_ENV_VAR: "celery", **postgres.env(), **redis.env()})
            runs = PostgresRunStorage(postgres.url)
            create_instance_storage(env, timeout_s=LAUNCH_TIMEOUT_S)
            stack.enter_context(celery_workers(CELERY_WORKERS, env, logs))
        else:
            instance_yaml = local_instance_yaml(modedir / "dagster.yaml", 1 if mode == "one-by-one" else 4)
            home = prepare_dagster_home(modedir / "home", instance_yaml)
            env = deployment_env(home, {**extra, EXECUTOR_ENV_VAR: "multiprocess"})
            runs = DagsterInstance.from_config(str(home))
            create_instance_storage(env, timeout_s=LAUNCH_TIMEOUT_S)
        stack.enter_context(dagster_daemon(env, logs))
        started = time.monotonic()
        backfill_id = launch_backfill(env, "corpus_job", list(urls), timeout_s=LAUNCH_TIMEOUT_S)
        outcome = wait_for_backfill(runs, backfill_id, len(urls), timeout_s=BACKFILL_TIMEOUT_S, started=started)
    result = ModeResult(mode, outcome, machine)
    print(f"  {mode}: {len(outcome.records)} runs in {outcome.wall_s:.1f} s, {len(outcome.failures)} failed "
          f"{outcome.failures}, {machine.cpu_s:.0f} CPU s, load average {result.row(None)[-1]} (mean / max)",
          flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=20, help="number of generated websites (partitions)")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--keep", type=Path, help="keep logs, instances and Parquet in this folder")
    args = parser.parse_args()
    # A timeout's SIGTERM unwinds like Ctrl-C, so every server, daemon and worker is stopped on the way out.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="backfill_bench_"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"{args.sites} websites x {PAGES_PER_SITE} pages; modes: {', '.join(args.modes)}; files in {workdir}",
          flush=True)
    with served_websites(workdir, args.sites) as urls:
        results = [run_mode(mode, workdir, urls) for mode in args.modes]
    baseline = next((r.outcome.wall_s for r in results if r.mode == "one-by-one"), None)
    print_table(f"Backfill of {args.sites} websites through the run queue (ratio: wall time / one-by-one)",
                ["mode", "runs", "wall s", "ratio", "max parallel runs", "mean run s", "failed", "CPU s (tree)",
                 "load avg mean / max"],
                [result.row(baseline) for result in results])
    if not args.keep:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
