"""What a page declares it is: a document, a listing of other pages, or an error page.

Read from the untouched page: its CMS's ``body`` classes, its structured data, its pagination, whether its
``rel=canonical`` names itself, its headings' links (a listing's title links) and, once its text is read, whether that
is a list of links to its own website and nothing else (:func:`link_list`). Declarations only: the site-wide pass
(:mod:`corpus_pipeline.extract.site_page_kinds`) weighs them with the website's other pages, and decides.
"""

from __future__ import annotations

import re
from collections import defaultdict
from urllib.parse import urlsplit

from lxml import etree, html

from corpus_pipeline.core.urls import absolutize
from corpus_pipeline.extract.html_tree import text_content
from corpus_pipeline.extract.site_links import page_key

DOCUMENT, LISTING, ERROR_PAGE = "document", "listing", "error_page"

# body classes, as WordPress's body_class() (a post "single single-post postid-12"; the static front page is "home
# page", so "home" alone says nothing), Ghost ("tag-template") and Drupal ("page-node-type-article") write them.
_LISTING_CLASSES = frozenset(
    {"archive", "blog", "search", "search-results", "search-no-results", "paged", "home-template", "tag-template",
     "author-template", "path-taxonomy", "page-taxonomy-term"}
)
_DOCUMENT_CLASSES = frozenset({"single", "single-post", "post-template", "page-template", "path-node"})
_DOCUMENT_CLASS_PREFIXES = ("postid-", "page-id-", "page-node-type-")
_ERROR_CLASSES = frozenset({"error404", "error-template", "page-404", "not-found"})
# schema.org types of a page of pages, and of one document.
_LISTING_TYPES = frozenset({"collectionpage", "searchresultspage"})
_ARTICLE_TYPES = frozenset(
    {"article", "newsarticle", "blogposting", "techarticle", "scholarlyarticle", "reportagenewsarticle",
     "analysisnewsarticle", "opinionnewsarticle", "liveblogposting"}
)
# A paginated list's address: WordPress's /page/2/ and ?paged=2, Hugo's /page/2/, Jekyll's /page2/.
_PAGINATED_PATH = re.compile(r"/page/?\d+/?$")
_PAGINATED_QUERY = re.compile(r"(?:^|&)(?:paged|page)=\d+(?:&|$)")
# What an error page's title or headline says, at its start ("404", "Page not found", "Oops! That page can't be
# found."), on a short page only: a long post titled "404 errors in nginx" is a document.
_ERROR_TITLE = re.compile(
    r"^\W*(?:error\W+)?(?:404\b|page\s+not\s+found|not\s+found\b|nothing\s+(?:was\s+)?found|oops\b.*\bfound|"
    r"(?:this\s+|the\s+)?page\s+(?:does\s*n[o']t|can\s*n[o']t|could\s*n[o']t|cannot)\s+(?:exist|be\s+found))",
    re.IGNORECASE,
)
ERROR_PAGE_MAX_WORDS = 150
MAX_TITLE_LINKS = 500
MAX_LINK_NAMES = 2000
LABEL_WORDS = 4  # a line of more words than this, and no link's text, is the page's own text
# A list of links (link_list): as many entries as a list of pages needs (site_page_kinds.MIN_TITLE_LIST), as large a
# share of its lines as a page shown must share with the page showing it (SHOWN_SHARE), less own text than a probe.
MIN_LINKED_LINES, LINKED_SHARE, MAX_OWN_WORDS = 3, 0.8, 10
_WORD = re.compile(r"\w+")


def page_declarations(document: html.HtmlElement, url: str, rel_canonical: str | None, types: tuple[str, ...]) -> dict:
    """``page_kind`` (what the declarations of the untouched page at ``url``, its schema.org ``types`` among them, make
    it; None when they do not tell), its evidence (tokens such as ``body:archive``, ``ld:collectionpage``,
    ``pagination``, ``canonical:self``) and ``title_links`` (the same-host pages its headings link to)."""
    tokens: list[str] = []
    body = next(document.iter("body"), None)
    classes = set((body.get("class") or "").lower().split()) if body is not None else set()
    tokens += [f"body:{c}" for c in sorted(classes & _LISTING_CLASSES)]
    document_classes = (classes & _DOCUMENT_CLASSES) | {
        c.split("-", 1)[0] + "-id" for c in classes if c.startswith(_DOCUMENT_CLASS_PREFIXES)
    }
    tokens += [f"body:{c}" for c in sorted(document_classes)]
    tokens += [f"body:{c}" for c in sorted(classes & _ERROR_CLASSES)]
    tokens += [f"ld:{t}" for t in sorted(set(types) & _LISTING_TYPES)]
    articles = sum(1 for t in types if t in _ARTICLE_TYPES)
    if articles == 1:
        tokens.append("ld:article")
    elif articles >= 3:
        tokens.append(f"ld:articles:{articles}")
    if _paginated(document, url):
        tokens.append("pagination")
    own = page_key(url)  # once: the canonical test and the title links both need it
    canonical = ("self" if page_key(rel_canonical) == own else "other") if rel_canonical else "none"
    tokens.append(f"canonical:{canonical}")
    return {
        "page_kind": declared_kind(tokens), "page_kind_evidence": " ".join(tokens),
        "title_links": _title_links(document, url, own),
    }


def declared_kind(tokens: list[str] | set[str]) -> str | None:
    """What the declarations alone make a page: ``error_page``, ``listing``, or None (the site-wide pass decides)."""
    tokens = set(tokens)
    if any(t.startswith("body:") and t[5:] in _ERROR_CLASSES for t in tokens):
        return ERROR_PAGE
    listing = any(t.startswith("body:") and t[5:] in _LISTING_CLASSES for t in tokens) or any(
        t.startswith("ld:") and (t[3:] in _LISTING_TYPES or t.startswith("ld:articles:")) for t in tokens
    )
    if listing and not document_declared(tokens):
        return LISTING
    return None


def document_declared(tokens: list[str] | set[str]) -> bool:
    """Whether the CMS or the structured data says the page is one document (a post, a page, an article)."""
    return any(
        (t.startswith("body:") and (t[5:] in _DOCUMENT_CLASSES or t.endswith("-id"))) or t == "ld:article"
        for t in tokens
    )


def error_title(title: str | None, words: int) -> bool:
    """Whether a page of ``words`` words titled ``title`` is an error page that says so (a soft 404)."""
    return bool(title) and words <= ERROR_PAGE_MAX_WORDS and bool(_ERROR_TITLE.match(title or ""))


def title_links(document: html.HtmlElement, url: str) -> list[str]:
    """Page keys of the same-host pages that the page's headings (``h1``-``h6``) or ``rel=bookmark`` links point
    at, in page order, the page itself left out: a listing's title links to the documents it shows."""
    return _title_links(document, url, page_key(url))


def _title_links(document: html.HtmlElement, url: str, own: str | None) -> list[str]:
    """:func:`title_links`, the page's own key (``own``) given."""
    host = urlsplit(url).netloc.lower()
    found: dict[str, None] = {}  # ordered, each once
    keys: dict[str, str | None] = {}  # target -> its page key, computed once: a post's heading and bookmark links
    for anchor in _HEADING_OR_REL_LINKS(document):
        href = (anchor.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        rel = anchor.get("rel")
        if rel is not None and "bookmark" not in rel.lower().split() and not _IN_HEADING(anchor):
            continue  # chosen for its rel, which is not a bookmark's, and in no heading
        target = absolutize(href, url)
        if not target or _netloc(target).lower() != host:
            continue
        if target not in keys:
            keys[target] = page_key(target)
        key = keys[target]
        if key and key != own:
            found[key] = None
            if len(found) >= MAX_TITLE_LINKS:
                break
    return list(found)


def link_names(document: html.HtmlElement, url: str) -> frozenset[str]:
    """The texts (as lower-case words) of the untouched page's links to its own website's pages, template and self
    links included: the names the website gives those pages (a tag page's "added 32", a month archive's "June 2026")."""
    host = urlsplit(url).netloc.lower()
    names: set[str] = set()
    texts: set[str] = set()  # the link texts read: a menu repeats its links, a listing its "Read more"
    for anchor in document.iterdescendants("a"):
        href = anchor.get("href")
        if not href or href.lstrip(_XML_SPACE).startswith("#"):
            continue  # no link, or one within the page
        href = href.strip()
        if "//" in href[:8]:  # absolute ("https://..."), or scheme-relative ("//host/...")
            if _netloc(href).lower() != host:
                continue
        elif ":" in href.split("/", 1)[0]:  # mailto:, javascript:, tel:
            continue
        text = text_content(anchor)
        if text in texts:
            continue
        texts.add(text)
        name = " ".join(_WORD.findall(text.lower()))
        if name:
            names.add(name)
            if len(names) >= MAX_LINK_NAMES:
                break
    return frozenset(names)


# XML's white space (what XPath's normalize-space() strips): an href starting with "#" after it links within the page.
_XML_SPACE = " \t\r\n"
# An absolute or scheme-relative http(s) address whose authority urlsplit reads as written: ASCII, no brackets (an
# IPv6 literal, which it checks), no tab, CR or LF (which it removes first), ending where it ends (at "/", "?", "#").
# Most links are such; the group is their netloc, read at a tenth of urlsplit's cost.
_PLAIN_NETLOC = re.compile(r"(?:(?i:https?):)?//([\w.~%!$&'()*+,;=:@-]*)(?=[/?#]|\Z)", re.ASCII)


def _netloc(address: str) -> str:
    """``urlsplit(address).netloc``."""
    plain = _PLAIN_NETLOC.match(address)
    return plain.group(1) if plain else urlsplit(address).netloc


def link_list(content: str, names: frozenset[str]) -> int:
    """How many lines of ``content`` (the main text, a line a paragraph) are links to its website's pages when it is
    a list of them and nothing else (a tag cloud, an index of month archives), else 0: ``MIN_LINKED_LINES`` lines and
    ``LINKED_SHARE`` of all at least, each half or more one link's text (``names``), and fewer than ``MAX_OWN_WORDS``
    words in the other lines longer than a label ("June 2026 (1)")."""
    linked = other = own = 0
    by_first_word: dict[str, set[int]] = defaultdict(set)  # a name's first word -> the names' sizes in words
    for name in names:
        by_first_word[name.split(" ", 1)[0]].add(name.count(" ") + 1)
    for line in content.split("\n"):
        words = _WORD.findall(line.lower())
        if not words:
            continue
        if _holds_link_name(words, names, by_first_word):
            linked += 1
            continue
        other += 1
        if len(words) > LABEL_WORDS:
            own += len(words)
            if own >= MAX_OWN_WORDS:
                return 0  # text of its own: most pages stop here, at their first sentence
    listed = linked >= MIN_LINKED_LINES and linked >= LINKED_SHARE * (linked + other)
    return linked if listed else 0


def _holds_link_name(words: list[str], names: frozenset[str], by_first_word: dict[str, set[int]]) -> bool:
    """Whether a link's text is at least half of the line of ``words``."""
    count = len(words)
    for start, word in enumerate(words[: count // 2 + 1]):
        for size in by_first_word.get(word, ()):
            if 2 * size >= count and start + size <= count and " ".join(words[start : start + size]) in names:
                return True
    return False


# The links in a heading or with a rel, in page order, below the element given (not "//a": a page parsed with a
# second <html> holds that one's links in the document, outside the tree), found by libxml2, not Python.
_HEADING_OR_REL_LINKS = etree.XPath(
    "descendant::a[@rel] | " + " | ".join(f"descendant::h{level}//a" for level in range(1, 7))
)
_IN_HEADING = etree.XPath("boolean(" + " or ".join(f"ancestor::h{level}" for level in range(1, 7)) + ")")


def _paginated(document: html.HtmlElement, url: str) -> bool:
    """A paginated address, or a ``<link rel=next|prev>`` to one: the first page of a paginated list names its
    second. A rel=next to any other address is no pagination: a documentation website's (Sphinx, DocBook, MkDocs)
    names the next chapter, a document of its own; an article's ``<a rel=prev>`` the previous post."""
    if _paginated_address(url):
        return True
    for link in document.iter("link"):
        if {"next", "prev", "previous"} & set((link.get("rel") or "").lower().split()):
            target = absolutize((link.get("href") or "").strip(), url)
            if target and _paginated_address(target):
                return True
    return False


def _paginated_address(url: str) -> bool:
    parts = urlsplit(url)
    return bool(_PAGINATED_PATH.search(parts.path) or _PAGINATED_QUERY.search(parts.query))

