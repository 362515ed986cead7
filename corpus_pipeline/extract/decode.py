"""Bytes to text for HTML: header charset, then the XML declaration's, then <meta charset>, then detection.

XHTML pages (DocBook and Debian's documentation among them) open with ``<?xml ... encoding="..."?>``; once the
bytes are text that declaration is a lie lxml refuses to parse ("Unicode strings with encoding declaration are not
supported"), so it is removed from the decoded text.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

from corpus_pipeline.extract.settings import DEFAULT_SETTINGS, ExtractionSettings

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)""", re.IGNORECASE)
_HEADER_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_:.-]+)", re.IGNORECASE)
_XML_DECLARATION = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9_:.-]+)["'][^>]*\?>""")
_LEADING_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def decode_html(body: bytes, content_type: str | None = None, settings: ExtractionSettings = DEFAULT_SETTINGS) -> str:
    """Decode an HTML body, without any XML declaration; never raises (undecodable bytes become U+FFFD)."""
    return _LEADING_XML_DECLARATION.sub("", _decode(body, content_type, settings), count=1)


def _decode(body: bytes, content_type: str | None, settings: ExtractionSettings) -> str:
    if body.startswith(codecs.BOM_UTF8):
        return body[len(codecs.BOM_UTF8):].decode("utf-8", "replace")
    header = _HEADER_CHARSET.search(content_type or "")
    for declaration in (header, _XML_DECLARATION.match(body[:512]), _META_CHARSET.search(body[:4096])):
        if declaration is not None:
            name = declaration.group(1)
            try:  # a name no codec has, or not this page's
                return body.decode(name if isinstance(name, str) else name.decode("ascii"))
            except (LookupError, UnicodeDecodeError):
                continue
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode(_guess_encoding(body, settings), "replace")


def _guess_encoding(body: bytes, settings: ExtractionSettings) -> str:
    """Detection, with the web's own default (windows-1252) preferred among near-equal candidates."""
    matches = list(from_bytes(body[: settings.charset_sample_bytes]))
    if not matches:
        return "cp1252"
    best = min(match.chaos for match in matches)
    if any(m.encoding == "cp1252" and m.chaos <= best + settings.windows_1252_tolerance for m in matches):
        return "cp1252"
    return matches[0].encoding
