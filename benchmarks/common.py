"""Helpers shared by the benchmarks: real text, peak memory, table printing."""

from __future__ import annotations

import gzip
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
from lxml import html

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")
DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
WORD = re.compile(r"\w+")


def bag_f1(predicted: str | None, expected: str | None) -> float:
    """Word-bag F1 (lower-cased \\w+ tokens, counted with multiplicity), as wcxb scores a page; 0 when a side is empty."""
    a, b = Counter(WORD.findall((predicted or "").lower())), Counter(WORD.findall((expected or "").lower()))
    if not a or not b:
        return 0.0
    tp = sum((a & b).values())
    if not tp:
        return 0.0
    p, r = tp / sum(a.values()), tp / sum(b.values())
    return 2 * p * r / (p + r)


def ensure_python_docs() -> Path:
    """Debian's python3.11-doc: 530 real HTML pages; installed on first use."""
    if not (PYTHON_DOCS / "index.html").exists():
        print("Installing Debian's python3.11-doc for the benchmark corpus...", flush=True)
        sudo = [] if shutil.which("id") and subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip() == "0" else ["sudo"]
        subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
        subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "python3.11-doc"], check=True)
    return PYTHON_DOCS


def python_doc_pages() -> list[Path]:
    """Every HTML page of the Python documentation, sorted."""
    root = ensure_python_docs()
    return sorted(p for p in root.rglob("*.html") if p.is_file())


def python_doc_paragraphs(limit: int | None = None) -> list[str]:
    """Real English paragraphs (40+ words) from the Python documentation, deduplicated, in a stable order."""
    seen: set[str] = set()
    paragraphs: list[str] = []
    for page in python_doc_pages():
        data = page.read_bytes()
        if page.suffix == ".gz":
            data = gzip.decompress(data)
        document = html.document_fromstring(data)
        for node in document.iter("p"):
            text = " ".join(node.text_content().split())
            if len(text.split()) >= 40 and text not in seen:
                seen.add(text)
                paragraphs.append(text)
                if limit and len(paragraphs) >= limit:
                    return paragraphs
    return paragraphs


class PeakMemory:
    """Peak memory of a process (this one by default) and its children while the block runs, in MiB.

    ``peak_mib`` is the proportional set size (PSS): pages a forked worker shares with its parent are counted once,
    not once per process as a sum of RSS would. ``peak_rss_mib`` is that sum of RSS, what ``top`` users add up;
    ``timeline`` keeps (seconds since start, RSS MiB) samples for profiles; ``peak_own_rss_mib`` is the peak RSS of
    the process alone, without its children; ``cpu_timeline`` keeps (seconds since start, CPU seconds used so far by
    the tree: its live processes and the children they have reaped), from which a stage's CPU time is read.
    """

    def __init__(self, interval_s: float = 0.2, pid: int | None = None) -> None:
        self.interval_s = interval_s
        self.pid = pid
        self.peak_mib = 0.0
        self.peak_rss_mib = 0.0
        self.peak_own_rss_mib = 0.0
        self.timeline: list[tuple[float, float]] = []
        self.cpu_timeline: list[tuple[float, float]] = []
        self.own_timeline: list[tuple[float, float]] = []  # (seconds since start, RSS MiB of the process alone)
        self._stop = threading.Event()

    def _sample(self) -> None:
        started = time.perf_counter()
        try:
            process = psutil.Process(self.pid)
        except psutil.Error:
            return
        while not self._stop.is_set():
            try:
                tree = [process, *process.children(recursive=True)]
            except psutil.Error:
                tree = []
            pss = sum(_pss(p) for p in tree) / 2**20
            rss = sum(_rss(p) for p in tree) / 2**20
            self.peak_mib = max(self.peak_mib, pss)
            self.peak_rss_mib = max(self.peak_rss_mib, rss)
            own = _rss(process) / 2**20
            self.peak_own_rss_mib = max(self.peak_own_rss_mib, own)
            self.own_timeline.append((time.perf_counter() - started, own))
            self.timeline.append((time.perf_counter() - started, rss))
            self.cpu_timeline.append((time.perf_counter() - started, sum(_cpu(p) for p in tree)))
            time.sleep(self.interval_s)

    def __enter__(self) -> PeakMemory:
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def _rss(process: psutil.Process) -> int:
    try:
        return process.memory_info().rss
    except psutil.Error:
        return 0


def _cpu(process: psutil.Process) -> float:
    try:
        times = process.cpu_times()
    except psutil.Error:
        return 0.0
    return times.user + times.system + times.children_user + times.children_system


def _pss(process: psutil.Process) -> int:
    # The kernel's one-line-per-field summary: psutil's memory_full_info parses every mapping's block of
    # /proc/PID/smaps, ~12 ms on a loaded machine for a Dagster run process, against ~7 ms for the summary.
    try:
        with open(f"/proc/{process.pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return process.memory_full_info().pss
    except (psutil.Error, AttributeError):
        try:
            return process.memory_info().rss
        except psutil.Error:
            return 0


@contextmanager
def timed() -> Iterator[Callable[[], float]]:
    """``with timed() as elapsed: ...; elapsed()`` gives seconds since the block started."""
    start = time.perf_counter()
    end: list[float] = []
    yield lambda: (end[0] if end else time.perf_counter()) - start
    end.append(time.perf_counter())


def print_table(title: str, header: list[str], rows: list[list[object]]) -> None:
    """A plain aligned table on stdout."""
    cells = [header] + [[_format(v) for v in row] for row in rows]
    widths = [max(len(str(row[i])) for row in cells) for i in range(len(header))]
    print(f"\n{title}")
    for index, row in enumerate(cells):
        print("  " + "  ".join(str(v).rjust(w) if i else str(v).ljust(w) for i, (v, w) in enumerate(zip(row, widths))))
        if index == 0:
            print("  " + "  ".join("-" * w for w in widths))
    sys.stdout.flush()


def _format(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def max_rss_mib() -> float:
    """Peak RSS of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dagster_job_run(
    work: Path, home: Path, job: str, tags: dict[str, str], code: Path, workers: int, fresh_home: bool = True
) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of one ``dagster job execute`` of ``job`` as CI runs it: a fresh
    DAGSTER_HOME at ``home`` with the project's dagster.yaml (scripts/env.sh's instance settings), the registry and
    data folder in ``work``, the code imported from ``code``, no delay between requests and ``workers`` parsing
    workers. ``fresh_home=False`` keeps the instance at ``home`` when there is one (a deployment's, night after night).
    """
    from corpus_pipeline.core.registry import REGISTRY_ENV_VAR
    from corpus_pipeline.core.warehouse import DATA_DIR_ENV_VAR

    if fresh_home or not (home / "dagster.yaml").exists():
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        shutil.copy(Path(__file__).resolve().parents[1] / "dagster.yaml", home / "dagster.yaml")
    config = work / "run_config.yaml"
    config.write_text(json.dumps({"resources": {"crawler_config": {"config": {"min_delay_s": 0.0, "workers": workers}}}}))
    dagster = shutil.which("dagster", path=str(Path(sys.executable).parent)) or "dagster"
    env = {**os.environ, "DAGSTER_HOME": str(home), REGISTRY_ENV_VAR: str(work / "websites.yaml"),
           DATA_DIR_ENV_VAR: str(work / "data"), "PYTHONPATH": str(code)}
    command = [dagster, "job", "execute", "-m", "corpus_pipeline.definitions", "-j", job,
               "--tags", json.dumps(tags), "-c", str(config)]
    return command, env
