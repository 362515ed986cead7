"""Links of an HTML page, as the crawler needs them: hrefs, hreflang alternates and the page's robots meta tags."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from lxml import etree

from corpus_pipeline.core.urls import absolutize

# A relative path of plain characters (no scheme, query, fragment or parameters; no empty, "." or ".." segment):
# urljoin puts it after the base's folder unchanged.
_PLAIN_SEGMENT = r"(?!\.\.?(?:/|$))[A-Za-z0-9._~!$&'()*+,=@%-]+"
_PLAIN_RELATIVE = re.compile(rf"{_PLAIN_SEGMENT}(?:/{_PLAIN_SEGMENT})*/?")
# The same after a "/" (or "/" alone): urljoin puts it after the base's scheme and host unchanged.
_PLAIN_ROOTED = re.compile(rf"/(?:{_PLAIN_RELATIVE.pattern})?")
# A base whose folder such a path joins by concatenation: a lower-case http(s) scheme, a plain host, a path of plain
# segments (none empty, ".", or ".."), no parameters, query or fragment.
_PLAIN_BASE = re.compile(rf"https?://[A-Za-z0-9.:-]+(?:/{_PLAIN_SEGMENT})*/(?:{_PLAIN_SEGMENT})?")
# rel values by which a page says it does not vouch for a link (Google's link attributes): not followed by default.
UNFOLLOWED_RELS = frozenset({"nofollow", "ugc", "sponsored"})
# Encodings in which a "<" and the letters of a tag name after it are read from their ASCII bytes and from nothing else
# (what _read_head's count of tags in the bytes relies on). A page declaring another one is read whole.
_ASCII_TAGS_ENCODING = re.compile(
    r"\s*(?:utf-?8|(?:us-)?ascii|iso[-_]?8859-\d{1,2}|latin-?1|windows-125\d|cp125\d|shift[-_]jis|euc-jp|euc-kr|gb2312"
    r"|gbk|gb18030|big5|koi8-[ru])\s*", re.IGNORECASE)
_XML_DECLARATION = re.compile(rb"[\xef\xbb\xbf \t\r\n]*<\?xml", re.IGNORECASE)
_CHARSET = re.compile(r"charset\s*=\s*[\"']?([^\s;\"']*)", re.IGNORECASE)


@dataclass(frozen=True)
class PageLinks:
    """Absolute links of a page in document order (each once), and its translations by language."""

    links: tuple[str, ...] = ()
    alternates: dict[str, str] = field(default_factory=dict)
    robots_meta: tuple[str, ...] = ()  # content of the <meta> tags named in robots_names, in document order


def extract_links(body: bytes, page_url: str, alternates: bool = True, robots_names: frozenset[str] = frozenset(),
                  follow_nofollow: bool = False, links: bool = True) -> PageLinks:
    """All ``<a href>`` targets and ``<link rel=alternate hreflang>`` of a page; broken HTML gives what can be read.

    ``alternates=False`` leaves the ``<link>`` elements unread, ``links=False`` the ``<a>`` and ``<area>`` ones (then
    ``links`` is empty). Links marked ``rel=nofollow``, ``ugc`` or ``sponsored`` are left out unless
    ``follow_nofollow``. ``robots_meta`` keeps the ``content`` of ``<meta>`` tags named (any case) in ``robots_names``.
    """
    if not body or not body.strip():
        return PageLinks()
    # No tree: the parser hands the elements' attributes to _LinkTags as it reads (a page of 20,000 links).
    tags = frozenset((("a", "area") if links else ()) + (("link",) if alternates else ())
                     + (("meta",) if robots_names else ()))
    if not tags:
        return PageLinks()
    head = None if links else _read_head(body, tags)
    if head is not None:
        elements, base_href = head
    else:
        found = _LinkTags(tags)
        try:
            parser = etree.HTMLParser(recover=True, huge_tree=False, target=found)
            parser.feed(body)
            parser.close()
        except (etree.ParserError, etree.XMLSyntaxError, ValueError):
            return PageLinks()
        finally:
            # The parser and its target hold each other until a collection.
            elements, found.elements, base_href = found.elements, [], found.base
    base = page_url
    if base_href is not None:
        base = absolutize(base_href, page_url) or page_url
    folder = base[: base.rfind("/") + 1] if _PLAIN_BASE.fullmatch(base) else None
    found_links: dict[str, None] = {}
    hrefs_seen: set[str] = set()
    translations: dict[str, str] = {}
    robots_meta: list[str] = []
    for tag, href, rels, extra in elements:
        if tag == "meta":  # (meta, name, content, None)
            if rels and (href or "").strip().lower() in robots_names:
                robots_meta.append(rels)
            continue
        if not href:
            continue
        if tag == "link":
            rel = (rels or "").lower().split()
            lang = (extra or "").strip().lower()
            target = absolutize(href, base)
            if "alternate" in rel and lang and target and lang not in translations:
                translations[lang] = target
            continue
        if rels and not follow_nofollow and UNFOLLOWED_RELS.intersection(rels.lower().split()):
            continue
        # Fragments never name another document: drop them before the (costly) join, and join each spelling once.
        href = href.split("#", 1)[0].strip()
        if not href or href in hrefs_seen:
            continue
        hrefs_seen.add(href)
        target = join_link(href, base, folder)
        if target:
            found_links.setdefault(target)
    return PageLinks(tuple(found_links), translations, tuple(robots_meta))


def _read_head(body: bytes, tags: frozenset[str]) -> tuple[list[tuple[str, str | None, str | None, str | None]],
                                                      str | None] | None:
    """The elements of ``tags`` (no ``<a>``) and the ``<base href>`` of a page, read from its start to its last spelling
    of one of those tags when that gives all of them (else None: the page is to be read whole).

    Robots meta tags and translations are in a page's head, a few kilobytes of a 200 KB page. Each element starts with
    ``<tag`` in the bytes (any case; an encoding of ASCII tags, no NUL), so once the parser has met as many of each tag
    as the bytes spell, the rest holds none. The parser is fed up to the ``>`` after the last spelling and not closed
    first: it hands over a start tag only once it has read the whole of it.
    """
    wanted = tags | {"base"} if "link" in tags else tags  # <base> resolves translations
    if b"\0" in body or body.startswith(b"\x4c\x6f\xa7\x94") or _XML_DECLARATION.match(body):
        return None  # UTF-16 or UTF-32; EBCDIC's "<?xm"; an XML declaration may name an encoding
    spellings = dict.fromkeys(wanted, 0)
    last = -1
    for spelling in _spellings(wanted).finditer(body):
        spellings[spelling.group(1).lower().decode()] += 1
        last = spelling.start()
    if last < 0:
        return [], None
    end = body.find(b">", last)
    if end < 0 or 2 * end > len(body):
        return None  # a page with such tags far down is read whole anyway
    found = _LinkTags(tags, counted=wanted)
    try:
        parser = etree.HTMLParser(recover=True, huge_tree=False, target=found)
        parser.feed(body[: end + 1])
        complete = found.met == spellings and all(_ASCII_TAGS_ENCODING.fullmatch(name) for name in found.encodings)
        head = (found.elements, found.base)
        parser.close()
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None
    finally:
        found.elements = []  # the parser and its target hold each other until a collection
    return head if complete else None


@functools.cache
def _spellings(tags: frozenset[str]) -> re.Pattern[bytes]:
    """``<tag`` for any of ``tags``, in any case (ASCII's, as the parser's), the tag in group 1."""
    return re.compile(b"<(" + b"|".join(sorted(tag.encode() for tag in tags)) + b")", re.IGNORECASE)


class _LinkTags:
    """Parser target: the wanted elements in document order, as (tag, href, rel, hreflang) or (meta, name, content,
    None), and the first ``<base href>``; with ``counted``, how many of those tags it ``met`` and the ``encodings``
    their ``<meta>`` tags declare."""

    def __init__(self, tags: frozenset[str], counted: frozenset[str] = frozenset()) -> None:
        self.tags = tags
        self.elements: list[tuple[str, str | None, str | None, str | None]] = []
        self.base: str | None = None
        self.counted = counted
        self.met = dict.fromkeys(counted, 0)
        self.encodings: list[str] = []

    def start(self, tag, attrib) -> None:
        if not isinstance(tag, str):
            return
        tag = tag.lower()
        if tag in self.counted:
            self.met[tag] += 1
            if tag == "meta" and ("charset" in attrib or "http-equiv" in attrib):
                self.encodings.extend(_declared_encodings(attrib))
        if tag in self.tags:
            if tag == "meta":
                self.elements.append((tag, attrib.get("name"), attrib.get("content"), None))
            elif attrib.get("href"):
                self.elements.append((tag, attrib.get("href"), attrib.get("rel"), attrib.get("hreflang")))
        elif tag == "base" and self.base is None and attrib.get("href"):
            self.base = attrib.get("href")

    # No end, data or comment method: lxml calls a target's method for an event only when it has one, and a page's
    # text nodes and end tags are most of its events.

    def close(self) -> None:
        return None


def _declared_encodings(attrib) -> list[str]:
    """The encodings a ``<meta charset>`` or ``<meta http-equiv content="...; charset=...">`` may declare: the parser
    reads the rest of the page in the first one ("?" when it cannot be told, which no encoding matches)."""
    declared = [attrib["charset"]] if "charset" in attrib else []
    content = attrib.get("content") or ""
    if "http-equiv" in attrib and "charset" in content.lower():
        charset = _CHARSET.search(content)
        declared.append(charset.group(1) if charset else "?")
    return declared


def join_link(href: str, base: str, folder: str | None) -> str | None:
    """:func:`absolutize` of a stripped ``href``; ``folder`` (the base up to its last "/", when the base is plain)
    joins a plain relative or rooted path by concatenation, as urljoin would, in a fraction of the time."""
    if folder is not None:
        if _PLAIN_RELATIVE.fullmatch(href):
            return folder + href
        if _PLAIN_ROOTED.fullmatch(href):  # most links of a site built with root-relative URLs (Hugo's, Docsy's)
            return folder[: folder.index("/", folder.index("//") + 2)] + href
    return absolutize(href, base)
