"""Held-out websites of the real-websites bench: generators and themes the tuning never saw, content no one has read.

Built with the machinery of ``python_docs`` and ``cms_sites`` (same truth rules), from other projects' documents:

- ``sphinx-rtd``: Werkzeug's documentation (``docs/`` of the ``werkzeug`` sdist) with sphinx-rtd-theme;
- ``sphinx-pydata``: Click's documentation (MyST Markdown, ``docs/`` of the ``click`` sdist) with
  pydata-sphinx-theme, its changelog page left out (pelican-blog publishes Click's releases);
- ``mkdocs-terminal``: Starlette's documentation (``docs/`` of the ``starlette`` sdist) with the Terminal.css theme
  (``mkdocs-terminal``); its release notes are split into one page per series, and each page gets its nav title as
  its heading (the docs are written for Material, which shows the title itself; Terminal does not);
- ``pelican-reflex``: a Pelican blog with the theme Reflex (``pelican-theme-reflex``, a fork of Flex) whose posts are
  the releases of ItsDangerous's and MarkupSafe's changelogs and whose pages are their READMEs;
- ``wordpress-tt22``: WordPress with the block theme Twenty Twenty-Two (Debian's ``wordpress-theme-twentytwentytwo``)
  and block-editor posts: dotenv's changelog (one post per release) and its README's sections as pages.

Usage: python -m benchmarks.sites.real.generators.fresh_sites --cache DIR [--sites NAME ...]
"""

from __future__ import annotations

import argparse
import re
import shutil
import time
from datetime import datetime, timedelta
from pathlib import Path

from benchmarks.sites.real.generators import cms_sites
from benchmarks.sites.real.generators.cms_sites import Document, WordPressSpec, build_wordpress, slugify
from benchmarks.sites.real.generators.python_docs import (
    SiteSpec,
    _build_mkdocs,
    _build_sphinx,
    _cached,
    _release_tags,
    _yaml_block,
    changelog_releases,
    pallets_docs_themed,
    pelican_page,
    run_pelican,
)
from benchmarks.sites.real.model import BuiltSite, TruthPage, built_summary
from benchmarks.sites.real.sources import ensure_debian_packages, npm_package, pypi_sdist, tool_venv
from benchmarks.sites.real.truth import rst_text

# The documents' releases: fixed so that a rebuild gives the same truth.
WERKZEUG = ("werkzeug", "3.1.9")
CLICK = ("click", "8.5.1")
STARLETTE = ("starlette", "1.10.0")
ITSDANGEROUS = ("itsdangerous", "2.2.0")
MARKUPSAFE = ("markupsafe", "3.0.3")
DOTENV = "dotenv@17.2.3"

SPHINX_RTD_VENV = ("sphinx-rtd", ["sphinx>=8.2,<9", "sphinx-rtd-theme>=3.1,<3.2", "pallets-sphinx-themes>=2.3,<3",
                                  "sphinxcontrib-log-cabinet>=1.0,<2", "werkzeug==3.1.9"])
SPHINX_PYDATA_VENV = ("sphinx-pydata", ["sphinx>=8.2,<9", "pydata-sphinx-theme>=0.16,<1", "pallets-sphinx-themes>=2.3,<3",
                                        "sphinx-tabs>=3.4,<4", "sphinxcontrib-log-cabinet>=1.0,<2", "myst-parser>=4,<6",
                                        "click==8.5.1"])
MKDOCS_TERMINAL_VENV = ("mkdocs-terminal", ["mkdocs>=1.6,<1.7", "mkdocs-terminal>=4.8,<5",
                                            "pymdown-extensions>=10.0,<14"])
PELICAN_REFLEX_VENV = ("pelican-reflex", ["pelican[markdown]>=4.12,<4.13", "pelican-theme-reflex>=4.0,<5"])


# -- Sphinx with sphinx-rtd-theme -------------------------------------------------------------------------------

WERKZEUG_REFERENCE = ("datastructures", "debug", "exceptions", "http", "local", "middleware/", "routing", "serving",
                      "test", "urls", "utils", "wrappers", "wsgi")


def _werkzeug_kind(docname: str) -> str:
    if docname == "changes":
        return "release-notes"
    if docname == "tutorial":
        return "tutorial"
    if docname.startswith(WERKZEUG_REFERENCE):
        return "reference"
    return "manual"


def make_sphinx_rtd(cache: Path, work: Path) -> list[TruthPage]:
    """Werkzeug's documentation with sphinx-rtd-theme in place of the Pallets theme."""
    return _build_sphinx(
        cache, work, venv=SPHINX_RTD_VENV, sdist=WERKZEUG, docs="docs",
        overrides=pallets_docs_themed("sphinx_rtd_theme"),
        kind_of=_werkzeug_kind, skip=lambda docname: False,
    )


def _click_kind(docname: str) -> str:
    if docname in ("api", "exceptions", "parameter-types", "option-decorators", "utils", "command-line-reference"):
        return "reference"
    if docname in ("quickstart", "virtualenv", "setuptools", "entry-points"):
        return "tutorial"
    return "manual"


def make_sphinx_pydata(cache: Path, work: Path) -> list[TruthPage]:
    """Click's documentation (MyST Markdown) with the PyData theme in place of the Pallets theme.

    Its changelog page is left out: pelican-blog already publishes Click's releases.
    """
    return _build_sphinx(
        cache, work, venv=SPHINX_PYDATA_VENV, sdist=CLICK, docs="docs",
        overrides=pallets_docs_themed("pydata_sphinx_theme", "html_logo = None\n"),
        kind_of=_click_kind, skip=lambda docname: docname == "changes",
    )


# -- MkDocs with the Terminal theme -----------------------------------------------------------------------------

TERMINAL_CONFIG = """site_name: Starlette
site_description: The little ASGI library that shines.
repo_url: https://github.com/Kludex/starlette
edit_uri: edit/main/docs/
copyright: Copyright &copy; 2018, Encode OSS Ltd.
use_directory_urls: true
theme:
  name: terminal
  palette: default
  features:
    - navigation.side.indexes
plugins:
  - search
markdown_extensions:
  - attr_list
  - admonition
  - toc:
      permalink: true
  - pymdownx.highlight
  - pymdownx.superfences
  - pymdownx.details
  - pymdownx.tabbed:
      alternate_style: true
  - pymdownx.tasklist:
      custom_checkbox: true
"""

# Starlette's release notes, one page per series (the file holds every release since 2018).
STARLETTE_SERIES = (("1.x", r"1\."), ("0.40 to 0.52", r"0\.(?:4\d|5\d)\."), ("0.30 to 0.39", r"0\.3\d\."),
                    ("0.20 to 0.29", r"0\.2\d\."), ("0.10 to 0.19", r"0\.1\d\."), ("0.1 to 0.9", r"0\.\d\."))
API_REFERENCE = re.compile(r'^\?\?\?\+? abstract "API Reference"\n(?:(?: {4}.*)?\n)*', re.MULTILINE)


def _starlette_docs(docs: Path, nav: str) -> str:
    """Prepare Starlette's docs for a theme that shows no title of its own; returns the new nav."""
    # mkdocstrings' API blocks (":::" stubs, filled by a plugin this site does not run) go with their admonition.
    for page in docs.glob("*.md"):
        page.write_text(API_REFERENCE.sub("", page.read_text(encoding="utf-8")), encoding="utf-8")
    titles = dict(re.findall(r'^\s*- ([^:\n]+): "([\w-]+\.md)"$', nav, re.MULTILINE))
    titles = {path: title for title, path in titles.items()}
    notes = (docs / "release-notes.md").read_text(encoding="utf-8")
    releases = re.split(r"^(?=## )", re.sub(r"\A---\n.*?\n---\n", "", notes, flags=re.DOTALL), flags=re.MULTILINE)
    series_pages = []
    (docs / "release-notes").mkdir()
    for label, pattern in STARLETTE_SERIES:
        chosen = [r for r in releases if re.match(rf"## {pattern}", r)]
        if not chosen:
            continue
        name = f"release-notes/{slugify(label)}.md"
        (docs / name).write_text(f"# Starlette {label}\n\n" + "".join(chosen).replace(
            "\n#### ", "\n### "), encoding="utf-8")
        series_pages.append(f'      - "Starlette {label}": "{name}"')
    (docs / "release-notes.md").unlink()
    nav = nav.replace('  - Release Notes: "release-notes.md"', "  - Release Notes:\n" + "\n".join(series_pages))
    for path, title in titles.items():
        page = docs / path
        if not page.is_file():
            continue
        source = page.read_text(encoding="utf-8")
        if not _has_h1(source):
            page.write_text(f"# {title}\n\n{source.lstrip()}", encoding="utf-8")
    return nav


def _has_h1(markdown: str) -> bool:
    """Whether a Markdown document has a first-level ATX heading outside its code fences."""
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith("# "):
            return True
    return False


def _starlette_kind(src: str) -> str:
    if src.startswith("release-notes"):
        return "release-notes"
    if src in ("index.md", "contributing.md", "third-party-packages.md"):
        return "manual"
    return "reference"


def make_mkdocs_terminal(cache: Path, work: Path) -> list[TruthPage]:
    """Starlette's docs with the Terminal.css theme and their own Markdown extensions (but Material's emoji)."""
    project = work / "src"
    shutil.copytree(pypi_sdist(*STARLETTE, cache), project)
    nav = _yaml_block((project / "mkdocs.yml").read_text(), "nav")
    nav = _starlette_docs(project / "docs", nav)
    shutil.rmtree(project / "docs" / "overrides")  # Material's template overrides
    return _build_mkdocs(cache, work, project=project, config=TERMINAL_CONFIG + nav, add_h1=False,
                         kind_of=_starlette_kind, venv=MKDOCS_TERMINAL_VENV)


# -- Pelican with Reflex ----------------------------------------------------------------------------------------

PELICAN_CONF = """AUTHOR = "Pallets"
SITENAME = "Safe Strings Changelog"
SITESUBTITLE = "Release notes of ItsDangerous and MarkupSafe"
SITEURL = ""
RELATIVE_URLS = True
TIMEZONE = "UTC"
DEFAULT_LANG = "en"
PATH = "content"
PAGE_PATHS = ["pages"]
ARTICLE_PATHS = ["posts"]
THEME = "reflex"
DEFAULT_PAGINATION = 8
SUMMARY_MAX_LENGTH = 30
DEFAULT_DATE_FORMAT = "%B %d, %Y"
MAIN_MENU = True
MENUITEMS = (("Archives", "/archives.html"), ("Categories", "/categories.html"), ("Tags", "/tags.html"))
FEED_ALL_ATOM = None
CATEGORY_FEED_ATOM = None
TRANSLATION_FEED_ATOM = None
AUTHOR_FEED_ATOM = None
AUTHOR_FEED_RSS = None
LINKS = (("ItsDangerous", "https://itsdangerous.palletsprojects.com/"),
         ("MarkupSafe", "https://markupsafe.palletsprojects.com/"))
SOCIAL = ()
COPYRIGHT_NAME = "Pallets"
COPYRIGHT_YEAR = 2024
# The footer template reads CC_LICENSE's keys whether or not a license is set.
CC_LICENSE = {"name": "Creative Commons Attribution-ShareAlike", "version": "4.0", "slug": "by-sa", "icon": False}
"""


def make_pelican_reflex(cache: Path, work: Path) -> list[TruthPage]:
    """A Pelican blog of ItsDangerous's and MarkupSafe's releases and their READMEs, theme Reflex."""
    bin_dir = tool_venv(cache, *PELICAN_REFLEX_VENV)
    content = work / "content"
    (content / "posts").mkdir(parents=True)
    (content / "pages").mkdir()
    pages: list[TruthPage] = []
    for project, (name, version), repo in (("ItsDangerous", ITSDANGEROUS, "pallets/itsdangerous"),
                                           ("MarkupSafe", MARKUPSAFE, "pallets/markupsafe")):
        sdist = pypi_sdist(name, version, cache)
        for entry in changelog_releases(project, (sdist / "CHANGES.rst").read_text(encoding="utf-8"), repo):
            release, released, body = entry.version, entry.released.isoformat(), entry.body
            title, slug = f"{project} {release}", f"{name}-{release}".replace(".", "-")
            tags = ", ".join(_release_tags(entry))
            heading = "#" * len(title)
            (content / "posts" / f"{slug}.rst").write_text(
                f"{heading}\n{title}\n{heading}\n\n:date: {released}\n:category: {project}\n:tags: {tags}\n"
                f":slug: {slug}\n:summary: What changed in {project} {release}.\n\n{body}\n", encoding="utf-8")
            pages.append(TruthPage(path=f"/{slug}.html", title=title, text=f"{title}\n\n{rst_text(body)}",
                                   kind="release-notes"))
        readme = (sdist / "README.md").read_text(encoding="utf-8")
        body = re.sub(r"\A\s*(?:<div.*?</div>\s*)?#\s+[^\n]*\n", "", readme, count=1, flags=re.DOTALL)
        pages.append(pelican_page(content, project, name, body))
    run_pelican(bin_dir, work, PELICAN_CONF, pages)
    return pages


# -- WordPress with Twenty Twenty-Two ---------------------------------------------------------------------------


def dotenv_documents(cache: Path) -> list[Document]:
    """dotenv's CHANGELOG (one post per release, 2015–2025) and its README's sections as pages."""
    package = npm_package(DOTENV, cache / "sources")
    changelog = (package / "CHANGELOG.md").read_text(encoding="utf-8")
    posts = cms_sites._release_posts(cms_sites.split_sections(changelog, 2), "dotenv", "dotenv",
                                     datetime(2025, 10, 1))
    by_slug: dict[str, Document] = {}
    for post in posts:
        by_slug.setdefault(post.slug, post)
    posts = list(by_slug.values())
    pages = []
    readme = (package / "README.md").read_text(encoding="utf-8")
    for index, (heading, body) in enumerate(cms_sites.split_sections(readme, 2)):
        # Badges (linked images) out of the README's title, the emoji before each heading out of the others.
        title = re.sub(r"\[?!\[[^]]*\]\([^)]*\)(?:\]\([^)]*\))?", "", heading)
        title = re.sub(r"^[^\w(]+", "", re.sub(r"[`*_]|\[([^]]*)\]\([^)]*\)", r"\1", title)).strip()
        if title == "dotenv":
            title = "About dotenv"
        if len(body) < 300 or title.lower() in ("changelog", "contributing guide") or not title:
            continue  # sponsor banners, links to other files
        pages.append(Document(key=f"dotenv-guide-{index}", type="page", kind="manual", title=title,
                              slug=slugify(title), date=datetime(2025, 9, 30, 12) + timedelta(minutes=index),
                              markdown=body))
    for index, post in enumerate(posts):
        post.comments = cms_sites._comments(index, post.date)
    return posts + pages


WORDPRESS_TT22 = WordPressSpec("wordpress-tt22", "twentytwentytwo", "dotenv Release Notes", dotenv_documents,
                               blocks=True)


# -- the sites ----------------------------------------------------------------------------------------------------

SPECS: tuple[SiteSpec, ...] = (
    SiteSpec("sphinx-rtd", "sphinx", "sphinx_rtd_theme", "/index.html", None, make_sphinx_rtd),
    SiteSpec("sphinx-pydata", "sphinx", "pydata_sphinx_theme", "/index.html", None, make_sphinx_pydata),
    SiteSpec("mkdocs-terminal", "mkdocs", "terminal", "/", None, make_mkdocs_terminal),
    SiteSpec("pelican-reflex", "pelican", "reflex", "/index.html", None, make_pelican_reflex),
)
SITE_NAMES = (*(spec.name for spec in SPECS), WORDPRESS_TT22.name)


def build(cache: Path, names: set[str] | None = None) -> list[BuiltSite]:
    """Build (or reuse from ``cache``) the held-out websites of this module (or only those named)."""
    sites = [_cached(cache, spec) for spec in SPECS if not names or spec.name in names]
    if not names or WORDPRESS_TT22.name in names:
        ensure_debian_packages(*cms_sites.DEBIAN_PACKAGES, "wordpress-theme-twentytwentytwo")
        cache.mkdir(parents=True, exist_ok=True)
        sites.append(build_wordpress(WORDPRESS_TT22, cache))
    return sites


def main() -> None:
    """Build (or reuse) the sites and print their truth pages and words."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--sites", nargs="*", choices=SITE_NAMES, help="only these sites (default: all)")
    args = parser.parse_args()
    for name in args.sites or SITE_NAMES:
        started = time.perf_counter()
        site = build(args.cache.resolve(), {name})[0]
        print(built_summary(site, time.perf_counter() - started), flush=True)


if __name__ == "__main__":
    main()
