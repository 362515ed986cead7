"""Code versions of the assets: the package version, a fingerprint of the settings each asset's output obeys, and
one of the source code that computes it.

Dagster marks a partition stale when its asset's ``code_version`` changed since it was built: a changed default
setting, changed code computing the asset or a new package version shows which websites ``reprocess_job`` should
rebuild. Run-config overrides are recorded on each run, not in the version.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from corpus_pipeline.assets.source_fingerprint import source_fingerprint
from corpus_pipeline.core.urls import DEFAULT_KEPT_QUERY_KEYS
from corpus_pipeline.crawl.settings import CrawlSettings
from corpus_pipeline.dedup.settings import DEFAULT_THRESHOLD, DEFAULT_URLS_TO_IGNORE
from corpus_pipeline.extract.page_input import ExtractionBudget
from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings
from corpus_pipeline.lm.export import DEFAULT_SHARD_RECORDS
from corpus_pipeline.lm.policy import QualityPolicy
from corpus_pipeline.pdf.settings import PdfSettings

# Crawl settings that change how fast or how often a site is asked, never which rows a crawl keeps.
CRAWL_PACE_ONLY = frozenset(
    {
        "adaptive_pace", "per_host_concurrency", "min_delay_s", "max_delay_s", "max_crawl_delay_s", "max_in_flight",
        "backoff_base_s", "max_retry_after_s",
    }
)
# PDF settings that only spread the work (the process count follows the machine's cores); the OCR mode is
# each website's own (websites.yaml), not the code's.
PDF_NOT_OUTPUT = frozenset({"workers", "ocr"})


def package_version() -> str:
    """The installed version of corpus_pipeline ("0+unknown" when it runs from a tree that is not installed)."""
    try:
        return version("corpus_pipeline")
    except PackageNotFoundError:
        return "0+unknown"


def code_version(settings: Mapping[str, Any], asset: str | None = None, *computed_by: str) -> str:
    """``<package version>+<settings: 12 hex digits>.<source: 12 hex digits>`` (no source part without ``asset``),
    the same in any process and on any machine for equal settings and source. The source is ``computed_by`` (modules
    or packages of corpus_pipeline, imports followed) and the asset's own module (imports not followed)."""
    canonical = json.dumps(_plain(settings), sort_keys=True, separators=(",", ":"))
    version = f"{package_version()}+{hashlib.sha256(canonical.encode()).hexdigest()[:12]}"
    if asset is None:
        return version
    roots = [f"corpus_pipeline.{name}" for name in computed_by]
    return f"{version}.{source_fingerprint(roots, alone=(f'corpus_pipeline.assets.{asset}',))}"


def raw_pages_version(crawl: CrawlSettings | None = None) -> str:
    """What a crawl keeps: limits, timeouts, no_follow, retries (not its pace)."""
    return code_version({"crawl": _fields(crawl or CrawlSettings(), leave_out=CRAWL_PACE_ONLY)}, "raw_pages", "crawl")


def parsed_pages_version(extraction: ExtractionSettings | None = None, budget: ExtractionBudget | None = None) -> str:
    """Every extraction threshold and rule switch, and what one page may cost."""
    settings = {"extraction": _fields(extraction or DEFAULT_SETTINGS), "budget": _fields(budget or ExtractionBudget())}
    return code_version(settings, "parsed_pages", "extract", "core.raw_pages")


def pdf_documents_version(pdf: PdfSettings | None = None) -> str:
    """How PDFs are read: languages, rendering, OCR thresholds and budgets."""
    settings = {"pdf": _fields(pdf or PdfSettings(), leave_out=PDF_NOT_OUTPUT)}
    return code_version(settings, "pdf_documents", "pdf", "extract.site_links", "core.raw_pages")


def canonical_url_groups_version(
    urls_to_ignore: Iterable[str] = DEFAULT_URLS_TO_IGNORE, keep_query_keys: Iterable[str] = DEFAULT_KEPT_QUERY_KEYS
) -> str:
    """Which records are dropped and which query keys make a distinct canonical URL."""
    settings = {"urls_to_ignore": list(urls_to_ignore), "keep_query_keys": list(keep_query_keys)}
    return code_version(settings, "canonical_url_groups", "dedup.groups")


def corpus_version(near_duplicate_threshold: float = DEFAULT_THRESHOLD) -> str:
    """The similarity from which two texts are merged."""
    return code_version({"near_duplicate_threshold": near_duplicate_threshold}, "corpus", "dedup.corpus")


def corpus_quality_version(policy: QualityPolicy | None = None) -> str:
    """Which filters run, in which order, with which thresholds, and so which records are kept."""
    return code_version({"quality": _fields(policy or QualityPolicy())}, "corpus_quality", "lm.scoring")


def global_corpus_version(near_duplicate_threshold: float = DEFAULT_THRESHOLD) -> str:
    """The similarity from which texts of two websites are merged."""
    return code_version({"near_duplicate_threshold": near_duplicate_threshold}, "global_corpus", "lm.global_dedup")


def training_export_version(
    scrub_pii: bool = True, shard_records: int = DEFAULT_SHARD_RECORDS, text_format: str = "plain"
) -> str:
    """What the exported text may contain, in which format, and how it is cut into shards."""
    options = {"scrub_pii": scrub_pii, "shard_records": shard_records, "text_format": text_format}
    return code_version(options, "training_export", "lm.export", "lm.card")


def _fields(settings: Any, leave_out: frozenset[str] = frozenset()) -> dict[str, Any]:
    names = (field.name for field in dataclasses.fields(settings))
    return {name: getattr(settings, name) for name in names if name not in leave_out}


def _plain(value: Any) -> Any:
    """JSON-ready and order-stable: sets are sorted, since their iteration order changes between processes."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, set | frozenset):
        return sorted((_plain(item) for item in value), key=repr)
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(_fields(value))
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)
