"""Websites of the Python documentation generators: Sphinx, MkDocs and Pelican, built offline from PyPI sdists.

Five websites, each a real project's own documents rendered by a real generator and theme:

- ``sphinx-docs``: Sphinx's documentation (the ``doc/`` folder of the ``sphinx`` sdist), default theme alabaster;
- ``sphinx-furo``: Flask's documentation (``docs/`` of the ``flask`` sdist) with the furo theme;
- ``mkdocs-material``: PyMdown Extensions' documentation with the Material theme;
- ``mkdocs-readthedocs``: Python-Markdown's documentation with MkDocs' built-in readthedocs theme;
- ``pelican-blog``: a Pelican blog (theme notmyidea) whose posts are the release sections of Flask's and Click's
  changelogs and whose pages are their READMEs.

The truth of a page is its own source rendered without any template: Sphinx's ``text`` builder for Sphinx (run on
the same sources, with a small writer tweak that drops the plain-text markup it adds: ``*emphasis*``,
``"literal"``, bullets, heading underlines, wrapping); for MkDocs, the page's content HTML as the generator's own
Markdown renderer gives it (an MkDocs hook, before any theme template), read by ``truth.fragment_text``; for
Pelican, ``truth.rst_text`` / ``truth.markdown_text`` of each post's body under its title.

Usage: python -m benchmarks.sites.real.generators.python_docs --cache DIR
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from lxml import html as lxml_html

from benchmarks.sites.real.model import SITE_FOLDER, TRUTH_FILE, BuiltSite, TruthPage, built_summary
from benchmarks.sites.real.sources import ensure_debian_packages, pypi_sdist, tool_venv
from benchmarks.sites.real.truth import fragment_text, markdown_text, rst_text

# The documents' releases: fixed so that a rebuild gives the same truth.
SPHINX = ("sphinx", "9.0.4")
FLASK = ("flask", "3.1.3")
CLICK = ("click", "8.5.1")
PYMDOWN = ("pymdown-extensions", "13.1.2")
MARKDOWN = ("markdown", "3.11.3")

# The generators, each in a venv of its own; Flask's docs pin Sphinx below 9, Sphinx's own docs want 9.
SPHINX9_VENV = ("sphinx9", ["sphinx>=9.0,<9.1"])
SPHINX_FURO_VENV = (
    "sphinx-furo",
    ["sphinx>=8.2,<9", "furo>=2024.8", "pallets-sphinx-themes>=2.3,<3", "sphinx-tabs>=3.4,<4",
     "sphinxcontrib-log-cabinet>=1.0,<2", "flask>=3.1,<3.2"],
)
MKDOCS_VENV = ("mkdocs", ["mkdocs>=1.6,<1.7", "mkdocs-material>=9.6,<10", "pymdown-extensions>=13.1,<14",
                          "mdx_gh_links>=0.4,<1"])
PELICAN_VENV = ("pelican", ["pelican[markdown]>=4.12,<4.13"])

WORD = re.compile(r"\w+")
# Pages with fewer words than this besides their title are tables of contents (a toctree, a list of links).
INDEX_WORDS = 25


@dataclass(frozen=True)
class SiteSpec:
    """What a site is, apart from its pages (kept in code, so a cached build needs only its truth file)."""

    name: str
    generator: str
    theme: str
    start_path: str
    sitemap_path: str | None
    make: Callable[[Path, Path], list[TruthPage]]  # (cache, work folder) -> pages; writes <work>/site


def build(cache: Path) -> list[BuiltSite]:
    """Build (or reuse from ``cache``) the five websites of this module and return them with their truth."""
    return [_cached(cache, spec) for spec in SPECS]


def _cached(cache: Path, spec: SiteSpec) -> BuiltSite:
    """The site from ``<cache>/<name>`` if complete, else built in a temp folder renamed into place at the end."""
    folder = cache / spec.name
    site = BuiltSite(name=spec.name, generator=spec.generator, theme=spec.theme, folder=folder,
                     start_path=spec.start_path, sitemap_path=spec.sitemap_path)
    if site.read_built():
        return site
    work = cache / f".{spec.name}.building"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    pages = spec.make(cache, work)
    staged = BuiltSite(name=spec.name, generator=spec.generator, theme=spec.theme, folder=work, pages=pages)
    staged.write_truth()
    # Only the site and its truth are kept: the copied sources and intermediate outputs go.
    for entry in work.iterdir():
        if entry.name not in (SITE_FOLDER, TRUTH_FILE):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    shutil.rmtree(folder, ignore_errors=True)
    work.rename(folder)
    site.pages = pages
    return site


def _run(command: list[str], cwd: Path, log: Path, env: dict[str, str] | None = None) -> None:
    """Run a generator; its output goes to ``log``, shown (tail) only when it fails."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # never leak the project's path into a tool
    with log.open("w") as out:
        done = subprocess.run(command, cwd=cwd, env={**base, **(env or {})}, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{tail}")


def _words(text: str) -> int:
    return len(WORD.findall(text))


def _body_words(text: str) -> int:
    """Words of a truth text past its first block (the title heading)."""
    return _words(text.split("\n\n", 1)[1]) if "\n\n" in text else 0


# -- Sphinx -------------------------------------------------------------------------------------------------------

# Loaded only for the truth build (BENCH_TRUTH_TEXT set): the text writer without the plain-text markup it adds,
# and without its 70-column wrapping, so each paragraph is one line like a block of fragment_text.
TRUTH_TEXT_EXTENSION = '''
"""The text builder as the bench's truth: the document's words and blocks, no plain-text decorations."""
import sphinx.writers.text as text_writer
from sphinx.writers.text import TextTranslator

text_writer.MAXWIDTH = 100_000


class TruthTextTranslator(TextTranslator):
    def _nothing(self, node):
        pass

    visit_emphasis = depart_emphasis = visit_literal_emphasis = depart_literal_emphasis = _nothing
    visit_strong = depart_strong = visit_literal_strong = depart_literal_strong = _nothing
    visit_title_reference = depart_title_reference = visit_literal = depart_literal = _nothing
    visit_inline = depart_inline = visit_subscript = visit_superscript = _nothing

    def visit_transition(self, node):
        raise text_writer.nodes.SkipNode

    def visit_image(self, node):
        # "[image: alt]" is not text a reader sees on the page.
        raise text_writer.nodes.SkipNode

    def depart_list_item(self, node):
        if self.list_counter[-1] == -2:
            return
        self.end_state(first=None)


def setup(app):
    app.set_translator("text", TruthTextTranslator, override=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
'''

CONF_OVERRIDE = '''

# -- appended by the bench: the theme of the bench's website, and the truth build's text writer --
import os as _bench_os
import sys as _bench_sys
{overrides}
if _bench_os.environ.get("BENCH_TRUTH_TEXT"):
    _bench_sys.path.insert(0, _bench_os.environ["BENCH_TRUTH_TEXT"])
    extensions = [*extensions, "_bench_truth_text"]
'''

UNDERLINE = re.compile(r"^([*=\-~^\"'+#`.])\1*$")
TABLE_BORDER = re.compile(r"^[+|][-=+|]*[+|]$")


def sphinx_text(text: str) -> str:
    """Sphinx text-builder output as truth text: heading underlines and table rules gone, one block per line."""
    lines = [line.rstrip() for line in text.splitlines()]
    kept: list[str] = []
    for index, line in enumerate(lines):
        stripped = line.strip()
        previous = lines[index - 1].strip() if index else ""
        if UNDERLINE.match(stripped) and previous and len(stripped) >= len(previous) - 1 and len(stripped) > 1:
            continue  # the underline of the heading just above
        if TABLE_BORDER.match(stripped):
            continue
        if stripped.startswith("|") and stripped.endswith("|"):
            stripped = " ".join(cell.strip() for cell in stripped.strip("|").split("|"))
        kept.append(re.sub(r"[ \t\u00a0]+", " ", stripped).strip())
    return "\n\n".join(line for line in kept if line)


def _build_sphinx(cache: Path, work: Path, *, venv: tuple[str, list[str]], sdist: tuple[str, str], docs: str,
                  overrides: str, kind_of: Callable[[str], str], skip: Callable[[str], bool]) -> list[TruthPage]:
    """An HTML site and the text builder's truth from the same copy of a project's Sphinx sources."""
    bin_dir = tool_venv(cache, *venv)
    source = work / "src"
    shutil.copytree(pypi_sdist(*sdist, cache), source)
    conf = source / docs / "conf.py"
    conf.write_text(conf.read_text() + CONF_OVERRIDE.format(overrides=overrides))
    (work / "_bench_truth_text.py").write_text(TRUTH_TEXT_EXTENSION)
    sphinx_build = str(bin_dir / "sphinx-build")
    # Both builders at once: the machine has two cores and each builder is single-threaded here.
    html_log, text_log = work / "html.log", work / "text.log"
    with html_log.open("w") as html_out, text_log.open("w") as text_out:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        html = subprocess.Popen([sphinx_build, "-q", "-b", "html", "-d", str(work / "doctrees-html"), docs,
                                 str(work / SITE_FOLDER)], cwd=source, env=env, stdout=html_out, stderr=html_out)
        text = subprocess.Popen([sphinx_build, "-q", "-b", "text", "-d", str(work / "doctrees-text"), docs,
                                 str(work / "text")], cwd=source, env={**env, "BENCH_TRUTH_TEXT": str(work)},
                                stdout=text_out, stderr=text_out)
        for process, log in ((html, html_log), (text, text_log)):
            if process.wait() != 0:
                raise RuntimeError(f"sphinx-build failed:\n{log.read_text(errors='replace')[-3000:]}")
    pages: list[TruthPage] = []
    for text_file in sorted((work / "text").rglob("*.txt")):
        docname = text_file.relative_to(work / "text").with_suffix("").as_posix()
        if skip(docname) or not (work / SITE_FOLDER / f"{docname}.html").is_file():
            continue
        truth = sphinx_text(text_file.read_text(encoding="utf-8"))
        if not _body_words(truth):
            continue  # nothing but a title (a toctree, an include the text builder leaves out)
        title = truth.split("\n\n", 1)[0]
        kind = "index" if _body_words(truth) < INDEX_WORDS else kind_of(docname)
        pages.append(TruthPage(path=f"/{docname}.html", title=title, text=truth, kind=kind))
    return pages


def _sphinx_docs_kind(docname: str) -> str:
    if docname.startswith("changes/"):
        return "release-notes"
    if docname.startswith(("tutorial/", "development/tutorials/")):
        return "tutorial"
    if docname.startswith(("extdev/", "man/", "usage/configuration", "usage/domains/", "usage/extensions/")) \
            or docname in ("glossary", "usage/restructuredtext/directives", "usage/restructuredtext/roles"):
        return "reference"
    return "manual"


def make_sphinx_docs(cache: Path, work: Path) -> list[TruthPage]:
    """Sphinx's documentation with Sphinx's default theme (alabaster) instead of the project's own sphinx13."""
    # Without Graphviz's dot the graphviz and inheritance-diagram directives print their DOT source in the page.
    ensure_debian_packages("graphviz")
    return _build_sphinx(
        cache, work, venv=SPHINX9_VENV, sdist=SPHINX, docs="doc",
        # sphinx13's stylesheet and its options belong to the replaced theme.
        overrides='html_theme = "alabaster"\nhtml_theme_options = {}\nhtml_css_files = []\nhtml_sidebars = {}',
        kind_of=_sphinx_docs_kind, skip=lambda docname: False,
    )


def _flask_kind(docname: str) -> str:
    if docname == "changes":
        return "release-notes"
    if docname.startswith("tutorial/"):
        return "tutorial"
    if docname in ("api", "config", "cli", "signals"):
        return "reference"
    return "manual"


def pallets_docs_themed(theme: str, extra: str = "") -> str:
    """conf.py lines that put a Pallets project's docs (Flask, Werkzeug, Click) on another Sphinx theme: the
    Pallets extension, which registers its own theme and version banner, is left out."""
    return (f'html_theme = "{theme}"\nhtml_theme_options = {{}}\nhtml_sidebars = {{}}\n{extra}'
            'extensions = [name for name in extensions if name != "pallets_sphinx_themes"]')


def make_sphinx_furo(cache: Path, work: Path) -> list[TruthPage]:
    """Flask's documentation with furo in place of the Pallets theme (whose sidebars furo does not have)."""
    return _build_sphinx(
        cache, work, venv=SPHINX_FURO_VENV, sdist=FLASK, docs="docs",
        overrides=pallets_docs_themed("furo"),
        # license.rst includes LICENSE.txt as a literal block: kept, it is what the page shows.
        kind_of=_flask_kind, skip=lambda docname: False,
    )


# -- MkDocs --------------------------------------------------------------------------------------------------------

# An MkDocs hook: each page's content as the generator's Markdown renders it, before the theme's template.
TRUTH_HOOK = '''
import json
import os

_pages = {}


def on_page_content(html, page, config, files, **kwargs):
    _pages[page.file.src_uri] = {"url": page.url, "title": page.title, "html": html}
    return html


def on_post_build(config, **kwargs):
    with open(os.environ["BENCH_TRUTH_OUT"], "w", encoding="utf-8") as out:
        json.dump(_pages, out)
'''


def _yaml_block(config_text: str, key: str) -> str:
    """A top-level key of a YAML file with its indented block, as text (the sources' files carry Python tags)."""
    match = re.search(rf"^{key}:.*?(?=^\S)", config_text + "\nend:", re.MULTILINE | re.DOTALL)
    if match is None:
        raise ValueError(f"no {key} in the configuration")
    return match.group(0)


def _build_mkdocs(cache: Path, work: Path, *, project: Path, config: str, add_h1: bool,
                  kind_of: Callable[[str], str], venv: tuple[str, list[str]] = MKDOCS_VENV) -> list[TruthPage]:
    """``mkdocs build`` of ``config`` (written at the copied project's root) and the hook's per-page content."""
    bin_dir = tool_venv(cache, *venv)
    (work / "_bench_truth_hook.py").write_text(TRUTH_HOOK)
    (project / "mkdocs.yml").write_text(config + f"\nhooks:\n  - {work / '_bench_truth_hook.py'}\n")
    truth_file = work / "content.json"
    # The project root on the path: its mkdocs.yml names formatters of its own tools/ package.
    _run([str(bin_dir / "mkdocs"), "build", "--clean", "--site-dir", str(work / SITE_FOLDER)], project,
         work / "mkdocs.log", env={"BENCH_TRUTH_OUT": str(truth_file), "PYTHONPATH": str(project)})
    pages: list[TruthPage] = []
    for src, page in sorted(json.loads(truth_file.read_text(encoding="utf-8")).items()):
        fragment = _without_headerlinks(page["html"])
        if add_h1 and not re.search(r"<h1[\s>]", fragment):
            # Material writes the page's title as its h1 when the document has none.
            fragment = f"<h1>{_escape(page['title'])}</h1>{fragment}"
        truth = fragment_text(fragment)
        if not _body_words(truth):
            continue
        kind = "index" if _body_words(truth) < INDEX_WORDS else kind_of(src)
        pages.append(TruthPage(path="/" + page["url"], title=page["title"], text=truth, kind=kind))
    return pages


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _without_headerlinks(fragment: str) -> str:
    """The content without the toc extension's permalink anchors (a "¶" or "§" beside each heading)."""
    if "headerlink" not in fragment:
        return fragment
    root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    for anchor in root.xpath('//a[contains(concat(" ", normalize-space(@class), " "), " headerlink ")]'):
        anchor.drop_tree()
    return "".join(lxml_html.tostring(child, encoding="unicode") for child in root) if len(root) else ""


MATERIAL_CONFIG = """site_name: PyMdown Extensions Documentation
site_description: A Collection of Useful Extensions for Python Markdown
repo_url: https://github.com/facelessuser/pymdown-extensions
edit_uri: tree/master/docs/src/markdown
copyright: Copyright &copy; 2014 - 2025 Isaac Muse
docs_dir: docs/src/markdown
use_directory_urls: true
theme:
  name: material
  icon:
    logo: material/book-open-page-variant
  palette:
    - scheme: default
      primary: deep purple
      accent: deep purple
  features:
    - navigation.tabs
    - navigation.top
    - navigation.indexes
    - navigation.path
    - navigation.footer
    - toc.follow
    - content.tabs.link
    - content.code.copy
    - content.code.annotations
plugins:
  - search
"""


def make_mkdocs_material(cache: Path, work: Path) -> list[TruthPage]:
    """PyMdown Extensions' docs (made for Material) with mkdocs-material and the project's own Markdown setup."""
    project = work / "src"
    shutil.copytree(pypi_sdist(*PYMDOWN, cache), project)
    original = (project / "zensical.yml").read_text()
    # Pages name Zensical's Lucide icons in their front matter, a set Material does not ship (the build fails).
    for page in (project / "docs" / "src" / "markdown").rglob("*.md"):
        source = page.read_text(encoding="utf-8")
        if "icon: lucide/" in source:
            source = re.sub(r"^icon: lucide/.*\n", "", source, flags=re.MULTILINE)
            # A front matter left empty is no longer read as one (it would show as a dash and a rule).
            page.write_text(re.sub(r"\A---\s*\n---\s*\n", "", source), encoding="utf-8")
    extensions = _yaml_block(original, "markdown_extensions")
    # tools.collapse_code is not in the sdist; LICENSE/SECURITY snippets are optional there.
    extensions = re.sub(r"  - tools\.collapse_code:\n(?:      .*\n)*", "", extensions)
    extensions = extensions.replace("check_paths: true", "check_paths: false")
    config = MATERIAL_CONFIG + _yaml_block(original, "nav") + extensions

    def kind_of(src: str) -> str:
        if src.startswith(("about/changelog", "about/releases/")):
            return "release-notes"
        if src.startswith(("extensions/", "extras/")):
            return "reference"
        return "manual"

    return _build_mkdocs(cache, work, project=project, config=config, add_h1=True, kind_of=kind_of)


READTHEDOCS_CONFIG = """site_name: Python-Markdown
site_description: Python implementation of John Gruber's Markdown.
repo_url: https://github.com/Python-Markdown/markdown
site_author: The Python-Markdown Project
copyright: Copyright &copy; 2010-2026 The Python-Markdown Project.
use_directory_urls: true
theme:
  name: readthedocs
plugins:
  - search
markdown_extensions:
  - abbr
  - admonition
  - attr_list
  - def_list
  - footnotes
  - md_in_html
  - smarty
  - pymdownx.blocks.html
  - pymdownx.keys
  - toc:
      permalink: true
  - mdx_gh_links:
      user: Python-Markdown
      repo: markdown
  - pymdownx.highlight
  - pymdownx.superfences:
      custom_fences:
        - name: md-render
          class: md-render
          format: !!python/name:tools.superfences_formaters.md_render
        - name: py-render
          class: py-render
          format: !!python/name:tools.superfences_formaters.py_render
"""


def make_mkdocs_readthedocs(cache: Path, work: Path) -> list[TruthPage]:
    """Python-Markdown's docs with MkDocs' built-in readthedocs theme.

    Left out: the API reference pages (mkdocstrings stubs, no prose of their own) and the playground (a Pyodide
    widget). The project's extensions are kept but for those of Zensical (emoji) and mkdocstrings.
    """
    project = work / "src"
    shutil.copytree(pypi_sdist(*MARKDOWN, cache), project)
    shutil.rmtree(project / "docs" / "reference")
    (project / "docs" / "playground.md").unlink()
    nav = _yaml_block((project / "mkdocs.yml").read_text(), "nav")
    nav = "\n".join(line for line in nav.splitlines()
                    if "reference/" not in line and "API Reference" not in line and "playground" not in line) + "\n"

    def kind_of(src: str) -> str:
        if src.startswith(("changelog", "change_log/")):
            return "release-notes"
        if src.startswith(("extensions/", "reference", "cli", "library", "test_tools")):
            return "reference"
        return "manual"

    return _build_mkdocs(cache, work, project=project, config=READTHEDOCS_CONFIG + nav, add_h1=False,
                         kind_of=kind_of)


# -- Pelican -------------------------------------------------------------------------------------------------------

PELICAN_CONF = """AUTHOR = "Pallets"
SITENAME = "Pallets Release Notes"
SITEURL = ""
RELATIVE_URLS = True
TIMEZONE = "UTC"
DEFAULT_LANG = "en"
PATH = "content"
PAGE_PATHS = ["pages"]
ARTICLE_PATHS = ["posts"]
THEME = "notmyidea"
DEFAULT_PAGINATION = 10
SUMMARY_MAX_LENGTH = 40
DEFAULT_DATE_FORMAT = "%Y-%m-%d"
# Feeds would carry absolute URLs of another host: the bench serves the site on a port of its choosing.
FEED_ALL_ATOM = None
CATEGORY_FEED_ATOM = None
TRANSLATION_FEED_ATOM = None
AUTHOR_FEED_ATOM = None
AUTHOR_FEED_RSS = None
LINKS = (("Flask", "https://flask.palletsprojects.com/"), ("Click", "https://click.palletsprojects.com/"))
SOCIAL = ()
"""

RST_ROLE = re.compile(r":(?:[\w-]+:)?([\w-]+):`([^`]+)`")
MYST_ROLE = re.compile(r"\{(?:[\w-]+:)?([\w-]+)\}`([^`]+)`")
LINK_ROLES = {"issue": "issues/{}", "pr": "pull/{}", "ghsa": "security/advisories/GHSA-{}"}


def _role_text(role: str, target: str) -> tuple[str, str | None]:
    """A Sphinx role's displayed text and, for the changelogs' issue roles, its URL path on GitHub."""
    if role in LINK_ROLES:
        label = f"GHSA-{target}" if role == "ghsa" else f"#{target}"
        return label, LINK_ROLES[role].format(target)
    shown = re.sub(r"\s*<[^>]*>$", "", target) if "<" in target and not target.startswith("<") else target
    return shown.lstrip("~!"), None


def _plain_rst(body: str, repo: str) -> str:
    """Sphinx-only roles as plain reST (a Pelican post is read by docutils alone)."""
    def replace(match: re.Match[str]) -> str:
        label, link = _role_text(match.group(1), match.group(2))
        return f"`{label} <https://github.com/{repo}/{link}>`__" if link else f"``{label.strip('`')}``"
    return RST_ROLE.sub(replace, body)


def _plain_markdown(body: str, repo: str) -> str:
    """MyST roles as plain Markdown."""
    def replace(match: re.Match[str]) -> str:
        label, link = _role_text(match.group(1), match.group(2))
        return f"[{label}](https://github.com/{repo}/{link})" if link else f"`{label}`"
    return MYST_ROLE.sub(replace, body)


@dataclass(frozen=True)
class Release:
    """One section of a changelog."""

    project: str
    version: str
    released: date
    body: str  # the section's text after its heading, in the changelog's markup


def changelog_releases(project: str, changes: str, repo: str, markup: str = "rst") -> list[Release]:
    """The dated sections of a Pallets changelog: "Version X.Y.Z" underlined in CHANGES.rst (``markup`` "rst") or
    "## Version X.Y.Z" in CHANGES.md ("md"), each followed by "Released YYYY-MM-DD"."""
    heading, plain = (r"^Version (\S+)\n-+\n", _plain_rst) if markup == "rst" else (r"^## Version (\S+)\n", _plain_markdown)
    releases = []
    sections = re.split(heading, changes, flags=re.MULTILINE)
    for version, body in zip(sections[1::2], sections[2::2], strict=False):
        released = re.search(r"Released (\d{4}-\d\d-\d\d)", body)
        if released:
            releases.append(Release(project, version, date.fromisoformat(released.group(1)), plain(body.strip(), repo)))
    return releases


def _release_tags(release: Release) -> list[str]:
    parts = release.version.split(".")
    tags = ["feature release" if len(parts) < 3 or parts[2] == "0" else "bugfix release"]
    if re.search(r"security|GHSA", release.body, re.IGNORECASE):
        tags.append("security")
    return tags


def make_pelican_blog(cache: Path, work: Path) -> list[TruthPage]:
    """A Pelican blog of Flask's and Click's releases (one dated post each) and their READMEs as pages."""
    bin_dir = tool_venv(cache, *PELICAN_VENV)
    flask, click = pypi_sdist(*FLASK, cache), pypi_sdist(*CLICK, cache)
    content = work / "content"
    (content / "posts").mkdir(parents=True)
    (content / "pages").mkdir()
    pages: list[TruthPage] = []
    for release in changelog_releases("Flask", (flask / "CHANGES.rst").read_text(encoding="utf-8"), "pallets/flask"):
        title, slug = f"{release.project} {release.version} released", f"flask-{release.version}".replace(".", "-")
        heading = "#" * len(title)
        (content / "posts" / f"{slug}.rst").write_text(
            f"{heading}\n{title}\n{heading}\n\n:date: {release.released}\n:category: {release.project}\n"
            f":tags: {', '.join(_release_tags(release))}\n:slug: {slug}\n:summary: Release notes of "
            f"{release.project} {release.version}.\n\n{release.body}\n", encoding="utf-8")
        # Pelican's article template shows the title as the page's heading, above the body.
        pages.append(TruthPage(path=f"/{slug}.html", title=title, text=f"{title}\n\n{rst_text(release.body)}",
                               kind="release-notes"))
    for release in changelog_releases(
        "Click", (click / "CHANGES.md").read_text(encoding="utf-8"), "pallets/click", markup="md"
    ):
        title, slug = f"{release.project} {release.version} released", f"click-{release.version}".replace(".", "-")
        (content / "posts" / f"{slug}.md").write_text(
            f"Title: {title}\nDate: {release.released}\nCategory: {release.project}\n"
            f"Tags: {', '.join(_release_tags(release))}\nSlug: {slug}\n"
            f"Summary: Release notes of {release.project} {release.version}.\n\n{release.body}\n", encoding="utf-8")
        pages.append(TruthPage(path=f"/{slug}.html", title=title, text=f"{title}\n\n{markdown_text(release.body)}",
                               kind="release-notes"))
    for project, sdist in (("Flask", flask), ("Click", click)):
        # The README's own "# Name" heading becomes the page's title (the template shows it as the heading).
        body = re.sub(r"\A\s*#\s+[^\n]*\n", "", (sdist / "README.md").read_text(encoding="utf-8"), count=1)
        pages.append(pelican_page(content, project, project.lower(), body))
    run_pelican(bin_dir, work, PELICAN_CONF, pages)
    return pages


def pelican_page(content: Path, project: str, name: str, body: str) -> TruthPage:
    """A Pelican page "About <project>" of Markdown ``body``, written under ``content/pages``, and its truth."""
    title, slug = f"About {project}", f"about-{name}"
    (content / "pages" / f"{slug}.md").write_text(f"Title: {title}\nSlug: {slug}\n\n{body}", encoding="utf-8")
    return TruthPage(path=f"/pages/{slug}.html", title=title, text=f"{title}\n\n{markdown_text(body)}", kind="page")


def run_pelican(bin_dir: Path, work: Path, conf: str, pages: list[TruthPage]) -> None:
    """Build the Pelican site of ``work/content`` with ``conf``; fail when a page of the truth was not written."""
    (work / "pelicanconf.py").write_text(conf)
    _run([str(bin_dir / "pelican"), "content", "-s", "pelicanconf.py", "-o", str(work / SITE_FOLDER)], work,
         work / "pelican.log")
    missing = [p.path for p in pages if not (work / SITE_FOLDER / p.path.lstrip("/")).is_file()]
    if missing:
        raise RuntimeError(f"pelican wrote no page for {missing[:5]}")


SPECS: tuple[SiteSpec, ...] = (
    SiteSpec("sphinx-docs", "sphinx", "alabaster", "/index.html", None, make_sphinx_docs),
    SiteSpec("sphinx-furo", "sphinx", "furo", "/index.html", None, make_sphinx_furo),
    SiteSpec("mkdocs-material", "mkdocs", "material", "/", None, make_mkdocs_material),
    SiteSpec("mkdocs-readthedocs", "mkdocs", "readthedocs", "/", None, make_mkdocs_readthedocs),
    SiteSpec("pelican-blog", "pelican", "notmyidea", "/index.html", None, make_pelican_blog),
)


def main() -> None:
    """Build (or reuse) every site and print its truth pages and words."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--sites", nargs="*", help="only these sites (default: all)")
    args = parser.parse_args()
    for spec in SPECS:
        if args.sites and spec.name not in args.sites:
            continue
        started = time.perf_counter()
        site = _cached(args.cache, spec)
        print(built_summary(site, time.perf_counter() - started), flush=True)


if __name__ == "__main__":
    main()
