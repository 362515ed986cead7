"""Our justext fallback returns trafilatura's text and body, page for page, from a stoplist a tenth of the size."""

from copy import deepcopy
from pathlib import Path

import justext
import pytest
import trafilatura.external
from justext.utils import get_stoplist, get_stoplists
from lxml import etree, html
from trafilatura.htmlprocessing import tree_cleaning
from trafilatura.settings import Extractor

from corpus_pipeline.extract.html_tree import parse_html
from corpus_pipeline.extract.justext_rescue import (
    CompactStoplist,
    all_languages_stoplist,
    cached_stoplist,
    compare_extraction,
    justext_rescue,
)
from corpus_pipeline_tests.support.demo_documents import demo_and_given_documents

URL = "http://127.0.0.1:8000/page.html"
LONG = (
    "The committee meets on the first Monday of every month in the hall behind the library, and every member may "
    "bring a question about the plots, the water or the shared tools to the open hour before it."
)
GERMAN = (
    "Der Verein trifft sich am ersten Montag jedes Monats in der Halle hinter der Bibliothek, und jedes Mitglied "
    "kann eine Frage zu den Beeten, dem Wasser oder den Geräten mitbringen."
)
LINKS = "".join(f"<a href='/p{i}'>Entry {i} of the menu</a> " for i in range(8))
# Paragraphs of every class justext's context-free step gives (good, near-good, short, bad by links, by the
# copyright sign, by a select, by few stopwords) and the neighbours its context step reads, in two languages.
PAGES = {
    "classes": "<html><body>"
    f"<h1>Tanks</h1><p>{LONG}</p><p>{LONG[:120]}</p><p>Short line.</p><p>{LONG}</p><div>{LINKS}</div>"
    "<p>Zygote xylophone quartz vortex kiwi jazz fjord nymph glyph crwth cwm phlox sphinx lynx myrrh psych.</p>"
    "<p>© 2024 the committee of the allotment gardens at the end of the road by the river.</p>"
    "<form><select><option>An option long enough to be more than fifty characters in all</option></select></form>"
    f"<h2>Water</h2><p>It is on.</p><p>{LONG[:120]}</p><footer>Copyright &copy; the committee</footer>"
    "</body></html>",
    "german": f"<html lang='de'><body><h1>Tanks</h1><p>{GERMAN}</p><p>Kurz.</p><p>{GERMAN}</p>"
    f"<ul><li>{LINKS}</li></ul></body></html>",
    "line breaks": f"<html><body><div>{LONG}<br><br>{LONG}<br>tail <b>bold</b> text</div></body></html>",
    "empty": "<html><body></body></html>",
}


def _documents(tmp_path: Path) -> dict[str, html.HtmlElement]:
    return demo_and_given_documents(tmp_path, PAGES)


@pytest.mark.parametrize("lang", [None, "de", "en", "xx"])
def test_same_text_body_and_tree_as_trafilaturas(tmp_path: Path, lang: str | None) -> None:
    options = Extractor(output_format="txt", fast=False, tables=True, url=URL, lang=lang)
    kept = 0
    for name, document in _documents(tmp_path).items():
        theirs_tree, ours_tree = deepcopy(document), deepcopy(document)
        theirs_body, theirs_text = trafilatura.external.justext_rescue(theirs_tree, options)
        ours_body, ours_text = justext_rescue(ours_tree, options)
        assert ours_text == theirs_text, name
        assert etree.tostring(ours_body) == etree.tostring(theirs_body), name
        assert etree.tostring(ours_tree) == etree.tostring(theirs_tree), name  # basic_cleaning's edits, the same
        kept += bool(ours_text)
    assert kept >= 3  # the comparison is not between empty results


@pytest.mark.parametrize("focus", ["balanced", "precision", "recall"])
def test_comparison_is_trafilaturas(tmp_path: Path, focus: str) -> None:
    options = Extractor(
        output_format="txt", fast=False, tables=True, url=URL, precision=focus == "precision", recall=focus == "recall"
    )
    changed = 0
    for name, document in _documents(tmp_path).items():
        cleaned = tree_cleaning(deepcopy(document), options)
        # the main pass's result: nothing, or a single short paragraph (both send the page to readability and justext)
        for text in ("", "A short note."):
            body = etree.Element("body")
            etree.SubElement(body, "p").text = text
            theirs = trafilatura.external.compare_extraction(
                deepcopy(cleaned), deepcopy(document), deepcopy(body), text, options
            )
            ours = compare_extraction(deepcopy(cleaned), deepcopy(document), deepcopy(body), text, options)
            assert ours[1] == theirs[1], (name, text)
            assert etree.tostring(ours[0]) == etree.tostring(theirs[0]), (name, text)
            changed += ours[1] != text
    assert changed >= 3  # readability or justext replaced the main pass's text on some pages


def test_classes_page_keeps_text_and_drops_boilerplate() -> None:
    body, text = justext_rescue(parse_html(PAGES["classes"]), Extractor(output_format="txt", fast=False, url=URL))
    assert LONG in text
    assert "Entry 3 of the menu" not in text  # link density
    assert "©" not in text and "An option long enough" not in text
    assert len(body) >= 2


def test_compact_stoplist_is_exact() -> None:
    words = ["the", "über", "東京", "a", "ab", "abc", "zz", "", "naïve", "x" * 40]
    stoplist = CompactStoplist(words)
    assert len(stoplist) == len(set(words))
    assert all(word in stoplist for word in words)
    absent = ["th", "thee", "The", "ube", "東", "ab\x00", "abd", "abb", "\ud800", "x" * 39, "y" * 40, "zzz"]
    assert not any(word in stoplist for word in absent)
    assert b"abc" not in stoplist  # only strings are words


def test_all_languages_stoplist_is_justexts_union_and_small() -> None:
    union = {word.lower() for language in get_stoplists() for word in get_stoplist(language)}
    stoplist = all_languages_stoplist()
    assert len(stoplist) == len(union) > 150_000
    assert all(word in stoplist for word in union)
    assert stoplist.nbytes < 3 * 2**20  # trafilatura's tuple alone takes ~14 MiB, justext's frozen set ~19 more


def _justext_sources() -> list[bytes]:
    folder = Path(justext.__file__).parent / "stoplists"
    return [path.read_bytes() for path in sorted(folder.glob("*.txt"))]


def _runs(stoplist: CompactStoplist) -> tuple[bool, dict[int, bytes]]:
    return stoplist._has_empty, stoplist._runs


def test_cached_stoplist_is_built_once_then_read(tmp_path: Path) -> None:
    sources = _justext_sources()
    union = {word.lower() for language in get_stoplists() for word in get_stoplist(language)}
    built = cached_stoplist(sources, tmp_path / "cache")
    assert len(built) == len(union) and all(word in built for word in union)
    [written] = (tmp_path / "cache").iterdir()
    assert written.name.startswith("justext-stoplist-")
    before = written.stat().st_mtime_ns
    read = cached_stoplist(sources, tmp_path / "cache")
    assert _runs(read) == _runs(built)
    assert written.stat().st_mtime_ns == before  # read, not written again
    assert _runs(cached_stoplist(sources, tmp_path / "cache")) == _runs(all_languages_stoplist())


@pytest.mark.parametrize("damage", ["truncated", "flipped", "not a stoplist"])
def test_damaged_cached_stoplist_is_built_again(tmp_path: Path, damage: str) -> None:
    sources = [b"The\nand\n\xce\xa3\xce\x9f\xce\xa3\n\nQuick", b"der\r\nDIE\r\n"]
    built = cached_stoplist(sources, tmp_path)
    assert {word for word in ["the", "and", "σος", "", "quick", "der", "die"] if word in built} == {
        "the", "and", "σος", "", "quick", "der", "die"
    }  # lower-cased as justext does (a final sigma stays final), the empty line included
    [written] = tmp_path.iterdir()
    data = written.read_bytes()
    damaged = {"truncated": data[:-1], "flipped": data[:-1] + bytes([data[-1] ^ 1]), "not a stoplist": b"{}"}
    written.write_bytes(damaged[damage])
    assert _runs(cached_stoplist(sources, tmp_path)) == _runs(built)
    assert written.read_bytes() == data  # written again whole


def test_stoplist_without_a_writable_cache(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    sources = [b"one\ntwo"]
    stoplist = cached_stoplist(sources, blocker / "cache")
    assert "one" in stoplist and "two" in stoplist and "three" not in stoplist
