"""Where parsed_pages spends its CPU on a website already crawled: the survey and the parse of each page, in this
process under cProfile, from the stored raw_pages of a run kept with ``--keep`` (incremental_bench.py, sites benches).

Usage: python benchmarks/parse_profile.py WORK WEBSITE [--sample N] [--top 30]

WORK holds ``websites.yaml`` and ``data/warehouse`` (a kept run's folder). The survey reads every page (as
parsed_pages does, its container votes on the same one page in ``len/150``); then one page in ``len/N`` (in URL
order) is parsed alone with the survey's model, each timed, under cProfile. Prints the pages' time distribution, the
slowest pages, the survey's and the parse's functions by cumulative and by own time, and the parse's time by step of
extract/page.py. Not a timing of the pipeline (one process, no workers): the shares are the figure.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus_pipeline.core.raw_pages import iter_documents, iter_sitemaps  # noqa: E402
from corpus_pipeline.core.registry import load_registry  # noqa: E402
from corpus_pipeline.core.warehouse import Warehouse  # noqa: E402
from corpus_pipeline.extract.page import parse_html_page  # noqa: E402
from corpus_pipeline.extract.page_input import HtmlPage  # noqa: E402
from corpus_pipeline.extract.site_survey import survey_site  # noqa: E402

CONTAINER_VOTERS = 150  # parsed_pages' own: one page in len/150 votes for the website's container


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work", type=Path)
    parser.add_argument("website")
    parser.add_argument("--sample", type=int, default=300, help="pages parsed under the profiler")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    website = load_registry(args.work / "websites.yaml").get(args.website)
    raw = Warehouse(args.work / "data" / "warehouse").path("raw_pages", args.website)
    pages = [
        HtmlPage(url=row["final_url"] or row["url"], body=row["body"], content_type=row["content_type"],
                 fetched_at=row["fetched_at"], sitemap_lastmod=row["sitemap_lastmod"],
                 http_last_modified=row["last_modified"], category=row["category"], hreflang=row["hreflang"])
        for row in iter_documents(raw, kind="html")
    ]
    print(f"{args.website}: {len(pages):,} HTML pages, {sum(len(p.body or b'') for p in pages) / 2**20:.0f} MiB")

    survey_profile = cProfile.Profile()
    started = time.process_time()
    survey_profile.enable()
    survey = survey_site(((p.url, p.hreflang, p.body) for p in pages), iter_sitemaps(raw), workers=1,
                         container_sample_every=max(1, len(pages) // CONTAINER_VOTERS))
    survey_profile.disable()
    survey_cpu = time.process_time() - started
    print(f"survey: {survey_cpu:.1f} CPU s ({1000 * survey_cpu / len(pages):.0f} ms a page); containers "
          f"{', '.join(survey.boilerplate.containers) or 'none'}")
    report(survey_profile, "survey", args.top)

    sample = pages[:: max(1, len(pages) // args.sample)]
    parse_profile, timings = cProfile.Profile(), []
    for page in sample:
        started = time.process_time()
        parse_profile.enable()
        record = parse_html_page(page, website, survey.boilerplate)
        parse_profile.disable()
        timings.append((time.process_time() - started, len(page.body or b""), page.url, record["extraction"]))
    seconds = [t for t, *_ in timings]
    total = sum(seconds)
    print(f"\nparse: {len(sample)} pages, {total:.1f} CPU s, mean {1000 * total / len(sample):.0f} ms, median "
          f"{1000 * statistics.median(seconds):.0f} ms, p90 {1000 * statistics.quantiles(seconds, n=10)[-1]:.0f} ms, "
          f"max {1000 * max(seconds):.0f} ms; the slowest tenth of pages take "
          f"{sum(sorted(seconds)[-max(1, len(seconds) // 10):]) / total:.0%} of the time")
    print("slowest pages (CPU ms, KiB, extraction, URL):")
    for cpu, size, url, extraction in sorted(timings, reverse=True)[:10]:
        print(f"  {1000 * cpu:6.0f} {size / 1024:6.0f}  {extraction:<16} {url}")
    report(parse_profile, "parse", args.top)


def report(profile: cProfile.Profile, name: str, top: int) -> None:
    """The profile's functions of this project and the libraries, by cumulative then by own time."""
    for key in ("cumulative", "tottime"):
        out = io.StringIO()
        stats = pstats.Stats(profile, stream=out)
        stats.sort_stats(key).print_stats(top)
        print(f"\n--- {name}, by {key} ---")
        lines = out.getvalue().splitlines()
        start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls"))
        print("\n".join(line for line in lines[start:] if line.strip()))


if __name__ == "__main__":
    main()
