"""One PDF to records: text layer, OCR where the layer is missing, one record per outline section."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from io import BytesIO
from itertools import pairwise
from urllib.parse import unquote, urlsplit

from pypdf import PdfReader
from pypdf.errors import PdfReadError, PyPdfError

from corpus_pipeline.core.dates import to_utc
from corpus_pipeline.core.urls import InvalidUrlError, canonical_url
from corpus_pipeline.extract.markdown import text_as_markdown
from corpus_pipeline.extract.metadata import detect_lang, normalize_lang
from corpus_pipeline.extract.text import normalize_whitespace
from corpus_pipeline.pdf.ocr import OcrError, ocr_pdf_pages
from corpus_pipeline.pdf.settings import PdfSettings

_HYPHENATED_LINE_END = re.compile(r"(\w)[-\u00ad]\n(\w)")
_PDF_MAGIC = b"%PDF-"


class PdfError(Exception):
    """A document that cannot be read, with the reason."""


@dataclass(frozen=True)
class Section:
    """A run of pages of a PDF: 0-based ``[start, end)`` and its title path."""

    title: str | None
    start: int
    end: int


def read_pdf(
    data: bytes,
    *,
    url: str,
    website: str,
    fetched_at: datetime,
    category: str | None,
    default_lang: str,
    settings: PdfSettings,
    date_hint: datetime | None = None,
    log: Callable[[str], None] | None = None,
) -> list[dict]:
    """Records (RECORD_SCHEMA keys) of one PDF: one per outline section as ``url#page=N``, or one for the whole file.
    When the OCR budget (``settings.ocr_budget_s``) runs out, sections keep what was read, and those with scanned
    pages left unread say so in ``error``. The OCR's progress goes to ``log``."""
    reader = _open(data, settings)
    page_count = len(reader.pages)
    texts = [_page_text(reader, index) for index in range(page_count)]
    scanned = [
        index for index, text in enumerate(texts)
        if settings.ocr == 2 or (settings.ocr == 1 and len(text.strip()) < settings.min_text_chars)
    ]
    try:
        ocr_texts = ocr_pdf_pages(data, scanned, settings, log)
    except (OcrError, OSError, RuntimeError) as exc:
        raise PdfError(f"OCR failed: {exc}") from exc
    unread = sorted(set(scanned) - set(ocr_texts))
    # Only an unread page whose text layer is thin loses text (with ocr=2, OCR is also asked of good layers).
    lacking = [index for index in unread if len(texts[index].strip()) < settings.min_text_chars]
    unread_note = (
        f"OCR budget exceeded: {settings.ocr_budget_s:g} s; {len(scanned) - len(unread)} of {len(scanned)} scanned "
        f"pages read, {len(unread)} left unread from page {unread[0] + 1}"
    ) if lacking else None
    ocr_used: set[int] = set()
    for index, text in ocr_texts.items():
        if len(text.strip()) > len(texts[index].strip()):  # OCR only replaces a thinner text layer
            texts[index] = text
            ocr_used.add(index)

    title = _document_title(reader, texts, url)
    date = _document_date(reader) or (to_utc(date_hint) if date_hint else None)
    published = _document_date(reader, fields=("creation_date",))
    excerpt = _metadata_text(reader, "subject")
    records = []
    sections = outline_sections(reader, page_count)
    for section in sections:
        content = repair_text("\n\n".join(texts[section.start : section.end]))
        section_url = url if len(sections) == 1 else f"{url.split('#', 1)[0]}#page={section.start + 1}"
        lang, _ = detect_lang(content)
        error = unread_note if any(section.start <= page < section.end for page in lacking) else None
        records.append({
            "website": website,
            "url": section_url,
            "canonical_url": _canonical(section_url),
            "title": f"{title} | {section.title}" if section.title and section.title != title else title,
            "date": date,
            "published": published,
            "excerpt": excerpt if section.start == 0 else None,
            "content": content,
            # Page by page as the content, under the outline entry that starts the section.
            "markdown": text_as_markdown(content, section.title) if content else "",
            "h1": [title] if title else [],
            "h2": [section.title] if section.title else [],
            "lang": (lang if lang and len(content) >= 50 else None) or normalize_lang(default_lang) or "en",
            "category": category,
            "kind": "pdf_ocr" if ocr_used & set(range(section.start, section.end)) else "pdf",
            "fetched_at": fetched_at,
            "alternates": [],
            "rel_canonical": None,
            "error": error or (None if content else "no text in the text layer nor by OCR"),
        })
    return records


def outline_sections(reader: PdfReader, page_count: int) -> list[Section]:
    """Disjoint page ranges from the outline, covering every page; entries starting on one page share a section."""
    starts: dict[int, list[str]] = {}
    try:
        for title, page in _flatten_outline(reader, reader.outline, ()):
            if 0 <= page < page_count:
                starts.setdefault(page, []).append(title)
    except (PyPdfError, KeyError, TypeError, ValueError, AttributeError):
        starts = {}
    if not starts:
        return [Section(None, 0, page_count)]
    ordered = sorted(starts)
    before = [Section(None, 0, ordered[0])] if ordered[0] > 0 else []  # text before the first entry
    return before + [Section(" / ".join(starts[start]), start, end) for start, end in pairwise([*ordered, page_count])]


def _flatten_outline(reader: PdfReader, outline, parents: tuple[str, ...]):
    """(title path, 0-based page) of every outline entry, a nested list under the entry just before it."""
    title = ""
    for item in outline or []:
        if isinstance(item, list):
            yield from _flatten_outline(reader, item, parents + ((title,) if title else ()))
            title = ""
            continue
        page = reader.get_destination_page_number(item)
        title = " ".join(str(item.title or "").split())
        if page is not None and title:
            yield " | ".join(parents + (title,)), page


def repair_text(text: str) -> str:
    """Join words hyphenated at line ends, then normalize whitespace."""
    return normalize_whitespace(_HYPHENATED_LINE_END.sub(r"\1\2", text))


def _open(data: bytes, settings: PdfSettings) -> PdfReader:
    if len(data) > settings.max_bytes:
        raise PdfError(f"PDF larger than the {settings.max_bytes} byte cap ({len(data)} bytes)")
    if _PDF_MAGIC not in data[:1024]:
        start = data[:40].decode("latin-1", "replace").strip()
        raise PdfError(f"not a PDF (starts with {start!r})")
    try:
        reader = PdfReader(BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise PdfError("encrypted PDF (a password is required)")
        page_count = len(reader.pages)
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise PdfError(f"corrupt or truncated PDF: {type(exc).__name__}: {exc}") from exc
    except NotImplementedError as exc:
        raise PdfError(f"unsupported PDF feature: {exc}") from exc
    if page_count == 0:
        raise PdfError("PDF has no pages")
    if page_count > settings.max_pages:
        raise PdfError(f"PDF has {page_count} pages, over the {settings.max_pages} page cap")
    return reader


def _page_text(reader: PdfReader, index: int) -> str:
    try:
        return reader.pages[index].extract_text() or ""
    except Exception:  # noqa: BLE001 - a broken content stream loses that page's text layer, OCR may still read it
        return ""


def _metadata(reader: PdfReader, field: str) -> object:
    """A field of the document's information dictionary; None when it is missing or unreadable."""
    try:
        return getattr(reader.metadata, field, None) if reader.metadata else None
    except (PyPdfError, ValueError, TypeError, KeyError):
        return None


def _metadata_text(reader: PdfReader, field: str) -> str | None:
    return " ".join(str(_metadata(reader, field) or "").split()) or None


def _document_title(reader: PdfReader, texts: list[str], url: str) -> str:
    title = _metadata_text(reader, "title")
    if title:
        return title
    for text in texts:
        for line in text.splitlines():
            if len(line.strip()) >= 3:
                return line.strip()[:200]
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1]) or url


def _document_date(
    reader: PdfReader, fields: tuple[str, ...] = ("modification_date", "creation_date")
) -> datetime | None:
    dates = (_metadata(reader, field) for field in fields)
    return next((to_utc(date) for date in dates if isinstance(date, datetime)), None)


def _canonical(url: str) -> str:
    try:
        return canonical_url(url)
    except InvalidUrlError:
        return url
