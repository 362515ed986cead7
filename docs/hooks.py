"""MkDocs hook: the reference tables are generated from the code each time the site is built.

A page asks for a table with a marker line of its own, ``<!-- generated: NAME -->``, which this hook replaces with
the table built from the package (``NAME`` is a key of ``GENERATORS``). So the assets, their checks and columns, the
registry options, the resources' fields and the crawl outcomes shown on the site are those of the code that built
it; ``mkdocs build --strict`` (run by ``scripts/lint.sh``) fails on an unknown marker or a column without a
description.

Only public names of Dagster and pydantic are used: ``Definitions.resolve_all_asset_specs``,
``Definitions.resolve_assets_def``, ``AssetsDefinition.check_specs``, ``TableSchema`` and pydantic's
``model_fields``.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

log = logging.getLogger("mkdocs.hooks.corpus_pipeline")

MARKER = re.compile(r"^<!-- generated: ([a-z_-]+) -->$", re.MULTILINE)
DOCS_DIR = Path(__file__).resolve().parent

# The order a reader meets the assets in: the per-website pipeline, then the training set.
ASSET_ORDER = (
    "raw_pages", "parsed_pages", "pdf_documents", "canonical_url_groups", "corpus",
    "corpus_quality", "global_corpus", "training_export",
)

# The registry's Website dataclass carries types and defaults but no descriptions: they are kept here, by option
# name. An option of the code missing from this table still gets its row (marked "not described yet").
REGISTRY_OPTIONS = {
    "name": "Partition key and folder name: `[a-z0-9][a-z0-9._-]*`, at most 63 characters.",
    "url": "Root of the website, `http(s)://host[:port]/`; the port is kept everywhere.",
    "mode": "`sitemap`: the pages the sitemaps list; `crawl`: follow links breadth-first from `child`.",
    "sitemap": "Sitemap or sitemap index (gzip accepted); `Sitemap:` lines of robots.txt are added to it.",
    "child": "Start page of crawl mode.",
    "markup": "Where the text is: a tag, `[tag, {attr: value}]`, a CSS selector, or a list of them. "
    "Empty: found automatically.",
    "contains_str": "Substring(s) a URL must contain to be indexed; the crawl still goes through other pages.",
    "langs": "hreflang alternates to fetch as translations, e.g. `[fr, de]`.",
    "default_lang": "Language used when neither the page, its hreflang nor detection gives one.",
    "category": "Label copied to every record; pages off the website get `external`.",
    "max_recurse_level": "Crawl depth: `1` is the start page alone, `-1` no limit.",
    "restrict_section": "Crawl mode: stay under the path of `child` at every depth.",
    "internal_links": "Sitemap mode: which links of sitemap pages are fetched one level deep: `any`, `internal`, "
    "`external` or `ignore`.",
    "obey_robots": "Follow robots.txt rules and its Crawl-delay.",
    "same_site_hosts": "Other host names of the same website, e.g. `www.example.org`.",
    "keep_code_blocks": "Keep the text of `<pre>` and `<code>` in the content (documentation sites need it).",
    "min_content_words": "Automatic extraction: a shorter text is no document (its words go to `error`); `0` keeps "
    "any text. Text selected by `markup` is always kept.",
    "skip_unchanged_lastmod": "Re-crawls: do not request a sitemap URL whose `lastmod` has not changed.",
    "follow_nofollow_links": "Also follow links marked `rel=\"nofollow\"`, `ugc` or `sponsored` (a page-level "
    "`nofollow` still holds).",
    "ocr": "PDFs: `0` never OCR, `1` pages without a text layer, `2` every page.",
    "max_pages": "Cap on pages per crawl for this website; empty: `crawler_config.max_pages`.",
    "keep_listings": "Keep listings and error pages (`page_kind`) in `canonical_url_groups` and `corpus`.",
    "markdown_links": "The `markdown` column writes links as `[text](absolute URL)` (default: their text).",
    "markdown_images": "The `markdown` column keeps images as `![alt](absolute URL)` (default: left out).",
}

# Fields of the resources that declare no description in the code, and defaults that depend on the machine.
FIELD_NOTES = {
    ("CrawlerConfig", "connect_timeout_s"): "Seconds to open a connection.",
    ("CrawlerConfig", "read_timeout_s"): "Seconds to wait between two reads of a response.",
    ("CrawlerConfig", "max_retries"): "Retries on 429, 5xx, timeouts and connection errors, with exponential "
    "back-off; `Retry-After` is honoured.",
    ("TrainingSetPolicy", "min_language_score"): "Language filter: lowest py3langid score kept (FineWeb: 0.65).",
    ("TrainingSetPolicy", "c4_min_num_sentences"): "C4: fewest sentences a document needs.",
}
MACHINE_DEFAULTS = {("CrawlerConfig", "workers"): "CPU count"}
LONG_LIST = 6  # list defaults longer than this are shown below the table


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace each marker line of a page by the table it names."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise PluginError(f"{page.file.src_path}: unknown generated section {name!r} (known: {sorted(GENERATORS)})")
        return GENERATORS[name]()

    return MARKER.sub(replace, markdown)


# --- helpers -------------------------------------------------------------------------------------------------------


def _text(text: str) -> str:
    """Plain text of the code (docstrings, descriptions) as Markdown: ``<`` and ``>`` outside code spans escaped, so
    that ``<link rel=canonical>`` or ``<data dir>`` are shown rather than read as HTML."""
    parts = re.split(r"(`+[^`]*`+)", text)
    return "".join(part if part.startswith("`") else part.replace("<", "&lt;").replace(">", "&gt;") for part in parts)


def _cell(text: Any) -> str:
    """Text for one cell of a Markdown table."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


def _default(value: Any) -> str:
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f"`{value}`" if value else "`\"\"`"
    if isinstance(value, tuple | list):
        if not value:
            return "`[]`"
        if len(value) > LONG_LIST:
            return f"{len(value)} entries, listed below"
        return "`[" + ", ".join(str(getattr(item, "value", item)) for item in value) + "]`"
    return f"`{value}`"


def _definitions() -> Any:
    from corpus_pipeline.definitions import defs

    return defs


# --- generators ----------------------------------------------------------------------------------------------------


def assets() -> str:
    """Each asset as the code location declares it: group, upstream, tags, checks and columns."""
    defs = _definitions()
    specs = {spec.key.to_user_string(): spec for spec in defs.resolve_all_asset_specs()}
    order = [name for name in ASSET_ORDER if name in specs] + sorted(set(specs) - set(ASSET_ORDER))
    sections = []
    for name in order:
        spec = specs[name]
        assets_def = defs.resolve_assets_def(spec.key)
        upstream = ", ".join(f"`{dep.asset_key.to_user_string()}`" for dep in spec.deps) or "none (it crawls)"
        partitioned = "one partition per website" if spec.partitions_def is not None else "not partitioned"
        network = spec.tags.get("network", "")
        group = spec.group_name or ""
        group_description = spec.metadata.get("group_description", "")
        lines = [
            f"## `{name}`",
            "",
            _text((spec.description or "").strip()),
            "",
            f"- **Group** `{group}`" + (f": {_text(str(group_description))}" if group_description else ""),
            f"- **Reads** {upstream}; **{partitioned}**; network tag `{network}`",
            "",
        ]
        checks = sorted(assets_def.check_specs, key=lambda check: check.name)
        if checks:
            lines += [
                "**Checks**",
                "",
                _table(
                    ["check", "blocks publication", "what it asserts"],
                    [(f"`{check.name}`", "yes" if check.blocking else "no (a warning)", _text(check.description or ""))
                     for check in checks],
                ),
                "",
            ]
        schema = spec.metadata.get("dagster/column_schema")
        if schema is not None:
            rows = []
            for column in schema.columns:
                if not column.description:
                    raise PluginError(f"asset {name}: column {column.name!r} has no description "
                                      "(corpus_pipeline/core/columns.py)")
                rows.append((f"`{column.name}`", f"`{column.type}`", _text(column.description)))
            lines += ["**Columns**", "", _table(["column", "type", "meaning"], rows), ""]
        sections.append("\n".join(lines))
    return "\n".join(sections)


def jobs() -> str:
    """The jobs and schedules of the code location."""
    defs = _definitions()
    rows = [(f"`{job.name}`", _text(job.description or "")) for job in defs.resolve_all_job_defs()
            if not job.name.startswith("__")]
    schedules = [
        (f"`{schedule.name}`", f"`{schedule.cron_schedule}` ({schedule.execution_timezone or 'UTC'})",
         f"`{schedule.job_name}`", _text(schedule.description or ""))
        for schedule in defs.schedules or []
    ]
    return "\n\n".join([
        _table(["job", "what it does"], rows),
        _table(["schedule", "when", "job", "what it does"], schedules),
    ])


def registry() -> str:
    """The options of a registry entry: the fields of ``corpus_pipeline.core.registry.Website``."""
    from corpus_pipeline.core.registry import Website

    rows = []
    for field in dataclasses.fields(Website):
        if field.default is not dataclasses.MISSING:
            default = _default(field.default)
        elif field.default_factory is not dataclasses.MISSING:
            default = _default(field.default_factory())
        else:
            default = "required"
        meaning = REGISTRY_OPTIONS.get(field.name)
        if meaning is None:
            log.info("registry option %r has no description in docs/hooks.py", field.name)
            meaning = "(not described yet)"
        rows.append((f"`{field.name}`", default, meaning))
    stale = set(REGISTRY_OPTIONS) - {field.name for field in dataclasses.fields(Website)}
    if stale:
        log.info("docs/hooks.py describes registry options the code no longer has: %s", sorted(stale))
    return _table(["option", "default", "meaning"], rows)


def _resource_table(resource: type) -> str:
    rows, long_lists = [], []
    for name, field in resource.model_fields.items():
        if (resource.__name__, name) in MACHINE_DEFAULTS:
            default = MACHINE_DEFAULTS[(resource.__name__, name)]
        elif field.is_required():
            default = "required"
        else:
            value = field.get_default(call_default_factory=True)
            default = _default(value)
            if isinstance(value, list | tuple) and len(value) > LONG_LIST:
                items = "\n".join(f"    {item}" for item in value)
                long_lists.append(f"\n\n`{name}` by default:\n\n{items}")
        meaning = _text(field.description or "") or FIELD_NOTES.get((resource.__name__, name))
        if not meaning:
            log.info("%s.%s has no description", resource.__name__, name)
            meaning = "(not described yet)"
        rows.append((f"`{name}`", default, meaning))
    return _table(["field", "default", "meaning"], rows) + "".join(long_lists)


def _resource_generator(module: str, class_name: str) -> Callable[[], str]:
    def generate() -> str:
        import importlib

        resource = getattr(importlib.import_module(module), class_name)
        doc = _text(" ".join((resource.__doc__ or "").split()))
        return f"{doc}\n\n{_resource_table(resource)}"

    return generate


def outcomes() -> str:
    """The values of raw_pages ``outcome``, with the comment each has in ``corpus_pipeline/core/outcomes.py``."""
    import inspect

    from corpus_pipeline.core import outcomes as module

    comments = dict(re.findall(r'^\s+[A-Z_]+ = "([a-z_]+)"\s+#\s*(.+)$', inspect.getsource(module), re.MULTILINE))
    usable = set(module.USABLE_OUTCOME_VALUES)
    rows = [(f"`{outcome.value}`", "yes" if outcome.value in usable else "", _text(comments.get(outcome.value, "")))
            for outcome in module.FetchOutcome]
    return _table(["outcome", "usable document", "meaning"], rows)


def _pages_in(folder: str, link_prefix: str) -> Callable[[], str]:
    """A list of every page of a docs folder, so a page added there is listed without editing the page that lists
    it (``link_prefix``: the folder as seen from that page)."""

    def generate() -> str:
        items = []
        for path in sorted((DOCS_DIR / folder).glob("*.md")):
            if path.name == "index.md":
                continue
            heading = next((line[2:].strip() for line in path.read_text(encoding="utf-8").splitlines()
                            if line.startswith("# ")), path.stem.replace("-", " "))
            items.append(f"- [{heading}]({link_prefix}{path.name})")
        return "\n".join(items) or "(none yet)"

    return generate


GENERATORS: dict[str, Callable[[], str]] = {
    "assets": assets,
    "jobs": jobs,
    "registry": registry,
    "outcomes": outcomes,
    "how-to-pages": _pages_in("how-to", ""),  # listed by how-to/index.md
    "upstream-pages": _pages_in("upstream", "upstream/"),  # listed by index.md
    "crawler-config": _resource_generator("corpus_pipeline.resources", "CrawlerConfig"),
    "warehouse": _resource_generator("corpus_pipeline.resources", "ParquetWarehouse"),
    "websites-resource": _resource_generator("corpus_pipeline.resources", "WebsiteRegistry"),
    "training-policy": _resource_generator("corpus_pipeline.training_resources", "TrainingSetPolicy"),
}
