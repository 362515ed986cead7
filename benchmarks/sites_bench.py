"""Whole websites through the Dagster job: real documentation sites served on loopback, scored against the text of
their template's main container.

Usage: python benchmarks/sites_bench.py [--quick] [--sites NAME ...] [--keep DIR]
       python benchmarks/sites_bench.py --real [--sites NAME ...] [--keep DIR] [--reuse]  (see sites/real/bench.py)

Websites (Debian bookworm packages, apt-installed when missing; see benchmarks/sites/build.py):
- debian-handbook: 21 languages x 127 pages (2,667), one folder per language, many pages untranslated;
  truth ``body > div:not(#banner)``;
- debian-reference: 9 languages x 15 pages, language-suffixed (ch01.fr.html), partly translated;
  truth ``body > div:not(.navheader):not(.navfooter)``;
- developers-reference and python3.11-doc (Sphinx, English); truth ``div.body``.
Each copy gets per-language sitemaps with hreflang and hreflang links in its pages. ``--quick``: the handbook in
English, French and Danish (381 pages).

For each website, ``dagster job execute`` runs corpus_job in a fresh DAGSTER_HOME with the project's dagster.yaml (min_delay_s 0), its process tree
sampled for memory. Then the same stored pages are extracted one by one with and without the boilerplate model the
pipeline learns, and by trafilatura 2.3.1, and everything is scored (word-bag F1, as wcxb) against the truth.
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
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import trafilatura

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import WORD, PeakMemory, bag_f1, dagster_job_run, print_table  # noqa: E402
from benchmarks.sites.build import (  # noqa: E402
    QUICK_HANDBOOK_LANGS,
    SiteSpec,
    debian_handbook,
    debian_reference,
    developers_reference,
    python_docs,
    write_site,
)
from benchmarks.sites.real import bench as real_bench  # noqa: E402
from benchmarks.sites.score import line_keys, mean_f1, pages_per_line, truth_text, without_lines  # noqa: E402
from corpus_pipeline.core.raw_pages import iter_documents  # noqa: E402
from corpus_pipeline.core.registry import Website, parse_registry  # noqa: E402
from corpus_pipeline.core.urls import normalize_url  # noqa: E402
from corpus_pipeline.core.warehouse import Warehouse  # noqa: E402
from corpus_pipeline.extract.boilerplate import learn_boilerplate  # noqa: E402
from corpus_pipeline.extract.page import ExtractionBudget, HtmlPage, parse_html_pages  # noqa: E402
from corpus_pipeline_demo.server import serve_site  # noqa: E402

PROJECT_ROOT = Path(__file__).resolve().parents[1]
STAGES = ("raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus")
WORKERS = 2
# The one-by-one reference extractions run without the job's page time limit: on a loaded machine a page that hit
# it came back empty and read as text the model lost (253 "lost" lines in one run). The job keeps its budget.
UNTIMED = ExtractionBudget(page_time_s=None)
# An untranslated copy: a page under another language whose truth shares this much of its words with the
# English page's truth (the pipeline's own near-duplicate threshold, 0.9).
COPY_F1 = 0.9
COVERED = 0.8  # of a page's word 5-grams found in the corpus's texts for its text to be kept
# Targets of issue 20 on the largest website.
MAX_PEAK_RSS_MIB = 500
MIN_PARSED_PAGES_PER_S = 80
MAX_GROUPS_AND_CORPUS_S = 10
MAX_JOB_S = 45
MAX_MODEL_F1_LOSS = 0.01
MIN_GAIN_OVER_TRAFILATURA = 0.01


@dataclass
class JobRun:
    """What one run of corpus_job cost."""

    seconds: float  # wall time of `dagster job execute`, process start to exit
    run_seconds: float  # Dagster's own run start to end
    stage_seconds: dict[str, float]
    peak_rss_mib: float
    peak_pss_mib: float
    cpu_seconds: float  # user + system time of the whole process tree: what the job costs on a busy machine
    stage_peak_rss_mib: dict[str, float] = field(default_factory=dict)  # the tree's peak while the stage ran
    stage_cpu_seconds: dict[str, float] = field(default_factory=dict)  # the tree's CPU time while the stage ran
    peak_run_rss_mib: float = float("nan")  # the `dagster job execute` process alone, without its workers
    stage_run_rss_mib: dict[str, float] = field(default_factory=dict)  # that process's peak while the stage ran


@dataclass
class SiteScores:
    """Every figure printed for one website."""

    name: str
    pages: int
    sitemap: int
    found: int
    extra: int
    f1: dict[str, float]
    unique_lost: int
    unique_lost_pages: int
    unique_lost_examples: list[str]
    repeated_share: float
    f1_unrepeated: dict[str, float]
    corpus_records: int
    duplicate_records: int
    linked: int
    linkable: int
    copies: int
    copies_merged: int
    copies_elected: int
    pages_lost: int  # pages of 10 words or more whose text the corpus lost (see _pages_lost)
    job: JobRun


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="the handbook in 3 languages (381 pages)")
    parser.add_argument("--sites", nargs="*", help="only these websites (names as printed)")
    parser.add_argument("--keep", type=Path, help="build and keep the sites, registry and warehouse in this folder")
    parser.add_argument("--reuse", action="store_true", help="with --keep: score the stored warehouse, do not run the job")
    parser.add_argument("--real", action="store_true",
                        help="the real-websites bench: many generators, truth from each site's source (sites/real/)")
    real_bench.add_arguments(parser)
    args = parser.parse_args()
    if args.real:
        real_bench.run(args)
        return
    specs = [debian_handbook(QUICK_HANDBOOK_LANGS)] if args.quick else [
        debian_handbook(), debian_reference(), developers_reference(), python_docs()
    ]
    specs = [s for s in specs if not args.sites or s.name in args.sites]
    with ExitStack() as stack:
        work = args.keep or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sites_bench_")))
        ports_file = work / "ports.json"
        # A reused warehouse holds the URLs of its crawl: serve each site on the port it had.
        ports = json.loads(ports_file.read_text()) if args.reuse and ports_file.exists() else {}
        base_urls = {}
        for spec in specs:
            root = work / "sites" / spec.name
            shutil.rmtree(root, ignore_errors=True)
            write_site(spec, root)
            base_urls[spec.name] = stack.enter_context(serve_site(root, port=ports.get(spec.name, 0)))
        ports_file.write_text(json.dumps({name: int(url.rsplit(":", 1)[1]) for name, url in base_urls.items()}))
        registry = write_registry(work, specs, base_urls)
        results = []
        for spec in specs:
            print(f"\n{spec.name}: {len(spec.pages)} pages, {len(spec.langs)} languages, {base_urls[spec.name]}", flush=True)
            job = JobRun(float("nan"), float("nan"), {}, float("nan"), float("nan"), float("nan")) if args.reuse else run_job(work, spec.name)
            results.append(score_site(spec, registry[spec.name], base_urls[spec.name], Warehouse(work / "data" / "warehouse"), job))
    report(results)


def write_registry(work: Path, specs: list[SiteSpec], base_urls: dict[str, str]) -> dict[str, Website]:
    """The registry file the job reads (CORPUS_PIPELINE_REGISTRY), one sitemap-mode entry per website."""
    entries = [{"name": s.name, "url": base_urls[s.name] + "/", "mode": "sitemap", "default_lang": "en"} for s in specs]
    path = work / "websites.yaml"
    path.write_text(json.dumps({"websites": entries}, indent=2))  # JSON is YAML
    return {w.name: w for w in parse_registry({"websites": entries}).websites}


def run_job(work: Path, name: str) -> JobRun:
    """corpus_job for one website through `dagster job execute`, as CI runs it; memory of its whole process tree."""
    home = work / "dagster_home" / name
    command, env = dagster_job_run(work, home, "corpus_job", {"dagster/partition": name}, PROJECT_ROOT, WORKERS)
    cpu_before = _children_cpu_seconds()
    started, started_epoch = time.perf_counter(), time.time()
    process = subprocess.Popen(command, cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with PeakMemory(interval_s=0.25, pid=process.pid) as memory:
        output, _ = process.communicate()
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"corpus_job failed for {name}:\n{output[-4000:]}")
    cpu_seconds = _children_cpu_seconds() - cpu_before
    run_seconds, spans = _step_spans(home)
    stages = {step: end - start for step, (start, end) in spans.items()}
    stage_peaks = {
        step: max((rss for t, rss in memory.timeline if start <= started_epoch + t <= end), default=float("nan"))
        for step, (start, end) in spans.items()
    }
    stage_cpu = {
        step: _cpu_at(memory.cpu_timeline, end - started_epoch) - _cpu_at(memory.cpu_timeline, start - started_epoch)
        for step, (start, end) in spans.items()
    }
    stage_run_peaks = {
        step: max((rss for t, rss in memory.own_timeline if start <= started_epoch + t <= end), default=float("nan"))
        for step, (start, end) in spans.items()
    }
    return JobRun(seconds, run_seconds, stages, memory.peak_rss_mib, memory.peak_mib, cpu_seconds, stage_peaks,
                  stage_cpu, memory.peak_own_rss_mib, stage_run_peaks)


def _cpu_at(timeline: list[tuple[float, float]], moment: float) -> float:
    """The tree's CPU seconds at the last sample taken by ``moment`` (seconds since the job started)."""
    return max((cpu for t, cpu in timeline if t <= moment), default=0.0)


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _step_spans(home: Path) -> tuple[float, dict[str, tuple[float, float]]]:
    """The run's duration and each step's (start, end) epoch seconds, from the run's Dagster instance."""
    import dagster as dg

    with dg.DagsterInstance.from_config(str(home)) as instance:
        (run,) = instance.get_runs(limit=1)
        run_stats = instance.get_run_stats(run.run_id)
        steps = {s.step_key: (s.start_time or 0, s.end_time or 0) for s in instance.get_run_step_stats(run.run_id)}
    return (run_stats.end_time or 0) - (run_stats.start_time or 0), steps


def score_site(spec: SiteSpec, website: Website, base_url: str, warehouse: Warehouse, job: JobRun) -> SiteScores:
    """Score the pipeline's output and the one-by-one extractions of the same stored pages."""
    raw = warehouse.scan("raw_pages", spec.name).select("url", "final_url", "kind", "outcome").collect()
    html_pages = [_html_page(row) for row in iter_documents(warehouse.path("raw_pages", spec.name), kind="html")]
    truth = {p.url: truth_text(p.body, spec.truth_selector) for p in html_pages}
    declared = {normalize_url(base_url + page.path): page for page in spec.pages}
    lang_of = {url: declared[normalize_url(url)].lang if normalize_url(url) in declared else "?" for url in truth}

    sitemap_urls = set(declared)
    fetched = {normalize_url(u) for u in raw.filter((pl.col("kind") == "html") & (pl.col("outcome") == "fetched"))["url"]}
    parsed = warehouse.scan("parsed_pages", spec.name).select("url", "content", "alternates", "lang").collect()
    corpus = warehouse.scan("corpus", spec.name).select("url", "content", "lang", "absorbed").collect()

    model = learn_boilerplate(((p.url, p.hreflang, p.body) for p in html_pages), workers=WORKERS)
    without_model = {
        r["url"]: r["content"] for r in parse_html_pages(html_pages, website, None, workers=WORKERS, budget=UNTIMED)
    }
    with_model = {
        r["url"]: r["content"] for r in parse_html_pages(html_pages, website, model, workers=WORKERS, budget=UNTIMED)
    }
    with ProcessPoolExecutor(max_workers=WORKERS) as pool:
        by_trafilatura = dict(zip(truth, pool.map(_trafilatura, [(p.body, p.url) for p in html_pages], chunksize=8)))

    parsed_content = dict(zip(parsed["url"], parsed["content"]))
    f1 = {
        "parsed_pages": mean_f1((parsed_content.get(u), t) for u, t in truth.items()),
        "corpus": mean_f1((c, truth.get(u, "")) for u, c in zip(corpus["url"], corpus["content"])),
        "one by one, no model": mean_f1((without_model[u], t) for u, t in truth.items()),
        "one by one, model": mean_f1((with_model[u], t) for u, t in truth.items()),
        "trafilatura": mean_f1((by_trafilatura[u], t) for u, t in truth.items()),
    }
    lost, lost_pages, examples = _unique_lines_lost(truth, without_model, with_model, lang_of)
    # Repeated within the page's language, as unique is: an untranslated copy under another language does not
    # make its English text "repeated" (that text is what the model must keep).
    repeated = _repeated_lines(truth, without_model, lang_of)
    truth_words = sum(len(WORD.findall(t)) for t in truth.values())
    unrepeated = {u: without_lines(t, repeated[lang_of[u]]) for u, t in truth.items()}
    kept_words = sum(len(WORD.findall(t)) for t in unrepeated.values())
    f1_unrepeated = {
        "no model": mean_f1((without_lines(without_model[u], repeated[lang_of[u]]), t) for u, t in unrepeated.items()),
        "model": mean_f1((without_lines(with_model[u], repeated[lang_of[u]]), t) for u, t in unrepeated.items()),
    }
    linked, linkable = _translations_linked(spec, parsed)
    copies, merged, elected = _untranslated_copies(spec, base_url, truth, corpus)
    return SiteScores(
        name=spec.name, pages=len(truth), sitemap=len(sitemap_urls), found=len(sitemap_urls & fetched),
        extra=len(fetched - sitemap_urls), f1=f1, unique_lost=lost, unique_lost_pages=lost_pages,
        unique_lost_examples=examples, repeated_share=1 - kept_words / max(truth_words, 1), f1_unrepeated=f1_unrepeated,
        corpus_records=corpus.height, duplicate_records=_duplicate_records(corpus, truth),
        linked=linked, linkable=linkable, copies=copies, copies_merged=merged, copies_elected=elected,
        pages_lost=_pages_lost(truth, corpus), job=job,
    )


def _pages_lost(truth: dict[str, str], corpus: pl.DataFrame) -> int:
    """Pages of 10 words or more whose text the corpus lost: neither a corpus record nor absorbed by one, and their
    word 5-grams mostly (``COVERED``) missing from the corpus's texts (a table of contents whose every line stands
    in the chapters' records loses nothing; a page taken for a listing, an error page or dropped does)."""
    kept = {normalize_url(url) for url in corpus["url"]}
    kept |= {normalize_url(entry["url"]) for entries in corpus["absorbed"].to_list() for entry in entries or []}
    missing = [_shingles(text) for url, text in truth.items()
               if len(WORD.findall(text)) >= 10 and normalize_url(url) not in kept]
    wanted = set().union(*missing)
    found: set[tuple[str, ...]] = set()
    for content in corpus["content"] if wanted else ():
        found |= wanted & _shingles(content or "")
    return sum(1 for shingles in missing if len(shingles & found) < COVERED * len(shingles))


def _shingles(text: str) -> set[tuple[str, ...]]:
    words = WORD.findall(text.lower())
    return {tuple(words[i : i + 5]) for i in range(max(len(words) - 4, 1))}


def _html_page(row: dict) -> HtmlPage:
    # The same view of a raw_pages row as the parsed_pages asset takes.
    return HtmlPage(
        url=row["final_url"] or row["url"], body=row["body"], content_type=row["content_type"],
        fetched_at=row["fetched_at"], sitemap_lastmod=row["sitemap_lastmod"],
        http_last_modified=row["last_modified"], category=row["category"], hreflang=row["hreflang"],
    )


def _trafilatura(item: tuple[bytes, str]) -> str:
    body, url = item
    return trafilatura.extract(body.decode("utf-8", "replace"), url=url, include_comments=False) or ""


def _repeated_lines(truth, without_model, lang_of) -> dict[str, Counter[str]]:
    """Per language, the pages of that language each line appears on (its truth or its model-free text)."""
    by_lang: dict[str, list[str]] = {}
    for url in truth:
        by_lang.setdefault(lang_of[url], []).append(url)
    return {lang: pages_per_line(line_keys(truth[u]) | line_keys(without_model[u]) for u in urls) for lang, urls in by_lang.items()}


def _unique_lines_lost(truth, without_model, with_model, lang_of) -> tuple[int, int, list[str]]:
    """Lines of a page's truth, found in its model-free text, that no other page of its language has (in its truth
    or its model-free text), and that the model's text lacks. (Unique lines outside the truth, such as a
    translated "next" link, are not text the corpus wants.)"""
    repeated = _repeated_lines(truth, without_model, lang_of)
    lost, pages, examples = 0, 0, []
    for url in truth:
        counts = repeated[lang_of[url]]
        unique = {line for line in line_keys(without_model[url]) & line_keys(truth[url]) if counts[line] == 1}
        missing = unique - line_keys(with_model[url])
        lost += len(missing)
        pages += bool(missing)
        examples += [f"{url}: {line[:100]}" for line in sorted(missing)[: 3 - len(examples)]]
    return lost, pages, examples


def _translations_linked(spec: SiteSpec, parsed: pl.DataFrame) -> tuple[int, int]:
    """Records whose ``alternates`` list every translation of their page, of records that have translations."""
    sizes: dict[str, int] = {}
    for page in spec.pages:
        sizes[page.group] = sizes.get(page.group, 0) + 1
    group_of = {page.path: page.group for page in spec.pages}
    linked = linkable = 0
    for url, alternates in zip(parsed["url"], parsed["alternates"].to_list()):
        size = sizes.get(group_of.get("/" + url.split("/", 3)[-1], ""), 1)
        if size > 1:
            linkable += 1
            linked += len({a["url"] for a in alternates or []}) >= size
    return linked, linkable


def _untranslated_copies(spec: SiteSpec, base_url: str, truth: dict[str, str], corpus: pl.DataFrame) -> tuple[int, int, int]:
    """Pages under another language whose truth is the English page's (an untranslated copy): how many, how many
    were merged into an English corpus record, and how many were themselves elected over the English page."""
    english = {p.group: base_url + p.path for p in spec.pages if p.lang.lower().startswith("en")}
    if len(english) == len(spec.pages):
        return 0, 0, 0
    absorbed_by = {}
    for _url, lang, absorbed in zip(corpus["url"], corpus["lang"], corpus["absorbed"].to_list()):
        for entry in absorbed or []:
            absorbed_by[entry["url"]] = lang
    corpus_langs = dict(zip(corpus["url"], corpus["lang"]))
    copies = merged = elected = 0
    for page in spec.pages:
        url, original = base_url + page.path, english.get(page.group)
        if page.lang.lower().startswith("en") or original is None or url not in truth or original not in truth:
            continue
        if bag_f1(truth[url], truth[original]) < COPY_F1:
            continue
        copies += 1
        merged += absorbed_by.get(url) == "en"
        elected += corpus_langs.get(url) == "en" and original in absorbed_by
    return copies, merged, elected


def _duplicate_records(corpus: pl.DataFrame, truth: dict[str, str]) -> int:
    """Corpus records whose truth is word for word another record's: duplicates the dedup left."""
    seen, duplicates = set(), 0
    for url in corpus["url"]:
        key = " ".join(WORD.findall(truth.get(url, "").lower()))
        if key:
            duplicates += key in seen
            seen.add(key)
    return duplicates


def report(results: list[SiteScores]) -> None:
    print_table(
        "Pages and records",
        ["website", "sitemap", "found", "extra", "parsed", "corpus", "pages lost", "dup. records", "translations linked",
         "untranslated copies merged (elected)"],
        [[r.name, r.sitemap, r.found, r.extra, r.pages, r.corpus_records, r.pages_lost, r.duplicate_records,
          f"{r.linked}/{r.linkable}", f"{r.copies_merged}/{r.copies} ({r.copies_elected})"] for r in results],
    )
    methods = list(results[0].f1)
    print_table("Word-bag F1 against the template truth (mean per page)", ["website", *methods],
                [[r.name, *(r.f1[m] for m in methods)] for r in results])
    print_table(
        "The boilerplate model: unique lines lost, and F1 once text repeated across the site's pages is left out",
        ["website", "unique lines lost", "pages losing", "repeated share of truth (within language)", "F1 no model", "F1 model", "difference"],
        [[r.name, r.unique_lost, r.unique_lost_pages, r.repeated_share, r.f1_unrepeated["no model"], r.f1_unrepeated["model"],
          r.f1_unrepeated["model"] - r.f1_unrepeated["no model"]] for r in results],
    )
    for r in results:
        for example in r.unique_lost_examples:
            print(f"  lost ({r.name}): {example}")
    print_table(
        "Time (s) per stage, whole job, peak memory of the job's process tree (min_delay_s 0)",
        ["website", *STAGES, "Dagster run", "CLI wall", "CPU s", "parsed pages/s", "peak RSS MiB", "peak PSS MiB"],
        [[r.name, *(r.job.stage_seconds.get(s, float("nan")) for s in STAGES), r.job.run_seconds, r.job.seconds,
          r.job.cpu_seconds, r.pages / r.job.stage_seconds.get("parsed_pages", float("nan")), r.job.peak_rss_mib,
          r.job.peak_pss_mib] for r in results],
    )
    print_table("Peak RSS MiB of the job's process tree while each stage ran (stages overlap)", ["website", *STAGES],
                [[r.name, *(r.job.stage_peak_rss_mib.get(s, float("nan")) for s in STAGES)] for r in results])
    print_table("Peak RSS MiB of the run's own process (`dagster job execute`, without its workers) while each stage ran",
                ["website", *STAGES], [[r.name, *(r.job.stage_run_rss_mib.get(s, float("nan")) for s in STAGES)] for r in results])
    # CPU time does not depend on how busy the machine is, as wall time does: parsed pages per CPU second, and the
    # wall time the stage would take with WORKERS free cores, say what the parse costs.
    print_table(
        f"CPU seconds of the job's process tree per stage (sampled); the run's own process; {WORKERS} workers",
        ["website", *STAGES, "parsed pages per CPU s", f"parsed pages/s on {WORKERS} free cores", "run process peak RSS MiB"],
        [[r.name, *(r.job.stage_cpu_seconds.get(s, float("nan")) for s in STAGES),
          r.pages / r.job.stage_cpu_seconds.get("parsed_pages", float("nan")),
          WORKERS * r.pages / r.job.stage_cpu_seconds.get("parsed_pages", float("nan")), r.job.peak_run_rss_mib]
         for r in results],
    )
    # Wall times mean little on a machine shared with other work: say how busy it was.
    print(f"  load average (1, 5, 15 min) at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    largest = max(results, key=lambda r: r.pages)
    stages = largest.job.stage_seconds
    ours = sum(r.f1["parsed_pages"] for r in results) / len(results)
    theirs = sum(r.f1["trafilatura"] for r in results) / len(results)
    worst_model_loss = max(r.f1_unrepeated["no model"] - r.f1_unrepeated["model"] for r in results)
    targets = [
        ("pages of 10+ words whose text the corpus lost = 0", sum(r.pages_lost for r in results),
         sum(r.pages_lost for r in results) == 0),
        ("unique lines lost to the model = 0", sum(r.unique_lost for r in results), sum(r.unique_lost for r in results) == 0),
        (f"F1 model >= no model - {MAX_MODEL_F1_LOSS} (repeated text excluded; worst site)", -worst_model_loss, worst_model_loss <= MAX_MODEL_F1_LOSS),
        (f"parsed_pages F1 >= trafilatura + {MIN_GAIN_OVER_TRAFILATURA} (mean of sites: {ours:.3f} vs {theirs:.3f})", ours - theirs, ours - theirs >= MIN_GAIN_OVER_TRAFILATURA),
        (f"{largest.name}: peak RSS <= {MAX_PEAK_RSS_MIB} MiB", largest.job.peak_rss_mib, largest.job.peak_rss_mib <= MAX_PEAK_RSS_MIB),
        # RSS summed over processes counts pages they share (libraries) once per process; PSS shares them out.
        (f"{largest.name}: peak PSS <= {MAX_PEAK_RSS_MIB} MiB (shared pages counted once)", largest.job.peak_pss_mib,
         largest.job.peak_pss_mib <= MAX_PEAK_RSS_MIB),
        (f"{largest.name}: parsed_pages >= {MIN_PARSED_PAGES_PER_S} pages/s", largest.pages / stages.get("parsed_pages", float("inf")),
         largest.pages / stages.get("parsed_pages", float("inf")) >= MIN_PARSED_PAGES_PER_S),
        (f"{largest.name}: canonical_url_groups + corpus <= {MAX_GROUPS_AND_CORPUS_S} s", stages.get("canonical_url_groups", 0) + stages.get("corpus", 0),
         stages.get("canonical_url_groups", 0) + stages.get("corpus", 0) <= MAX_GROUPS_AND_CORPUS_S),
        (f"{largest.name}: whole job (Dagster run) <= {MAX_JOB_S} s", largest.job.run_seconds, largest.job.run_seconds <= MAX_JOB_S),
    ]
    print_table("Targets (issue 20)", ["target", "measured", "result"], [[t, v, "PASS" if ok else "FAIL"] for t, v, ok in targets])


if __name__ == "__main__":
    main()
