"""Websites built from Debian's documentation packages, copied into a temporary folder to be served on loopback.

The packages are installed with apt on first use. /usr/share/doc is never modified: each site is a copy of its
HTML pages, to which the copy adds what a real multilingual website has and these trees lack: a sitemap index of
per-language sitemaps with hreflang alternates, a robots.txt naming it, and ``<link rel=alternate hreflang>`` in
the head of every page that has translations.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from corpus_pipeline_demo.server import PLACEHOLDER

HANDBOOK = Path("/usr/share/doc/debian-handbook/html")
DEBIAN_REFERENCE = Path("/usr/share/debian-reference")
DEVELOPERS_REFERENCE = Path("/usr/share/doc/developers-reference/docs")
PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")

# 21 of the handbook's 26 languages: 2,667 pages, the size of the website issue 20 measured (about 2,600).
# Left out: two right-to-left ones and three others, to stay at that size.
HANDBOOK_LANGS = (
    "en-US", "cs-CZ", "da-DK", "de-DE", "el-GR", "es-ES", "fr-FR", "id-ID", "it-IT", "ja-JP", "ko-KR",
    "nl-NL", "pl-PL", "pt-BR", "ro-RO", "ru-RU", "sv-SE", "tr-TR", "vi-VN", "zh-CN", "zh-TW",
)
# The quick run: English, a translated language and a mostly untranslated one (381 pages).
QUICK_HANDBOOK_LANGS = ("en-US", "fr-FR", "da-DK")
DEBIAN_REFERENCE_LANGS = ("en", "de", "es", "fr", "id", "it", "ja", "pt", "zh-cn")


@dataclass(frozen=True)
class SitePage:
    """One page of a website: where it is served, which file it comes from, its declared language."""

    path: str  # URL path, starting with "/"
    source: Path
    lang: str  # the language the site declares for the page (its tree or suffix), e.g. "fr-FR"
    group: str  # pages sharing a group are translations of each other


@dataclass(frozen=True)
class SiteSpec:
    """A website of the suite and how its truth is read."""

    name: str
    packages: tuple[str, ...]
    truth_selector: str  # CSS selector of the template's main container
    pages: tuple[SitePage, ...]

    @property
    def langs(self) -> tuple[str, ...]:
        return tuple(sorted({page.lang for page in self.pages}))


def ensure_packages(packages: tuple[str, ...]) -> None:
    """apt-get install the packages that are missing (as root, or through sudo)."""
    missing = [p for p in packages if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0]
    if not missing:
        return
    print(f"Installing Debian packages for the site benchmark: {' '.join(missing)}", flush=True)
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", *missing], check=True)


def debian_handbook(langs: tuple[str, ...] = HANDBOOK_LANGS) -> SiteSpec:
    """The Debian Administrator's Handbook (publican/DocBook): one folder per language, 127 pages each."""
    packages = ("debian-handbook",)
    ensure_packages(packages)
    pages = tuple(
        SitePage(f"/{lang}/{source.name}", source, lang, source.name)
        for lang in langs
        for source in sorted((HANDBOOK / lang).glob("*.html"))
    )
    # The body holds a banner, the title images, the navigation lists and one div (chapter, section, ...).
    return SiteSpec("debian-handbook", packages, "body > div:not(#banner)", pages)


def debian_reference(langs: tuple[str, ...] = DEBIAN_REFERENCE_LANGS) -> SiteSpec:
    """Debian Reference (DocBook): one folder, pages suffixed by language (ch01.fr.html), partly translated."""
    packages = ("debian-reference-common",) + tuple(f"debian-reference-{lang}" for lang in langs)
    ensure_packages(packages)
    pages = []
    for lang in langs:
        for source in sorted(DEBIAN_REFERENCE.glob(f"*.{lang}.html")):
            group = source.name.removesuffix(f".{lang}.html")
            pages.append(SitePage(f"/{source.name}", source, lang, group))
    return SiteSpec("debian-reference", packages, "body > div:not(.navheader):not(.navfooter)", tuple(pages))


def developers_reference() -> SiteSpec:
    """Debian's Developer's Reference (Sphinx), English."""
    packages = ("developers-reference",)
    ensure_packages(packages)
    return SiteSpec("developers-reference", packages, "div.body", _sphinx_pages(DEVELOPERS_REFERENCE))


def python_docs() -> SiteSpec:
    """The Python 3.11 documentation (Sphinx), English."""
    packages = ("python3.11-doc",)
    ensure_packages(packages)
    return SiteSpec("python3.11-doc", packages, "div.body", _sphinx_pages(PYTHON_DOCS))


def _sphinx_pages(root: Path) -> tuple[SitePage, ...]:
    sources = sorted(p for p in root.rglob("*.html") if p.is_file() and not p.relative_to(root).parts[0].startswith("_"))
    return tuple(SitePage("/" + p.relative_to(root).as_posix(), p, "en", p.relative_to(root).as_posix()) for p in sources)


def write_site(spec: SiteSpec, root: Path) -> None:
    """Copy the site's pages under ``root`` with hreflang links, per-language sitemaps and robots.txt."""
    groups: dict[str, list[SitePage]] = {}
    for page in spec.pages:
        groups.setdefault(page.group, []).append(page)
    multilingual = len(spec.langs) > 1
    for page in spec.pages:
        target = root / page.path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if multilingual:
            target.write_bytes(_with_hreflang(page.source.read_bytes(), groups[page.group]))
        else:
            shutil.copyfile(page.source, target)
    sitemaps = []
    for lang in spec.langs:
        name = f"sitemaps/{lang.lower()}.xml"
        entries = [_sitemap_entry(page, groups[page.group] if multilingual else []) for page in spec.pages if page.lang == lang]
        _write_xml(root / name, "urlset", entries)
        sitemaps.append(f"<sitemap><loc>{_url(name)}</loc></sitemap>")
    _write_xml(root / "sitemap.xml", "sitemapindex", sitemaps)
    (root / "robots.txt").write_bytes(b"User-agent: *\nAllow: /\nSitemap: " + PLACEHOLDER + b"/sitemap.xml\n")


def hreflang(lang: str) -> str:
    """The hreflang code of a declared language: fr-FR -> fr-FR, zh-cn -> zh-CN, pt -> pt."""
    base, _, region = lang.partition("-")
    return f"{base.lower()}-{region.upper()}" if region else base.lower()


def _with_hreflang(body: bytes, translations: list[SitePage]) -> bytes:
    links = "".join(
        f'<link rel="alternate" hreflang="{hreflang(t.lang)}" href="{_url(t.path.lstrip("/"))}" />' for t in translations
    ).encode()
    head_end = body.find(b"</head>")
    return body if head_end < 0 else body[:head_end] + links + body[head_end:]


def _sitemap_entry(page: SitePage, translations: list[SitePage]) -> str:
    alternates = "".join(
        f'<xhtml:link rel="alternate" hreflang="{hreflang(t.lang)}" href="{_url(t.path.lstrip("/"))}"/>' for t in translations
    )
    return f"<url><loc>{_url(page.path.lstrip('/'))}</loc>{alternates}</url>"


def _url(path: str) -> str:
    return escape(PLACEHOLDER.decode() + "/" + path)


def _write_xml(path: Path, root_tag: str, entries: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    namespaces = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"'
    path.write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<{root_tag} {namespaces}>\n' + "\n".join(entries) + f"\n</{root_tag}>\n")
