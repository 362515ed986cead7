"""Nights that cost what changed (issue 44): a first night, an unchanged night and a night with 1 % of pages edited, as
ratios of the first night's CPU, and the peak memory of the second night against the first's; then a full night
over the 1 % night's crawl, compared record for record with it. The first night's time is set beside trafilatura's on the
same pages.

Usage: python benchmarks/incremental_bench.py [--full] [--changed-share 0.01] [--keep DIR] [--site heavy-hugo]

The website is Debian's handbook (benchmarks/sites/build.py) served on loopback without delay: by default in three
languages (381 pages), with ``--full`` in 21 (2,667 pages, the website issue 44 measured). Each night is
``dagster job execute`` of ``corpus_job`` over one warehouse and one Dagster instance (a deployment's), its process tree
sampled for CPU time and memory (benchmarks/common.py PeakMemory: CPU of the tree, peak sum of RSS). The edited pages
get one paragraph more in their text, so the crawl's conditional GETs fetch them again (the sitemaps have no
lastmod). The full night is ``reprocess_job`` tagged ``corpus_pipeline/full_night=true``: every page parsed and
every PDF read again from the same stored crawl; parsed_pages, pdf_documents, canonical_url_groups and corpus must
equal the incremental night's, every column, every row.

``--site heavy-hugo`` runs only a first night, of issue 44's other website: opentelemetry.io in five languages (Hugo +
Docsy, 2,553 pages of ~220 KB; benchmarks/sites/heavy_hugo.py builds it from cached sources), beside trafilatura on the
same pages (target: <= 90 s).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import trafilatura

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import PeakMemory, dagster_job_run, print_table  # noqa: E402
from benchmarks.sites.build import QUICK_HANDBOOK_LANGS, debian_handbook, write_site  # noqa: E402
from benchmarks.sites.heavy_hugo import SITE_NAME as HEAVY_SITE  # noqa: E402
from benchmarks.sites.heavy_hugo import describe, heavy_hugo_site  # noqa: E402
from corpus_pipeline.assets.incremental import FULL_NIGHT_TAG  # noqa: E402
from corpus_pipeline.core.raw_pages import iter_documents  # noqa: E402
from corpus_pipeline.core.warehouse import Warehouse  # noqa: E402
from corpus_pipeline_demo.server import serve_site  # noqa: E402

PROJECT_ROOT = Path(__file__).resolve().parents[1]
WEBSITE = "debian-handbook"
WORKERS = 2
COMPARED = ("parsed_pages", "pdf_documents", "canonical_url_groups", "corpus")
# What an edit adds to a page's text: a paragraph of its own, after the page's first paragraph.
EDIT = "<p>Note of night {night}: this paragraph was added to measure what an edited page costs the next night.</p>"
METADATA = ("records_reused", "records_parsed", "survey_pages_read", "sitemaps_reused", "survey_pages_per_s", "parse_pages_per_s")


@dataclass(frozen=True)
class Night:
    """What one run cost, and what parsed_pages said of it."""

    name: str
    seconds: float
    cpu_seconds: float
    peak_rss_mib: float
    parsed: dict[str, float]
    stages: dict[str, float]  # CPU seconds of the tree while each step ran


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true", help="the handbook in 21 languages (2,667 pages)")
    parser.add_argument("--changed-share", type=float, default=0.01, help="share of pages edited on the third night")
    parser.add_argument("--keep", type=Path, help="keep the site, registry and warehouse in this folder")
    parser.add_argument("--site", choices=(WEBSITE, HEAVY_SITE), default=WEBSITE,
                        help=f"{HEAVY_SITE}: a first night of the heavy Hugo website only, beside trafilatura")
    parser.add_argument("--sitemap-only", action="store_true",
                        help=f"{HEAVY_SITE}: the sitemaps' pages only (internal_links: ignore), not the links they have")
    args = parser.parse_args()
    if args.site == HEAVY_SITE:
        heavy_first_night(args.keep, args.sitemap_only)
        return
    spec = debian_handbook() if args.full else debian_handbook(QUICK_HANDBOOK_LANGS)
    with ExitStack() as stack:
        work = args.keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="incremental_bench_")))
        shutil.rmtree(work / "data", ignore_errors=True)
        snapshot_code(work / "code")
        root = work / "site"
        shutil.rmtree(root, ignore_errors=True)
        write_site(spec, root)
        base_url = stack.enter_context(serve_site(root, port=0))
        entry = {"name": WEBSITE, "url": base_url + "/", "mode": "sitemap", "default_lang": "en"}
        (work / "websites.yaml").write_text(json.dumps({"websites": [entry]}))
        print(f"{WEBSITE}: {len(spec.pages)} pages, {base_url}; load {os.getloadavg()[0]:.1f}", flush=True)

        shutil.rmtree(work / "dagster_home", ignore_errors=True)
        nights = [run_night(work, "first night")]
        warehouse = Warehouse(work / "data" / "warehouse")
        yardstick = trafilatura_night(warehouse.path("raw_pages", WEBSITE))
        nights.append(run_night(work, "unchanged night"))
        edited = edit_pages(root, args.changed_share)
        nights.append(run_night(work, f"{len(edited)} pages edited ({100 * args.changed_share:g} %)"))
        incremental = {asset: warehouse.scan(asset, WEBSITE).collect() for asset in COMPARED}
        full = run_night(work, "full night, same crawl", job="reprocess_job", tags={FULL_NIGHT_TAG: "true"})
        differing = [asset for asset in COMPARED if not warehouse.scan(asset, WEBSITE).collect().equals(incremental[asset])]
    report(nights, full, differing, yardstick)


def heavy_first_night(keep: Path | None, sitemap_only: bool = False) -> None:
    """A first night of the heavy Hugo website (served from its build folder, which nothing edits) and trafilatura
    on the same stored pages: wall and CPU seconds, and their ratios (issue 44's target: <= 90 s).

    By default the crawl also follows the sitemap pages' own links one level deep, as a registry entry's default does:
    on this site they add the ecosystem registry's filter links (``/ecosystem/registry/?s=...``, up to the crawler's
    limit per path), each the same 2.8-4.6 MB page; ``sitemap_only`` reads the sitemaps' pages alone."""
    site = heavy_hugo_site()
    with ExitStack() as stack:
        work = keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="incremental_bench_")))
        for stale in ("data", "dagster_home"):
            shutil.rmtree(work / stale, ignore_errors=True)
        snapshot_code(work / "code")
        base_url = stack.enter_context(serve_site(site.root, port=0))
        entry = {"name": HEAVY_SITE, "url": base_url + "/", "mode": "sitemap", "default_lang": "en"}
        if sitemap_only:
            entry["internal_links"] = "ignore"
        (work / "websites.yaml").write_text(json.dumps({"websites": [entry]}))
        print(f"{HEAVY_SITE}{' (sitemap pages only)' if sitemap_only else ''}: {describe(site)}; {base_url}; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
        first = run_night(work, "first night", website=HEAVY_SITE)
        seconds, cpu = trafilatura_night(Warehouse(work / "data" / "warehouse").path("raw_pages", HEAVY_SITE))
    print_table("First night of the heavy website beside trafilatura on the same pages",
                ["", "wall s", "CPU s"], [["first night", first.seconds, first.cpu_seconds],
                                          ["trafilatura", seconds, cpu]])
    print(f"first night: {first.seconds:.0f} s (target <= 90 s), {first.seconds / seconds:.2f} x trafilatura's time on "
          f"the same pages ({seconds:.0f} s); CPU {first.cpu_seconds / cpu:.2f} x its {cpu:.1f} s; "
          f"peak RSS {first.peak_rss_mib:.0f} MiB")


def snapshot_code(folder: Path) -> None:
    """A copy of the package, which every night runs: the code version of an asset covers its source files, and a
    file of the working tree edited between two nights would (rightly) make the second one recompute everything."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(PROJECT_ROOT / "corpus_pipeline", folder / "corpus_pipeline",
                    ignore=shutil.ignore_patterns("__pycache__"))


def run_night(work: Path, name: str, job: str = "corpus_job", tags: dict[str, str] | None = None,
              website: str = WEBSITE) -> Night:
    """One ``dagster job execute`` over the warehouse in ``work``; CPU and peak RSS of its process tree."""
    home = work / "dagster_home"
    # One instance for every night, as a deployment keeps its own (a fresh one's database costs each run ~0.3 CPU s).
    command, env = dagster_job_run(work, home, job, {"dagster/partition": website, **(tags or {})}, work / "code", WORKERS,
                                   fresh_home=False)
    cpu_before, started, started_epoch = _children_cpu_seconds(), time.perf_counter(), time.time()
    process = subprocess.Popen(command, cwd=work / "code", env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    with PeakMemory(interval_s=0.25, pid=process.pid) as memory:
        output, _ = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"{job} failed on the {name}:\n{output[-4000:]}")
    # The CPU time of reaped descendants, or the tree's as last sampled, whichever saw more: a worker process whose
    # parent exits without waiting for it is missing from the first, the last quarter second from the second.
    sampled = max((cpu for _, cpu in memory.cpu_timeline), default=0.0)
    cpu = max(_children_cpu_seconds() - cpu_before, sampled)
    night = Night(name, time.perf_counter() - started, cpu, memory.peak_rss_mib, parsed_metadata(home),
                  stage_cpu(home, memory.cpu_timeline, started_epoch))
    print(f"  {name}: {night.seconds:.0f} s, {night.cpu_seconds:.1f} CPU s, peak RSS {night.peak_rss_mib:.0f} MiB, "
          f"{night.parsed}; CPU s by step {night.stages}; load {os.getloadavg()[0]:.1f}", flush=True)
    return night


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def stage_cpu(home: Path, timeline: list[tuple[float, float]], started_epoch: float) -> dict[str, float]:
    """The tree's CPU seconds during each step of the run (from the sampled timeline and Dagster's step times)."""
    import dagster as dg

    def at(moment: float) -> float:
        return max((cpu for t, cpu in timeline if t <= moment - started_epoch), default=0.0)

    with dg.DagsterInstance.from_config(str(home)) as instance:
        (run,) = instance.get_runs(limit=1)
        steps = instance.get_run_step_stats(run.run_id)
    return {s.step_key: round(at(s.end_time or 0) - at(s.start_time or 0), 1) for s in steps}


def parsed_metadata(home: Path) -> dict[str, float]:
    """What the run's parsed_pages materialization recorded of its reuse and rates."""
    import dagster as dg

    with dg.DagsterInstance.from_config(str(home)) as instance:
        event = instance.get_latest_materialization_event(dg.AssetKey("parsed_pages"))
        metadata = event.asset_materialization.metadata if event and event.asset_materialization else {}
    return {key: metadata[key].value for key in METADATA if key in metadata}  # type: ignore[misc]


def trafilatura_night(raw_pages: Path) -> tuple[float, float]:
    """Wall and CPU seconds of trafilatura extracting the first night's HTML pages (as stored) on ``WORKERS``
    processes: the yardstick of a first night's speed (issue 44). Its fetching and reading of the pages is not timed."""
    pages = [(row["body"], row["final_url"] or row["url"]) for row in iter_documents(raw_pages, kind="html")]
    own, children, started = resource.getrusage(resource.RUSAGE_SELF), _children_cpu_seconds(), time.perf_counter()
    with ProcessPoolExecutor(max_workers=WORKERS) as pool:
        texts = list(pool.map(_trafilatura_text, pages, chunksize=8))
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = _children_cpu_seconds() - children + (after.ru_utime + after.ru_stime) - (own.ru_utime + own.ru_stime)
    print(f"  trafilatura over the same {len(pages):,} pages ({sum(map(bool, texts)):,} texts): {seconds:.0f} s, "
          f"{cpu:.1f} CPU s on {WORKERS} processes", flush=True)
    return seconds, cpu


def _trafilatura_text(page: tuple[bytes, str]) -> str:
    body, url = page
    return trafilatura.extract(body.decode("utf-8", "replace"), url=url, include_comments=False) or ""


def edit_pages(root: Path, share: float) -> list[Path]:
    """Edit ``share`` of the website's pages (at least one), spread over its URL order: a paragraph added."""
    pages = sorted(root.rglob("*.html"))
    count = max(1, round(share * len(pages)))
    edited = pages[:: max(1, len(pages) // count)][:count]
    for page in edited:
        text = page.read_text()
        page.write_text(text.replace("</p>", "</p>" + EDIT.format(night=3), 1) if "</p>" in text else text + EDIT)
    return edited


def report(nights: list[Night], full: Night, differing: list[str], yardstick: tuple[float, float]) -> None:
    first = nights[0]
    rows = [
        [n.name, n.seconds, n.cpu_seconds, n.cpu_seconds / first.cpu_seconds, n.peak_rss_mib,
         n.peak_rss_mib / first.peak_rss_mib, int(n.parsed.get("records_parsed", 0)),
         int(n.parsed.get("records_reused", 0))]
        for n in [*nights, full]
    ]
    print_table("Nights (CPU and peak RSS of the whole process tree; ratios to the first night)",
                ["night", "wall s", "CPU s", "CPU / first", "peak RSS MiB", "RSS / first", "parsed", "reused"], rows)
    unchanged, changed = nights[1], nights[2]
    print(f"\nunchanged night CPU: {unchanged.cpu_seconds / first.cpu_seconds:.1%} of the first (target <= 10 %)")
    print(f"{changed.name} night CPU: {changed.cpu_seconds / first.cpu_seconds:.1%} of the first (target at 1 %: <= 15 %)")
    print(f"second night peak RSS: {unchanged.peak_rss_mib / first.peak_rss_mib:.2f} x the first's (target <= 1)")
    seconds, cpu = yardstick
    print(f"first night: {first.seconds:.0f} s (target with --full: <= 45 s), {first.seconds / seconds:.2f} x "
          f"trafilatura's time on the same pages ({seconds:.0f} s); CPU {first.cpu_seconds / cpu:.2f} x its {cpu:.1f} s")
    verdict = "equal, every column and row" if not differing else f"DIFFERENT: {', '.join(differing)}"
    print(f"incremental night vs full night over the same crawl ({', '.join(COMPARED)}): {verdict}")
    if differing:
        raise SystemExit(1)


if __name__ == "__main__":
    pl.Config.set_tbl_rows(20)
    main()
