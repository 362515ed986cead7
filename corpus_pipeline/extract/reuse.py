"""An incremental parse: a page whose every input is unchanged keeps last night's record, unread.

A page's record depends on its body, URL and crawl facts (content type, dates, category, language hint), the
website's registry entry, the extraction settings and code (``parsed_pages``' code version), the content containers
and the template. The template enters a parse only through the page's own blocks it holds, so a page's *template
fingerprint* is the digest of its signatures the model holds: a new template block re-parses only the pages showing it.

The memo (``parse_memo``, a versioned partition beside parsed_pages) holds per page:

- the survey's reading of the page (:class:`PageFacts`), keyed by URL, language hint, body digest and code version:
  the next survey reads only changed pages (its first row also keeps the sitemaps' listing);
- the page's *parse key*, the digest of everything its record depends on, and the parsed_pages version it describes:
  while that version is current, a page whose parse key is unchanged keeps its record;
- ``SitePageKinds``' columns as the page's own parse left them; ``kinds_key``, a digest of what the site-wide pass
  read, lets a night that would read the same records keep the version's kinds.

A kept record is copied whole; its ``in_sitemap`` and ``inlinks`` are set again if the links or sitemaps changed.

Known gap: a page cut (``max_chars``), flattened (markup depth) or whose HTTP charset contradicts its own declaration
may be parsed with other signatures than the survey's: a template change in those blocks goes unseen until the page
or the code changes.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.core.arrow_values import table_from_rows, table_rows
from corpus_pipeline.core.partition_writer import PartitionWriter
from corpus_pipeline.core.progress import Progress
from corpus_pipeline.core.reuse import KeyedRows, digest, kept_or_computed
from corpus_pipeline.core.schema import RECORD_SCHEMA
from corpus_pipeline.extract.boilerplate import BoilerplateModel
from corpus_pipeline.extract.content_container import ContainerVote
from corpus_pipeline.extract.page_input import HtmlPage
from corpus_pipeline.extract.site_links import SitemapListing, page_key, sitemap_listing
from corpus_pipeline.extract.site_page_kinds import SitePageKinds
from corpus_pipeline.extract.site_survey import (
    Page,
    PageFacts,
    SiteSurvey,
    listing_json,
    listing_of_json,
    survey_of_facts,
)

# The memo's partitions in the warehouse: parsed_pages' companion, not an asset of its own.
MEMO = "parse_memo"
# A block signature is a 32-bit frame above a 64-bit digest (extract/boilerplate.py).
SIGNATURE_BYTES = 12
# The record columns the site-wide pass of page kinds rewrites (write_with_page_kinds), whatever they become.
SITE_PASS_COLUMNS = tuple(f.name for f in dataclasses.fields(SitePageKinds))
# A record whose parse was stopped by its time budget depends on the machine's load that night: parsed again.
UNFINISHED_ERROR_PREFIX = "extraction "

FACTS_SCHEMA = pa.schema(
    [
        pa.field("url", pa.string()),
        pa.field("body_digest", pa.binary()),
        pa.field("survey_key", pa.binary()),  # URL, language hint, body digest, container sampling, code version
        pa.field("language", pa.string()),
        pa.field("signatures", pa.large_binary()),  # sorted, SIGNATURE_BYTES each
        pa.field("links", pa.list_(pa.string())),
        pa.field("container_name", pa.string()),
        pa.field("container_words", pa.int64()),
        pa.field("teaches", pa.bool_()),
    ]
)
PARSE_KEYS_SCHEMA = pa.schema(
    [
        pa.field("parse_key", pa.binary()),  # null: the record is not kept (see UNFINISHED_ERROR_PREFIX)
        pa.field("draft_values", pa.string()),  # JSON of the SITE_PASS_COLUMNS as the page's own parse left them
    ]
)
MEMO_SCHEMA = pa.schema(
    list(FACTS_SCHEMA)
    + list(PARSE_KEYS_SCHEMA)
    + [
        pa.field("records_version", pa.string()),  # the parsed_pages version whose records the parse keys describe
        pa.field("kinds_key", pa.binary()),  # what that version's page-kind pass read (kinds_key), the same every row
        # First row only (null in the others): the sitemaps' digest (sitemaps_input) and listing (listing_json).
        pa.field("sitemaps_input", pa.binary()),
        pa.field("sitemap_listing", pa.large_string()),
    ]
)
_FACT_COLUMNS = [name for name in FACTS_SCHEMA.names if name not in ("body_digest", "survey_key")]
_KEY_COLUMNS = ["url", "survey_key", "parse_key", "draft_values"]
# Fewer pages to read again go without the worker pool (the survey) or on one worker (the parse, whose time budget
# needs a process it can stop): a worker's start costs more than it saves.
FEW_TO_SURVEY, FEW_TO_PARSE = 64, 64
# A night's files in its scratch folder (parse_site), read back once: compressing them costs more CPU than it saves.
FACTS_FILE, PARSE_KEYS_FILE, RECORDS_FILE = "facts.parquet", "parse_keys.parquet", "records.parquet"
SITEMAPS_FILE = "sitemaps.json"  # the sitemaps' digest and listing (write_memo's sitemaps_input and sitemap_listing)
SCRATCH_COMPRESSION = "none"


@dataclass(frozen=True)
class KeptRecord:
    """A page's record kept from the current version: its URL, its (row group, index) in that version's file, and
    the memo's draft_values."""

    url: str
    position: tuple[int, int]
    draft_values: str


@dataclass
class Tally:
    """How many of a night's results were kept from last night, and how many were computed (told to ``progress``)."""

    progress: Progress
    kept: int = 0
    computed: int = 0

    def count(self, kept: bool) -> None:
        """One more result, kept or computed."""
        if kept:
            self.kept += 1
        else:
            self.computed += 1
        self.progress.advance()


class LastNight:
    """What the current parsed_pages version and its memo offer this night (nothing on a first or a full night)."""

    def __init__(
        self, memo_path: Path | None = None, records: KeyedRows | None = None, website: str = "",
        records_path: Path | None = None, kinds_key: bytes | None = None,
    ) -> None:
        self._memo_path = memo_path
        # The memo is read twice over: its keys to decide, its facts only for the pages kept (their bulk).
        self._memo = KeyedRows(memo_path, "url", columns=_KEY_COLUMNS) if memo_path else None
        self._facts = KeyedRows(memo_path, "url", columns=_FACT_COLUMNS) if memo_path else None
        self._records = records
        self._website = website
        self._records_path = records_path
        self._kinds_key = kinds_key

    @classmethod
    def open(
        cls, memo_path: Path | None, records_path: Path | None, records_version: str | None, website: str
    ) -> LastNight:
        """Last night's memo, and its records when the memo describes the current version ``records_version`` (a
        file of ``website``'s partition, which holds no ``website`` column)."""
        # A memo of an earlier layout is no memo: the night computes everything and writes a new one.
        if memo_path is None or not set(MEMO_SCHEMA.names) <= set(pq.read_schema(memo_path).names):
            return cls()
        memo = pl.read_parquet(memo_path, columns=["records_version", "kinds_key"]).unique()
        if records_path is None or records_version is None or memo["records_version"].to_list() != [records_version]:
            return cls(memo_path)
        return cls(memo_path, KeyedRows(records_path, "url"), website, records_path, memo["kinds_key"][0])

    def listing(self, sitemaps_input: bytes) -> SitemapListing | None:
        """Last night's sitemap listing when tonight's sitemaps are last night's (:func:`sitemaps_input`), else None."""
        source = pq.ParquetFile(self._memo_path) if self._memo_path is not None else None
        if source is None or source.metadata.num_rows == 0:
            return None
        head = source.read_row_group(0, columns=["sitemaps_input", "sitemap_listing"]).slice(0, 1).to_pylist()[0]
        if head["sitemaps_input"] != sitemaps_input or head["sitemap_listing"] is None:
            return None
        return listing_of_json(head["sitemap_listing"])

    def kept_facts(self, pages: Sequence[tuple[str, bytes]]) -> tuple[pa.Table, bool] | None:
        """Last night's survey facts (FACTS_SCHEMA rows) of every page of ``pages`` (``(url, survey_key)`` each), in
        that order, and whether they are the memo's every row once each; None when a page's survey inputs changed."""
        if self._memo_path is None or not pages:
            return None
        facts = pq.ParquetFile(self._memo_path).read(columns=FACTS_SCHEMA.names)
        last_row = {url: row for row, url in enumerate(facts.column("url").to_pylist())}
        keys = facts.column("survey_key").to_pylist()
        if any(url not in last_row or keys[last_row[url]] != key for url, key in pages):
            return None
        rows = [last_row[url] for url, _ in pages]
        whole = len(rows) == facts.num_rows and sorted(rows) == list(range(facts.num_rows))
        return facts.take(pa.array(rows, pa.int64())), whole

    def facts(self, url: str, survey_key: bytes) -> Callable[[], dict[str, Any]] | None:
        """A loader of the page's survey facts kept from last night, or None when its survey inputs changed."""
        if self._memo is None or self._facts is None:
            return None
        row = self._memo.get(url)
        if row is None or row["survey_key"] != survey_key:
            return None
        # Read when its turn comes: the facts of the pages kept between two changed ones wait in memory.
        return partial(self._facts.get, url)  # type: ignore[return-value]

    def record(self, url: str, parse_key: bytes) -> Callable[[], KeptRecord] | None:
        """A loader of the page's :class:`KeptRecord`, or None when any input of its parse changed."""
        if self._memo is None or self._records is None:
            return None
        row = self._memo.get(url)
        if row is None or row["parse_key"] != parse_key:
            return None
        position = self._records.position(url)
        if position is None:
            return None
        return partial(KeptRecord, url, position, row["draft_values"])

    def kept_records(self, kept: Sequence[KeptRecord], tonight: Sequence[Mapping[str, Any]]) -> pa.Table:
        """The ``kept`` records as the current version holds them, in that order, with ``tonight``'s columns (a
        mapping for each) and the site-wide pass's columns as each page's parse left them; copied by Arrow."""
        assert self._records is not None
        table = self._records.take([record.position for record in kept])
        values = [
            json.loads(record.draft_values) | {"website": self._website} | columns
            for record, columns in zip(kept, tonight, strict=True)
        ]
        names = [name for name in values[0] if name in RECORD_SCHEMA.names]
        replaced = table_from_rows(values, pa.schema([RECORD_SCHEMA.field(name) for name in names]))
        for name in names:
            index = table.schema.get_field_index(name)
            column = replaced.column(name)
            table = table.append_column(name, column) if index < 0 else table.set_column(index, name, column)
        return table

    def page_kinds(self, kinds_key: bytes, urls: pl.Series) -> SitePageKinds | None:
        """The current version's page kinds in the order of tonight's records (their ``urls``), when tonight's pass
        would read what that version's read (``kinds_key`` equal); else None, also when a URL has two records."""
        if self._kinds_key is None or self._kinds_key != kinds_key or self._records_path is None:
            return None
        current = pl.read_parquet(self._records_path, columns=["url", *SITE_PASS_COLUMNS])
        if current.height != urls.len() or current["url"].n_unique() != current.height:
            return None
        # The crawl's order varies from night to night: kinds follow their records by URL (equal keys, equal URLs).
        ordered = urls.rename("url").to_frame().join(current, on="url", how="left", maintain_order="left")
        return SitePageKinds(**{column: ordered[column].to_list() for column in SITE_PASS_COLUMNS})

    def close(self) -> None:
        for rows in (self._memo, self._facts, self._records):
            if rows is not None:
                rows.close()


def sitemaps_input(sitemaps: Iterable[tuple[str, bytes]], code_version: str) -> bytes:
    """What the sitemaps' listing depends on: each sitemap's address and body, in order (an entry listed twice keeps
    its first lastmod), and the code version."""
    return digest(code_version, b"".join(digest(address, body) for address, body in sitemaps))


@dataclass(frozen=True)
class SurveyedPage:
    """A page without its body, a loader of its body, and that body's digest and the page's survey key."""

    page: HtmlPage
    body: Callable[[], bytes]
    body_digest: bytes
    survey_key: bytes


def facts_mapper(
    last_night: LastNight, facts_file: PartitionWriter, tally: Tally
) -> Callable[[Callable[[Page], PageFacts], Iterable[SurveyedPage], int], Iterator[PageFacts]]:
    """A ``map_facts`` for :func:`survey_site` over :class:`SurveyedPage`: last night's facts of unchanged pages, the
    others read by ``map_in_windows``; each page's facts are written to ``facts_file`` in order and counted in
    ``tally``."""
    from corpus_pipeline.extract.pool import map_in_windows

    def map_facts(
        read: Callable[[Page], PageFacts], pages: Iterable[SurveyedPage], workers: int
    ) -> Iterator[PageFacts]:
        def plan(page: SurveyedPage) -> tuple[tuple[str, bytes, bytes], Callable[[], dict[str, Any]] | None]:
            url = page.page.url
            return (url, page.body_digest, page.survey_key), last_night.facts(url, page.survey_key)

        def read_facts(misses: Iterable[SurveyedPage], workers: int = workers) -> Iterator[dict[str, Any]]:
            bodies = ((miss.page.url, miss.page.hreflang, miss.body()) for miss in misses)
            return map(row_of_facts, map_in_windows(read, bodies, workers))

        # Kept and read facts alike as memo rows: a kept row is written as it was read, not decoded and encoded again.
        few = partial(read_facts, workers=1)
        for (url, body_digest, key), row, kept in kept_or_computed(pages, plan, read_facts, few, FEW_TO_SURVEY):
            facts_file.write(row | {"url": url, "body_digest": body_digest, "survey_key": key})
            tally.count(kept)
            yield facts_of_row(row)

    return map_facts


def parse_key(
    page: HtmlPage, body_digest: bytes, language: str, signatures: bytes, model: BoilerplateModel, parse_inputs: str
) -> bytes:
    """Everything a page's record depends on: the page, its template fingerprint (its block ``signatures``, packed
    and sorted as the memo holds them, that its ``language``'s template holds), the containers and ``parse_inputs``
    (code version, registry entry, extraction settings and budget)."""
    template = model.templates.get(language)
    # Looked up packed, not decoded: the fingerprint keeps their sorted order.
    held = _packed_signatures(template.signatures) if template is not None else frozenset()
    chunks = (signatures[start : start + SIGNATURE_BYTES] for start in range(0, len(signatures), SIGNATURE_BYTES))
    shown = b"".join(chunk for chunk in chunks if chunk in held)
    dates = (_iso(page.sitemap_lastmod), _iso(page.http_last_modified), _iso(page.fetched_at))
    return digest(
        parse_inputs, page.url, body_digest, page.content_type, *dates, page.category, page.hreflang, language, shown,
        _containers_json(model.containers),
    )


# A page to parse (without its body), and a loader of its body (records_with_reuse).
_Page = tuple[HtmlPage, Callable[[], bytes]]


def records_with_reuse(
    pages: Iterable[_Page],
    facts_rows: Iterable[dict[str, Any]],
    survey: SiteSurvey,
    last_night: LastNight,
    parse_inputs: str,
    parse: Callable[[Iterable[HtmlPage], int], Iterable[dict[str, Any]]],
    keys: PartitionWriter,
    workers: int = 2,
) -> Iterator[dict[str, Any] | KeptRecord]:
    """Each page's record in order, a dict when parsed tonight, a :class:`KeptRecord` when kept, as the page's own
    parse left it (without the survey's facts and the site-wide pass); its parse key is written to ``keys``.
    ``pages`` are ``(page, body loader)``; ``facts_rows`` the survey's rows of the same pages in the same order;
    ``parse(pages, workers)`` parses the pages whose inputs changed."""

    def plan(item: tuple[_Page, dict[str, Any]]) -> tuple[bytes, Any]:
        (page, _), row = item
        if row["url"] != page.url:
            raise ValueError(f"the survey's rows and the pages are out of step: {row['url']} and {page.url}")
        key = parse_key(page, row["body_digest"], row["language"], row["signatures"] or b"", survey.boilerplate,
                        parse_inputs)
        return key, last_night.record(page.url, key)

    def parse_pages(items: Iterable[tuple[_Page, dict[str, Any]]], workers: int = workers) -> Iterable[dict]:
        return parse((dataclasses.replace(page, body=body()) for (page, body), _ in items), workers)

    few = partial(parse_pages, workers=1)
    items = zip(pages, facts_rows, strict=True)
    for key, result, kept in kept_or_computed(items, plan, parse_pages, few, FEW_TO_PARSE):
        if kept:
            keys.write({"parse_key": key, "draft_values": result.draft_values})
        else:
            reusable = not (result.get("error") or "").startswith(UNFINISHED_ERROR_PREFIX)
            draft_values = json.dumps({column: result.get(column) for column in SITE_PASS_COLUMNS})
            keys.write({"parse_key": key if reusable else None, "draft_values": draft_values})
        yield result


def row_of_facts(facts: PageFacts) -> dict[str, Any]:
    """The memo's columns of a page's survey facts."""
    container = facts.container
    return {
        "language": facts.language,
        "signatures": b"".join(signature.to_bytes(SIGNATURE_BYTES, "big") for signature in sorted(facts.signatures)),
        "links": sorted(facts.links),
        "container_name": container.name if container is not None else None,
        "container_words": container.words if container is not None else None,
        "teaches": facts.teaches,
    }


def facts_of_row(row: Mapping[str, Any]) -> PageFacts:
    """A page's survey facts from its memo row (:func:`row_of_facts` read back)."""
    name = row["container_name"]
    container = ContainerVote(name, row["container_words"]) if name is not None else None
    blob = row["signatures"] or b""  # packed by row_of_facts
    chunks = (blob[at : at + SIGNATURE_BYTES] for at in range(0, len(blob), SIGNATURE_BYTES))
    signatures = frozenset(int.from_bytes(chunk, "big") for chunk in chunks)
    return PageFacts(row["language"], signatures, frozenset(row["links"] or ()), container, row["teaches"])


def memo_rows(path: Path, columns: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """The rows of a memo or facts file, in order, one row group at a time."""
    source = pq.ParquetFile(path)
    for group in range(source.num_row_groups):
        yield from table_rows(source.read_row_group(group, columns=columns))


def write_memo(scratch: Path, writer: PartitionWriter, records_version: str, kinds_key: bytes) -> None:
    """Write into ``writer`` the memo of the night whose files are in ``scratch``, describing the parsed_pages
    version ``records_version`` whose page kinds were decided from what ``kinds_key`` digests."""
    facts = pq.ParquetFile(scratch / FACTS_FILE)
    # ParquetFile, not read_table: read_table goes through pyarrow.dataset, whose import costs a night ~0.25 CPU s.
    keys = pq.ParquetFile(scratch / PARSE_KEYS_FILE).read()
    if keys.num_rows != facts.metadata.num_rows:
        raise ValueError(f"{keys.num_rows} parse keys for {facts.metadata.num_rows} pages surveyed")
    sitemaps = json.loads((scratch / SITEMAPS_FILE).read_text())
    start = 0
    for group in range(facts.num_row_groups):
        table = facts.read_row_group(group)
        rows = table.num_rows
        for name in PARSE_KEYS_SCHEMA.names:
            table = table.append_column(name, keys.column(name).slice(start, rows))
        first = start == 0
        constants = pl.DataFrame(
            {
                "records_version": [records_version] * rows,
                "kinds_key": [kinds_key] * rows,
                "sitemaps_input": [bytes.fromhex(sitemaps["input"]) if first else None] + [None] * (rows - 1),
                "sitemap_listing": [sitemaps["listing"] if first else None] + [None] * (rows - 1),
            },
            schema={"records_version": pl.String, "kinds_key": pl.Binary, "sitemaps_input": pl.Binary,
                    "sitemap_listing": pl.String},
        )
        for name in constants.columns:
            table = table.append_column(name, constants[name].to_arrow().cast(MEMO_SCHEMA.field(name).type))
        writer.write_table(table)
        start += rows


def kinds_key(draft: Path, columns: Iterable[str], parse_inputs: str = "") -> bytes:
    """A digest of what the site-wide page-kind pass reads of the records in ``draft``: its ``columns`` as a set of
    rows (the pass ignores their order; the crawl's varies) and the code that reads them (``parse_inputs``)."""
    frame = pl.read_parquet(draft, columns=list(columns))
    hashes = np.sort(frame.hash_rows(seed=0, seed_1=1, seed_2=2, seed_3=3).to_numpy())
    return digest(parse_inputs, str(frame.height), ",".join(frame.columns), hashes.tobytes())


@lru_cache(maxsize=8)
def _containers_json(containers: tuple[str, ...]) -> str:
    """The containers as a parse key holds them: written once a night, not once a page."""
    return json.dumps(list(containers))


@lru_cache(maxsize=64)
def _packed_signatures(signatures: frozenset[int]) -> frozenset[bytes]:
    """A template's signatures packed one by one (as :func:`row_of_facts` packs them), once a night a language."""
    return frozenset(signature.to_bytes(SIGNATURE_BYTES, "big") for signature in signatures)


def _iso(moment: Any) -> str | None:
    return moment.isoformat() if moment is not None else None


@dataclass(frozen=True)
class SiteParse:
    """What :func:`parse_site` leaves: the survey, and how many pages were kept and computed, at which rates."""

    survey: SiteSurvey
    facts: Tally
    records: Tally
    survey_s: float
    parse_s: float
    sitemaps_reused: bool = False  # last night's sitemap listing stood (the sitemaps unchanged)
    links_kept: bool = False  # so did every page's survey facts: kept records' in_sitemap and inlinks stand

    def holds_records_of(self, rows: int) -> bool:
        """Whether the night's records are exactly the current version's ``rows`` records, every one kept with the
        in_sitemap and inlinks it was written with: the night would write that version again."""
        return self.links_kept and self.records.computed == 0 and self.records.kept == rows

    def metadata(self) -> dict[str, int | float | bool]:
        """The materialization's counts: pages kept and recomputed, and pages per second of the survey and parse."""
        return {
            "records_reused": self.records.kept,
            "records_parsed": self.records.computed,
            "survey_pages_reused": self.facts.kept,
            "survey_pages_read": self.facts.computed,
            "survey_pages_per_s": round(_rate(self.facts.kept + self.facts.computed, self.survey_s), 1),
            "parse_pages_per_s": round(_rate(self.records.kept + self.records.computed, self.parse_s), 1),
            "parsed_pages_per_s": round(_rate(self.records.computed, self.parse_s), 1),
            "sitemaps_reused": self.sitemaps_reused,
        }


def parse_site(
    pages: Callable[[], Iterable[tuple[HtmlPage, Callable[[], bytes]]]],
    sitemaps: Iterable[tuple[str, bytes]],
    last_night: LastNight,
    parse_inputs: str,
    parse: Callable[[Iterable[HtmlPage], BoilerplateModel, int], Iterable[dict[str, Any]]],
    scratch: Path,
    *,
    pages_total: int,
    current_rows: int | None = None,
    workers: int,
    sample_every: int,
    log: Callable[[str], None],
    trim_every: int = 64,
) -> SiteParse:
    """Survey the website, then write each page's record (with the survey's facts) to ``scratch/records.parquet``,
    keeping what ``last_night`` offers; the makings of the memo stay in ``scratch`` (write_memo). ``pages()`` yields
    the HTML pages in order, each with a loader of its body (read once for its digest, again only to survey or parse
    the page); ``parse(pages, model, workers)`` parses the changed ones. A night that keeps every record of the
    current version (``current_rows``) with its links writes no records (:meth:`SiteParse.holds_records_of`)."""
    from corpus_pipeline.core.memory import return_freed_memory
    from corpus_pipeline.extract.site_survey import survey_site

    facts_path = scratch / FACTS_FILE
    facts_tally = Tally(Progress("survey", pages_total, log))
    started = time.monotonic()
    surveyed = [_surveyed(page, body, sample_every, parse_inputs) for page, body in pages()]
    listed = list(sitemaps)
    sitemaps_in = sitemaps_input(listed, parse_inputs)
    listing = last_night.listing(sitemaps_in)
    kept_facts = last_night.kept_facts([(page.page.url, page.survey_key) for page in surveyed])
    with PartitionWriter(facts_path, FACTS_SCHEMA, compression=SCRATCH_COMPRESSION) as facts_file:
        if kept_facts is not None:
            # Every page's facts kept: copied by Arrow, the survey learned again from them in tonight's order (the
            # crawl's order varies, and the template learner reads neighbours).
            facts, _ = kept_facts
            facts_file.write_table(facts)
            facts_tally.kept = len(surveyed)
            survey = survey_of_facts(map(facts_of_row, table_rows(facts)),
                                     listing if listing is not None else sitemap_listing(listed))
        else:
            survey = survey_site(surveyed, listed, workers=workers, container_sample_every=sample_every,
                                 map_facts=facts_mapper(last_night, facts_file, facts_tally), listed=listing)
    kept_sitemaps = {"input": sitemaps_in.hex(), "listing": listing_json(survey.listed)}
    (scratch / SITEMAPS_FILE).write_text(json.dumps(kept_sitemaps))
    # Same facts and sitemaps as the memo's night: its records' in_sitemap and inlinks stand.
    same_links = listing is not None and kept_facts is not None and kept_facts[1]
    del listed
    survey_s = time.monotonic() - started
    return_freed_memory()  # what the survey's reading of the bodies left, before the parse reads them again

    records_tally = Tally(Progress("parse", pages_total, log))
    started = time.monotonic()
    with (
        PartitionWriter(scratch / RECORDS_FILE, RECORD_SCHEMA, compression=SCRATCH_COMPRESSION) as writer,
        PartitionWriter(scratch / PARSE_KEYS_FILE, PARSE_KEYS_SCHEMA, compression=SCRATCH_COMPRESSION) as keys,
    ):
        # A page's key is asked for twice (its sitemap lastmod, its record's survey facts): canonicalized once.
        key_of = lru_cache(maxsize=4096)(page_key)
        records = records_with_reuse(
            ((_with_sitemap_lastmod(page.page, survey.listed, key_of), page.body) for page in surveyed),
            memo_rows(facts_path, ["url", "body_digest", "language", "signatures"]), survey, last_night, parse_inputs,
            lambda changed, count: parse(changed, survey.boilerplate, count), keys, workers,
        )
        draft = _Draft(writer, last_night)
        for written, record in enumerate(records, start=1):
            if isinstance(record, KeptRecord):
                # With the same links its in_sitemap and inlinks stand (and its URL need not be canonicalized).
                draft.keep(record, {} if same_links else survey.facts_for(record.url, key_of))
            else:
                draft.write(record | survey.facts_for(record["url"], key_of))
            records_tally.count(isinstance(record, KeptRecord))
            if written % trim_every == 0:
                # Texts larger than pymalloc's 512 bytes leave malloc's heap holey (parsed_pages' TRIM_EVERY_RECORDS).
                return_freed_memory()
        if not (same_links and records_tally.computed == 0 and records_tally.kept == current_rows):
            draft.flush()
    return SiteParse(survey, facts_tally, records_tally, survey_s, time.monotonic() - started, listing is not None,
                     bool(same_links))


def _surveyed(page: HtmlPage, body: Callable[[], bytes], sample_every: int, code_version: str) -> SurveyedPage:
    """``page`` (without its body) with its body's digest and its survey key: its body read once, then let go."""
    body_digest = digest(body())
    # ``sample_every`` is in it: it decides which pages vote for the container.
    key = digest(code_version, page.url, page.hreflang, body_digest, str(sample_every))
    return SurveyedPage(page, body, body_digest, key)


class _Draft:
    """The night's records into ``writer`` in order: parsed ones from their dicts, kept ones copied by Arrow a row
    group at a time. Kept ones wait until a record is parsed: a night that keeps every record needs no draft."""

    def __init__(self, writer: PartitionWriter, last_night: LastNight) -> None:
        self._writer, self._last_night = writer, last_night
        self._kept: list[KeptRecord] = []
        self._tonight: list[dict[str, Any]] = []
        self._parsed = False

    def write(self, record: dict[str, Any]) -> None:
        self._parsed = True
        self.flush()
        self._writer.write(record)

    def keep(self, record: KeptRecord, tonight: dict[str, Any]) -> None:
        self._kept.append(record)
        self._tonight.append(tonight)
        if self._parsed and len(self._kept) >= self._writer.row_group_size:
            self.flush()

    def flush(self) -> None:
        """Write the kept records waiting, a row group at a time."""
        size = self._writer.row_group_size
        for start in range(0, len(self._kept), size):
            self._writer.write_table(
                self._last_night.kept_records(self._kept[start : start + size], self._tonight[start : start + size])
            )
        self._kept, self._tonight = [], []


def _with_sitemap_lastmod(page: HtmlPage, listing: SitemapListing, key_of: Callable[[str], str | None]) -> HtmlPage:
    """``page`` with its sitemap entry's ``lastmod`` when raw_pages has none (the crawl reached it by a link before
    reading the sitemap): its date does not hang on the crawl's order. ``key_of`` is a cache of page_key."""
    # Sitemaps without lastmods: no URL to canonicalize.
    key = key_of(page.url) if page.sitemap_lastmod is None and listing.lastmods else None
    if key and (lastmod := listing.lastmods.get(key)) is not None:
        return dataclasses.replace(page, sitemap_lastmod=lastmod)
    return page


def _rate(items: int, seconds: float) -> float:
    return items / seconds if seconds > 0 else 0.0
