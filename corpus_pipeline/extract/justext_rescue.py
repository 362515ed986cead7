"""trafilatura's justext fallback (``trafilatura.external.justext_rescue``, and the comparison that calls it,
``compare_extraction``) over a compact stoplist.

Without a page language, trafilatura hands justext the union of justext's 100 stoplists (154,484 words) as a tuple,
and justext's ``classify_paragraphs`` makes a frozen set of it again (``define_stoplist``): ~33 MiB in each parsing
worker that meets one page needing the fallback (about 1 % of the Debian handbook's pages, so every worker meets
one). Here the same words are held as their UTF-8 bytes, one sorted run of fixed-width records per byte length
(~1.9 MiB), and the rest is justext's and trafilatura's own steps: ``basic_cleaning``, justext's ``ParagraphMaker``
and ``revise_paragraph_classification``, and a context-free classification that applies justext's rules with the
thresholds trafilatura passes. The text is the one trafilatura's ``justext_rescue`` returns, page for page.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pkgutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from justext.core import ParagraphMaker, revise_paragraph_classification  # type: ignore[import-untyped]
from justext.utils import get_stoplist, get_stoplists  # type: ignore[import-untyped]
from lxml.etree import Element, SubElement, _Element, tostring
from lxml.html import HtmlElement
from trafilatura.baseline import basic_cleaning
from trafilatura.external import (
    JUSTEXT_OVERRIDE_RATIO,
    SANITIZED_XPATH,
    _prefer_readability,
    sanitize_tree,
    try_readability,
)
from trafilatura.htmlprocessing import prune_unwanted_nodes
from trafilatura.settings import JUSTEXT_LANGUAGES, Extractor
from trafilatura.utils import trim
from trafilatura.xpaths import OVERALL_DISCARD_XPATH

from corpus_pipeline.extract.language_model import default_cache_dir

LOGGER = logging.getLogger(__name__)

# The arguments trafilatura's ``try_justext`` passes to justext (``classify_paragraphs`` and
# ``revise_paragraph_classification``).
LENGTH_LOW = 50
LENGTH_HIGH = 150
STOPWORDS_LOW = 0.1
STOPWORDS_HIGH = 0.2
MAX_LINK_DENSITY = 0.25
MAX_HEADING_DISTANCE = 150
_STOPLIST_FORMAT = 1  # bump when the cached file's layout (CompactStoplist.to_bytes) or the words' reading changes


class CompactStoplist:
    """An exact set of words held as UTF-8 bytes: for each byte length, one ``bytes`` of the sorted words of that
    length end to end (no Python object per word), searched by bisection. ``word in stoplist`` is an exact
    membership test, ~3 us a word (justext runs on ~1 % of pages)."""

    def __init__(self, words: Iterable[str]) -> None:
        by_length: dict[int, set[bytes]] = {}
        for word in words:
            key = _key(word)
            by_length.setdefault(len(key), set()).add(key)
        self._has_empty = bool(by_length.pop(0, None))
        self._runs = {width: b"".join(sorted(keys)) for width, keys in by_length.items()}

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        key = _key(word)
        width = len(key)
        if not width:
            return self._has_empty
        run = self._runs.get(width)
        if run is None:
            return False
        low, high = 0, len(run) // width
        while low < high:
            middle = (low + high) // 2
            probe = run[middle * width : (middle + 1) * width]
            if probe < key:
                low = middle + 1
            elif probe > key:
                high = middle
            else:
                return True
        return False

    def __len__(self) -> int:
        return self._has_empty + sum(len(run) // width for width, run in self._runs.items())

    @property
    def nbytes(self) -> int:
        """The bytes the words take."""
        return sum(len(run) for run in self._runs.values())

    def to_bytes(self) -> bytes:
        """The stoplist as one file's bytes: a JSON line of the runs' widths and sizes, their SHA-256, the runs."""
        widths = sorted(self._runs)
        payload = b"".join(self._runs[width] for width in widths)
        header = {"empty": self._has_empty, "runs": [[width, len(self._runs[width])] for width in widths]}
        return b"\n".join((json.dumps(header).encode(), hashlib.sha256(payload).hexdigest().encode(), payload))

    @classmethod
    def from_bytes(cls, data: bytes) -> CompactStoplist:
        """The stoplist :meth:`to_bytes` wrote; ValueError when the bytes are not such a file, whole."""
        header_line, checksum, payload = data.split(b"\n", 2)
        if hashlib.sha256(payload).hexdigest().encode() != checksum:
            raise ValueError("damaged stoplist")
        header = json.loads(header_line)
        stoplist = cls(())
        stoplist._has_empty = header["empty"] is True
        offset = 0
        for width, size in header["runs"]:
            if width <= 0 or size % width:
                raise ValueError("damaged stoplist")
            stoplist._runs[width] = payload[offset : offset + size]
            offset += size
        if offset != len(payload):
            raise ValueError("damaged stoplist")
        return stoplist


def _key(word: str) -> bytes:
    # surrogatepass: a lone surrogate encodes to bytes no valid UTF-8 word has, so it is simply not found
    return word.encode("utf-8", "surrogatepass")


@lru_cache(maxsize=1)
def all_languages_stoplist() -> CompactStoplist:
    """The union of justext's stoplists (trafilatura's ``JT_STOPLIST``), lower-cased again as justext's
    ``define_stoplist`` does; read once per process, when a page first needs it, from the cache folder
    (:func:`cached_stoplist`)."""
    sources = [
        pkgutil.get_data("justext", os.path.join("stoplists", f"{language}.txt")) or b""  # get_stoplist's file
        for language in sorted(get_stoplists())
    ]
    return cached_stoplist(sources, default_cache_dir())


def stoplist_words(sources: Iterable[bytes]) -> Iterator[str]:
    """The words of justext's stoplist files (``sources``: their bytes) as ``get_stoplist`` reads them (one a line,
    lower-cased), lower-cased again as ``define_stoplist`` does."""
    for source in sources:
        for line in source.splitlines():
            yield line.decode("utf8").lower().lower()


def cached_stoplist(sources: list[bytes], cache_dir: Path) -> CompactStoplist:
    """The :class:`CompactStoplist` of the words of ``sources`` (justext's stoplist files), read from ``cache_dir``
    when a process built it before, else built and written there (atomically).

    Building it from justext's 100 files takes ~0.3-0.7 CPU s in each parsing worker that meets a page needing justext
    (both workers on the Debian handbook); reading the file takes milliseconds. The file is named after the files'
    SHA-256 (another justext release gets its own); a file that cannot be read whole or written is built again.
    """
    digest = hashlib.sha256()
    for source in sources:
        digest.update(len(source).to_bytes(8, "little"))
        digest.update(source)
    path = cache_dir / f"justext-stoplist-{digest.hexdigest()[:16]}-v{_STOPLIST_FORMAT}.bin"
    try:
        return CompactStoplist.from_bytes(path.read_bytes())
    except (OSError, ValueError):  # not built yet, or damaged: build it again
        pass
    stoplist = CompactStoplist(stoplist_words(sources))
    try:
        _write_atomically(path, stoplist.to_bytes())
    except OSError:  # a cache that cannot be written: the stoplist still serves this process
        pass
    return stoplist


def _write_atomically(path: Path, data: bytes) -> None:
    """``data`` written to ``path`` through a staging file in its folder, so that a reader sees it whole or not."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}-", delete=False) as staging:
        try:
            staging.write(data)
        except OSError:
            os.unlink(staging.name)
            raise
    try:
        os.replace(staging.name, path)
    except OSError:
        os.unlink(staging.name)
        raise


@lru_cache(maxsize=8)
def language_stoplist(language: str) -> CompactStoplist:
    """One justext language's stoplist (the one trafilatura uses when ``options.lang`` names a language it maps)."""
    return CompactStoplist(word.lower() for word in get_stoplist(language))


def justext_rescue(tree: HtmlElement, options: Extractor) -> tuple[_Element, str]:
    """``trafilatura.external.justext_rescue(tree, options)``: the same body and text; edits ``tree`` as it does
    (``basic_cleaning``)."""
    body = justext_body(basic_cleaning(tree), options.lang)
    return body, trim(" ".join(body.itertext()))


def compare_extraction(
    cleaned_tree: HtmlElement | Callable[[], HtmlElement],
    raw_tree: HtmlElement,
    body: _Element,
    text: str,
    options: Extractor,
) -> tuple[_Element, str]:
    """``trafilatura.external.compare_extraction``: the main pass's ``body`` and ``text`` against readability's
    reading of ``raw_tree`` and, when the result is short or holds page furniture, justext's of ``cleaned_tree``
    (through :func:`justext_rescue`); the same steps, on the same inputs, with trafilatura's own helpers.
    ``cleaned_tree`` may be a function that gives the tree, called only when justext reads it."""
    length = len(text)
    if options.focus == "recall" and length > options.min_extracted_size * 10:
        return body, text
    if options.focus == "precision":
        raw_tree = prune_unwanted_nodes(raw_tree, OVERALL_DISCARD_XPATH)
    readability_body = try_readability(raw_tree)
    readability_text = trim(tostring(readability_body, method="text", encoding="utf-8").decode("utf-8"))
    readability_length = len(readability_text)
    use_readability = _prefer_readability(body, readability_body, readability_text, length, readability_length, options)
    if use_readability:
        body, text, length = readability_body, readability_text, readability_length
    unclean = bool(body.xpath(SANITIZED_XPATH))
    if unclean or length < options.min_extracted_size:
        justext_tree, justext_text = justext_rescue(
            cleaned_tree() if callable(cleaned_tree) else cleaned_tree, options
        )
        justext_length = len(justext_text)
        if unclean:  # justext may be shorter (furniture dropped), within a ratio, and keep a page's images
            accept = length <= JUSTEXT_OVERRIDE_RATIO * justext_length and (
                justext_length > length or not options.images or body.find(".//graphic") is None
            )
        else:
            accept = length < justext_length
        if justext_text and accept:
            body, text = justext_tree, justext_text
            use_readability = False
    if use_readability:
        body, text = sanitize_tree(body, options)
    return body, text


def justext_body(tree: HtmlElement, target_language: str | None) -> _Element:
    """``trafilatura.external.try_justext``: a ``<body>`` of one ``<p>`` per paragraph justext keeps; empty if
    justext fails, as trafilatura's is."""
    if target_language in JUSTEXT_LANGUAGES:
        stoplist = language_stoplist(JUSTEXT_LANGUAGES[target_language])
    else:
        stoplist = all_languages_stoplist()
    body = Element("body")
    try:
        paragraphs = ParagraphMaker.make_paragraphs(tree)
        classify_paragraphs(paragraphs, stoplist)
        revise_paragraph_classification(paragraphs, MAX_HEADING_DISTANCE)
    except Exception as error:  # noqa: BLE001 -- trafilatura logs any failure of justext and returns an empty body
        LOGGER.warning("justext failed: %s", error)
        return body
    for paragraph in paragraphs:
        if not paragraph.is_boilerplate:
            SubElement(body, "p").text = paragraph.text
    return body


def classify_paragraphs(paragraphs: list[Any], stoplist: CompactStoplist) -> None:
    """justext's context-free classification with trafilatura's thresholds and ``no_headings``: sets each
    paragraph's ``cf_class`` (short, neargood, good, bad) and ``heading`` (always False)."""
    for paragraph in paragraphs:
        text = paragraph.text  # a property that joins and normalizes the text nodes: read once
        paragraph.heading = False
        paragraph.cf_class = _context_free_class(
            text, paragraph.dom_path, paragraph.chars_count_in_links, _stopword_density(text, stoplist)
        )


def _stopword_density(text: str, stoplist: CompactStoplist) -> float:
    words = text.split()
    if not words:
        return 0
    return sum(word.lower() in stoplist for word in words) / len(words)


def _context_free_class(text: str, dom_path: str, chars_in_links: int, stopword_density: float) -> str:
    length = len(text)
    link_density = chars_in_links / length if length else 0
    if link_density > MAX_LINK_DENSITY or "\xa9" in text or "&copy" in text or "select" in dom_path:
        return "bad"
    if length < LENGTH_LOW:
        return "bad" if chars_in_links > 0 else "short"
    if stopword_density >= STOPWORDS_HIGH:
        return "good" if length > LENGTH_HIGH else "neargood"
    return "neargood" if stopword_density >= STOPWORDS_LOW else "bad"
