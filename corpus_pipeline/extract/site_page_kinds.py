"""The kind of every page of a website, from what its text shows of the website's other pages.

A listing (an archive, a tag or date page, a paginated home page, search results, a print view of several posts) is
a page whose main content is other pages' titles, excerpts or full texts: the website's own records show it. So every
record is read twice, one at a time:

1. each record's *probes* are kept: the word 5-shingles of its opening (what an excerpt shows) and a bottom-k sketch
   of all its shingles (the share of the sketch found in another text estimates how much of the record stands
   there). A few dozen integers a record, in sorted arrays: no text is held, no pair of texts compared;
2. each record's shingles are looked up among the probes: the records whose opening (or whole text) it shows.

Where the text alone cannot tell (a month archive holding one post holds the post's text), the page's declarations
(:mod:`corpus_pipeline.extract.page_kind`: body classes, structured data, pagination, rel=canonical) and its title
links decide: the archive links to the post from its heading and names no canonical URL; the post names itself.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq

from corpus_pipeline.core.partition_writer import PartitionWriter
from corpus_pipeline.extract.page_kind import (
    DOCUMENT,
    ERROR_PAGE,
    LISTING,
    declared_kind,
    document_declared,
    error_title,
)
from corpus_pipeline.extract.site_links import page_key

SHINGLE_WORDS = 5
MIN_PROBE_WORDS = 10  # a shorter text (a form's prompt, a one-line page) is shown by too many pages by chance
LEAD_SHINGLES = 12  # the opening's first 16 words: every excerpt shows them (WordPress's are 55 words)
SKETCH_SIZE = 24
SHOWN_SHARE = 0.8  # of a record's opening (or of its sketch) found in a page for the page to show it
COPY_COVERAGE = 0.8  # share of a page's words that other pages' texts cover for the page to be made of them
DOCUMENT_COVERAGE = 0.5  # the same, for a page that declares itself one document (a post, an article)
MIN_TITLE_LIST = 3
_WORD = re.compile(r"\w+")
_MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))
_WEIGHTS = np.array([0x9E3779B97F4A7C15 * (2 * j + 1) % (1 << 64) for j in range(SHINGLE_WORDS)], dtype=np.uint64)
_MEMO_LIMIT = 1 << 20
_ROWS_AT_ONCE = 4096
COLUMNS = (
    "url", "canonical_url", "title", "content", "error", "page_kind", "page_kind_evidence", "title_links",
    "alternates",
)


@dataclass(frozen=True)
class SitePageKinds:
    """One entry per record, in the records' order: its kind, why, and how many listings link to it by title."""

    page_kind: list[str | None]
    page_kind_evidence: list[str | None]
    title_inlinks: list[int]

    def counts(self) -> dict[str, int]:
        """Records of each kind (``pages_listing``...), for the asset's metadata."""
        return dict(Counter(f"pages_{kind or 'unknown'}" for kind in self.page_kind))


class _Shingler:
    """Word 5-shingles of texts as 64-bit hashes: each distinct word hashed once (BLAKE2b, the same in every process
    and run), a shingle a vectorized mix of its words' hashes."""

    def __init__(self) -> None:
        self._memo: dict[str, int] = {}

    def words(self, text: str) -> list[str]:
        return _WORD.findall(text.lower())

    def hashes(self, words: list[str]) -> np.ndarray:
        if len(words) < SHINGLE_WORDS:
            return np.empty(0, dtype=np.uint64)
        memo = self._memo
        if len(memo) > _MEMO_LIMIT:
            memo.clear()
        values = list(map(memo.get, words))  # most words of a page stand on the website's other pages: known
        if None in values:
            for at in [at for at, value in enumerate(values) if value is None]:
                value = memo.get(words[at])  # a new word seen earlier on this page
                if value is None:
                    value = memo[words[at]] = _word_hash(words[at])
                values[at] = value
        ids = np.array(values, dtype=np.uint64)
        count = len(words) - SHINGLE_WORDS + 1
        mixed = np.zeros(count, dtype=np.uint64)
        for j in range(SHINGLE_WORDS):
            mixed += ids[j : j + count] * _WEIGHTS[j]
        mixed ^= mixed >> np.uint64(31)
        mixed *= _MIX[0]
        mixed ^= mixed >> np.uint64(29)
        mixed *= _MIX[1]
        mixed ^= mixed >> np.uint64(32)
        return mixed


def _word_hash(word: str) -> int:
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")


def site_page_kinds(records: pl.DataFrame) -> SitePageKinds:
    """The kind of each record of a website (``COLUMNS`` of parsed_pages, in any order of rows). Records with an
    error or no text are error pages when declared one, else without a kind."""
    size = records.height
    column = {name: records[name] if name in records.columns else pl.Series(name, [None] * size) for name in COLUMNS}
    contents, errors = column["content"], column["error"].to_list()
    usable = [errors[row] is None and bool(contents[row]) for row in range(size)]
    shingler = _Shingler()

    # 1. Probes: each record's opening and sketch.
    probe_hashes, probe_owners, probe_leads = [np.empty(0, np.uint64)], [np.empty(0, np.int32)], [np.empty(0, bool)]
    lead_sizes, sketch_sizes, word_counts = np.zeros((3, size), dtype=np.int32)
    # Each record's distinct shingles, kept for step 2 (hashing the words is most of the pass's cost).
    distinct: list[np.ndarray | None] = [None] * size
    for row in range(size):
        if not usable[row]:
            continue
        words = shingler.words(contents[row])
        word_counts[row] = len(words)
        hashes = shingler.hashes(words)
        distinct[row] = unique = np.unique(hashes)
        if len(words) < MIN_PROBE_WORDS:
            continue
        lead = np.unique(hashes[:LEAD_SHINGLES])
        sketch = unique[:SKETCH_SIZE]
        lead_sizes[row], sketch_sizes[row] = len(lead), len(sketch)
        probe_hashes += [lead, sketch]
        probe_owners += [np.full(len(lead) + len(sketch), row, dtype=np.int32)]
        probe_leads += [np.ones(len(lead), dtype=bool), np.zeros(len(sketch), dtype=bool)]
    hashes_all = np.concatenate(probe_hashes)
    order = np.argsort(hashes_all, kind="stable")
    index = hashes_all[order]
    owners = np.concatenate(probe_owners)[order]
    leads = np.concatenate(probe_leads)[order]
    del probe_hashes, probe_owners, probe_leads

    # 2. Which records each page shows (their opening, or their whole text). A page and its partial translations
    # (hreflang alternates, either way) show each other's words, yet neither lists the other.
    canonical = column["canonical_url"].to_list()
    keys = [page_key(url or "") or (url or "") for url in column["url"].to_list()]
    translations = _translations(column["alternates"], keys)
    shows: dict[int, dict[int, bool]] = {}  # page -> {record shown: whole text shown}
    for row in range(size):
        shingles = distinct[row]  # None: not usable
        if shingles is None or not len(shingles) or not len(index):
            continue
        lefts, rights = np.searchsorted(index, shingles, "left"), np.searchsorted(index, shingles, "right")
        hit = rights > lefts
        if not hit.any():
            continue
        lefts, rights = lefts[hit], rights[hit]
        spans = rights - lefts
        positions = np.repeat(lefts - np.cumsum(spans) + spans, spans) + np.arange(spans.sum())
        found_owners, found_leads = owners[positions], leads[positions]
        lead_hits = np.bincount(found_owners[found_leads], minlength=size)
        sketch_hits = np.bincount(found_owners[~found_leads], minlength=size)
        shown: dict[int, bool] = {}
        for other in np.flatnonzero((lead_hits > 0) | (sketch_hits > 0)).tolist():
            if other == row or canonical[other] == canonical[row] or other in translations.get(row, ()):
                continue
            whole = sketch_hits[other] >= SHOWN_SHARE * sketch_sizes[other]
            if whole or lead_hits[other] >= SHOWN_SHARE * lead_sizes[other]:
                shown[other] = bool(whole)
        if shown:
            shows[row] = shown
    del distinct

    # 3. Decisions.
    titles = column["title"].to_list()
    links = [list(value or []) for value in column["title_links"].to_list()]
    # The parse's declaration tokens: the part of page_kind_evidence before the site-wide pass's reasons.
    declared_tokens = [(value or "").split(";", 1)[0].split() for value in column["page_kind_evidence"].to_list()]
    declared_kinds = column["page_kind"].to_list()
    title_of_key = {keys[row]: _line_form(titles[row]) for row in range(size) if usable[row] and titles[row]}
    site_titles = _SiteTitles(title for row, title in enumerate(titles) if usable[row] and title)
    kinds: list[str | None] = []
    evidence: list[str | None] = []
    for row in range(size):
        tokens = declared_tokens[row]
        kind: str | None
        if usable[row]:
            kind, why = _decide(
                row, titles[row], int(word_counts[row]), shows, keys, links, contents, title_of_key, declared_tokens,
                shingler, site_titles,
            )
        else:
            kind = ERROR_PAGE if declared_kinds[row] == ERROR_PAGE or declared_kind(tokens) == ERROR_PAGE else None
            why = ""
        kinds.append(kind)
        evidence.append("; ".join(part for part in (" ".join(tokens), why) if part) or None)

    inlinks = Counter(key for row in range(size) if kinds[row] == LISTING for key in set(links[row]))
    return SitePageKinds(kinds, evidence, [inlinks.get(key, 0) for key in keys])


def _decide(
    row: int, title: str | None, words: int, shows: dict[int, dict[int, bool]], keys: list[str],
    links: list[list[str]], contents: pl.Series, title_of_key: dict[str, str], declared_tokens: list[list[str]],
    shingler: _Shingler, site_titles: _SiteTitles,
) -> tuple[str, str]:
    """The kind of the usable record ``row`` (its ``title`` and ``words``), and why."""
    tokens = declared_tokens[row]
    declared = declared_kind(tokens)
    if declared == ERROR_PAGE or error_title(title, words):
        return ERROR_PAGE, "an error page" if declared == ERROR_PAGE else "an error page's title"
    is_document = document_declared(tokens)
    shown = shows.get(row, {})
    strict = [other for other in shown if row not in shows.get(other, {})]
    mutual = [other for other in shown if row in shows.get(other, {})]
    linked = set(links[row])
    # A listing's text is other pages' texts; a document may quote a page or two, and keeps its own words.
    if len(strict) >= 2:
        if not is_document:
            return LISTING, f"shows {len(strict)} of the website's pages"
        coverage = _coverage(contents[row], [contents[other] for other in strict], shingler)
        if coverage >= DOCUMENT_COVERAGE:
            return LISTING, f"shows {len(strict)} of the website's pages ({coverage:.0%} of its words)"
        return DOCUMENT, f"declares one document; quotes {len(strict)} pages ({coverage:.0%} of its words)"
    # Lines that name other pages (titles, or a tag's name and count) with only labels shorter than a shingle
    # between them: an archive by date, a tag cloud, a section's table of contents, whatever the page declares
    # (some themes mark every page up as an article, archives too).
    listed, whole, own_words = site_titles.listed(contents[row], title, enough_own_words=MIN_PROBE_WORDS)
    if is_document:
        listed = whole  # a declared post names other pages by their whole titles to be a list of them
    if (listed >= 2 and own_words < MIN_PROBE_WORDS) or (listed == whole == 1 and own_words == 0):
        return LISTING, f"lists {listed} of the website's pages and has no text of its own"
    # The same read from the page's links, whatever the pages' titles (a month archive's is the website's name, a
    # tag's link carries its count): lines that are links to the website's pages, and nothing else.
    link_lines = next((int(t.split(":", 1)[1]) for t in tokens if t.startswith("link-list:")), 0)
    if link_lines:
        return LISTING, f"lists {link_lines} of the website's pages by their links and has no text of its own"
    if not is_document:
        # One other page's text, or the same text as another page: the page that links to the other from its
        # heading, declares itself a list or names no canonical address where the other names itself, is the list.
        for other in strict + mutual:
            reasons = []
            if keys[other] in linked and keys[row] not in links[other]:
                reasons.append("links to it from a heading")
            if declared == LISTING or "pagination" in tokens:
                reasons.append("declares a list")
            if "canonical:self" in declared_tokens[other] and "canonical:self" not in tokens:
                reasons.append("it names itself canonical")
            if other in strict and not reasons:
                coverage = _coverage(contents[row], [contents[other]], shingler)
                if coverage >= COPY_COVERAGE:
                    reasons.append(f"its text is {coverage:.0%} of this page's words")
            if reasons:
                what = "shows" if other in strict else "holds the same text as"
                return LISTING, f"{what} {keys[other]}: " + ", ".join(reasons)
        # Headings in the page's text linking to other pages, each titled as that page is: a list of documents,
        # however much each entry adds (a Pelican index page); a post's related-posts box stands outside its text.
        titled = _title_lines(contents[row], [title_of_key.get(key) for key in linked])
        lines = sum(1 for line in (contents[row] or "").split("\n") if line.strip())
        if titled >= MIN_TITLE_LIST or (titled and titled == lines):
            return LISTING, f"lists {titled} of the website's pages by title"
    if declared == LISTING:
        return LISTING, "declares a list"
    return DOCUMENT, ""


def _translations(alternates: pl.Series, keys: list[str]) -> dict[int, set[int]]:
    """Each record's translations: the records it names hreflang alternates, and those naming it one."""
    row_of = {key: row for row, key in enumerate(keys)}
    found: dict[int, set[int]] = defaultdict(set)
    if alternates.dtype == pl.Null:
        return found
    # Each page names the same few translations as its siblings do: each URL is made a key once.
    row_of_url: dict[str, int | None] = {}
    urls = alternates.list.eval(pl.element().struct.field("url"))
    for start in range(0, urls.len(), _ROWS_AT_ONCE):  # a website's alternates may be many: a slice at a time
        for row, entries in enumerate(urls.slice(start, _ROWS_AT_ONCE).to_list(), start=start):
            for url in entries or ():
                if url not in row_of_url:
                    row_of_url[url] = row_of.get(page_key(url or "") or "")
                other = row_of_url[url]
                if other is not None and other != row:
                    found[row].add(other)
                    found[other].add(row)
    return found


def _line_form(text: str | None) -> str:
    return " ".join(_WORD.findall((text or "").lower()))


def _title_lines(content: str | None, titles: Sequence[str | None]) -> int:
    """Lines of ``content`` that are one of ``titles`` (as words, case aside)."""
    wanted = {title for title in titles if title}
    if not wanted:
        return 0
    return sum(1 for line in (content or "").split("\n") if line.strip() and _line_form(line) in wanted)


class _SiteTitles:
    """The names the website's pages go by in other pages' lists: each title, and its leading or trailing half or
    more (a tag page titled "Tag: feature release" is listed as "feature release", a "Python Archives" page as
    "Python")."""

    def __init__(self, titles: Iterable[str]) -> None:
        self._names: dict[str, bool] = {}  # name -> whether it is a whole title
        self._longest = 0
        for title in titles:
            words = _line_form(title).split()
            self._longest = max(self._longest, len(words))
            least = max(1, (len(words) + 1) // 2)
            for size in range(least, len(words)):
                for part in (" ".join(words[:size]), " ".join(words[-size:])):
                    if any(word.isalpha() for word in part.split()):  # "1" of "Part 1" names nothing
                        self._names.setdefault(part, False)
            if words:
                self._names[" ".join(words)] = True

    def listed(self, content: str | None, own_name: str | None, enough_own_words: int) -> tuple[int, int, int]:
        """Lines of ``content`` that name another page of the website (its name, and around it labels shorter than a
        shingle: a date, a count), how many name one by a whole title, and the words of the other lines at least a
        shingle long (the page's own text). A line naming the page itself (``own_name``) lists nothing. The reading
        stops once the page's own words reach ``enough_own_words``."""
        own = _line_form(own_name)
        listed = whole = own_words = 0
        for line in (content or "").split("\n"):
            words = _line_form(line).split()
            if not words:
                continue
            named = self._named(words, own)
            if named is not None:
                listed += 1
                whole += named
            elif len(words) >= SHINGLE_WORDS:
                own_words += len(words)
                if own_words >= enough_own_words:
                    break
        return listed, whole, own_words

    def _named(self, words: list[str], own: str) -> bool | None:
        """Whether the line of ``words`` names another page by a whole title (True) or part of one (False), the
        rest of it shorter than a shingle; None when it names none. The longest name found counts."""
        count = len(words)
        if count > self._longest + SHINGLE_WORDS - 1:
            return None
        for size in range(count, max(1, count - SHINGLE_WORDS + 1) - 1, -1):
            for start in range(count - size + 1):
                name = " ".join(words[start : start + size])
                # A line naming the page itself (its headline, a caption) lists nothing.
                if name in self._names and f" {name} " not in f" {own} ":
                    return self._names[name]
        return None


def _coverage(text: str, others: Sequence[str], shingler: _Shingler) -> float:
    """Share of ``text``'s words that stand in a shingle of one of ``others``."""
    words = shingler.words(text or "")
    hashes = shingler.hashes(words)
    if not len(hashes):
        return 0.0
    known = np.unique(np.concatenate([shingler.hashes(shingler.words(other or "")) for other in others]))
    hit = np.isin(hashes, known)
    covered = np.zeros(len(words), dtype=bool)
    for j in range(SHINGLE_WORDS):
        covered[j : j + len(hit)] |= hit
    return float(covered.mean())


def write_with_page_kinds(writer: PartitionWriter, draft: str | Path, kinds: SitePageKinds) -> None:
    """The records of the Parquet file ``draft``, a row group at a time, with their kinds (``kinds``, in the file's
    order of rows), into ``writer``."""
    source = pq.ParquetFile(draft)
    start = 0
    for group in range(source.num_row_groups):
        table = source.read_row_group(group)
        end = start + table.num_rows
        # Built by polars, not pa.array: pyarrow's conversion of Python objects imports pandas (core.arrow_values).
        for name, kind in (("page_kind", pl.String), ("page_kind_evidence", pl.String), ("title_inlinks", pl.Int32)):
            values = getattr(kinds, name)[start:end]
            column = pl.Series(name, values, dtype=kind).to_arrow().cast(table.schema.field(name).type)
            table = table.set_column(table.schema.get_field_index(name), name, column)
        writer.write_table(table)
        start = end
