"""Static websites of the real-websites bench built by static site generators with published themes.

Each site is built offline from published packages: the generator (Hugo and Jekyll from Debian, VitePress and
Docusaurus from npm), its theme (an npm-published Hugo theme, Jekyll's minima, the generators' default themes) and
its content (the Markdown documentation and CHANGELOGs shipped in npm tarballs). The truth of a page is its own
Markdown rendered by ``truth.markdown_text``: the title the theme renders as the page's h1 first, then the body.
Listings the generators write (home pages, blog indexes, tag pages) are never truth.

Sites: ``hugo-learn-docs`` (Hugo + hugo-cloudflare-docs, a fork of the Learn docs theme: fastify's docs),
``jekyll-minima`` (Jekyll +
minima: date-fns's release notes as posts plus its guides), ``vitepress-docs`` (VitePress default theme: undici's
docs) and ``docusaurus-docs`` (Docusaurus classic preset: eslint-plugin-import's rule docs plus its release notes as
a blog).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from benchmarks.sites.real.model import SITE_FOLDER, BuiltSite, TruthPage
from benchmarks.sites.real.sources import ensure_debian_packages, npm_package
from benchmarks.sites.real.truth import markdown_text, strip_front_matter

# Content and themes, pinned so a rebuild gives the same site.
FASTIFY = "fastify@5.12.8"
DATE_FNS = "date-fns@4.4.0"
UNDICI = "undici@8.13.1"
ESLINT_IMPORT = "eslint-plugin-import@2.32.0"
CLOUDFLARE_DOCS_THEME = "@cloudflare/hugo-cloudflare-docs@1.0.4"
VITEPRESS_TOOL = {"vitepress": "1.6.4", "vue": "3.5.45"}
DOCUSAURUS_TOOL = {
    "@docusaurus/core": "3.10.2",
    "@docusaurus/preset-classic": "3.10.2",
    "@mdx-js/react": "3.1.1",
    "clsx": "2.1.1",
    "prism-react-renderer": "2.4.1",
    "react": "19.2.0",
    "react-dom": "19.2.0",
}


@dataclass
class Doc:
    """A document to publish: its source path (for link resolution), served URL path, title and Markdown body."""

    rel: str
    url: str
    title: str
    body: str
    kind: str
    date: dt.date | None = None
    weight: int = 0


# --- Markdown helpers --------------------------------------------------------------------------------------------

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_HEADING = re.compile(r"^\s*<h([1-6])[^>]*>(.*?)</h\1>\s*$", re.IGNORECASE)
INLINE_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]*)>?(\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^( {0,3}\[[^\]]+\]:\s*)<?(\S+?)>?(\s.*)?$")
HREF = re.compile(r"""(<a\s[^>]*?href=)(["'])([^"']*)\2""", re.IGNORECASE)
IMG_TAG = re.compile(r"<img\s[^>]*>", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def split_code(body: str) -> list[tuple[bool, str]]:
    """The body cut into (is_code, text) runs: fenced code blocks apart from the prose around them."""
    runs: list[tuple[bool, str]] = []
    current: list[str] = []
    fence: str | None = None
    for line in body.splitlines(keepends=True):
        match = FENCE.match(line)
        if fence is None and match:
            if current:
                runs.append((False, "".join(current)))
            current, fence = [line], match.group(1)
        elif fence is not None:
            current.append(line)
            if (
                match
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
                and not line.strip()[len(match.group(1)) :].strip()
            ):
                runs.append((True, "".join(current)))
                current, fence = [], None
        else:
            current.append(line)
    if current:
        runs.append((fence is not None, "".join(current)))
    return runs


def map_prose(body: str, change: Callable[[str], str], spans: bool = True) -> str:
    """``change`` applied to the prose of a Markdown body, outside fenced code (and code spans unless not ``spans``)."""
    out: list[str] = []
    for is_code, text in split_code(body):
        if is_code or not spans:
            out.append(text if is_code else change(text))
            continue
        if is_code:
            out.append(text)
            continue
        pieces: list[str] = []
        last = 0
        for span in CODE_SPAN.finditer(text):
            pieces.append(change(text[last : span.start()]))
            pieces.append(span.group(0))
            last = span.end()
        pieces.append(change(text[last:]))
        out.append("".join(pieces))
    return "".join(out)


def take_title(body: str, fallback: str) -> tuple[str, str]:
    """The document's title (its leading heading) and the body without it; ``fallback`` when it opens otherwise."""
    lines = body.splitlines()
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("<!--") and stripped.endswith("-->"):
            continue
        match = HEADING.match(line) or HTML_HEADING.match(line)
        if match:
            title = re.sub(r"<[^>]+>", "", match.group(2)).strip()
            title = re.sub(r"`|\*\*", "", title) or fallback
            return title, "\n".join(lines[:index] + lines[index + 1 :]).lstrip("\n") + "\n"
        break
    return fallback, body


def resolve_links(body: str, rel: str, urls: dict[str, str]) -> str:
    """Relative links to other published documents rewritten to their served URL; other relative links unlinked.

    The sources link to ``../Reference/Routes.md`` or ``./Agent.md#anchor``: on the site those must be the page's
    URL path. A relative link to a file that is not published (a source file, an image) would be broken: it points
    at the page itself instead (text unchanged), and relative images are dropped (no text either way).
    """
    folder = posixpath.dirname(rel)

    def target(href: str) -> str | None:
        if not href or href.startswith(("#", "/", "mailto:")) or re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I):
            return None
        path, _, fragment = href.partition("#")
        resolved = posixpath.normpath(posixpath.join(folder, path))
        url = urls.get(resolved) or urls.get(resolved + ".md") or urls.get(posixpath.join(resolved, "index.md"))
        if url is None:
            return "#"
        return url + (f"#{fragment.lower()}" if fragment else "")

    def inline(match: re.Match[str]) -> str:
        bang, text, href, title = match.group(1), match.group(2), match.group(3), match.group(4) or ""
        new = target(href)
        if new is None:
            return match.group(0)
        if bang:
            return ""
        return f"[{text}]({new}{title})"

    def prose(text: str) -> str:
        text = INLINE_LINK.sub(inline, text)
        text = HREF.sub(lambda m: m.group(1) + m.group(2) + (target(m.group(3)) or m.group(3)) + m.group(2), text)
        text = IMG_TAG.sub(lambda m: "" if target(_src(m.group(0)) or "http:") is not None else m.group(0), text)
        lines = []
        for line in text.split("\n"):
            ref = REF_DEF.match(line)
            if ref and (new := target(ref.group(2))) is not None:
                line = ref.group(1) + new + (ref.group(3) or "")
            lines.append(line)
        return "\n".join(lines)

    # Code spans are not set apart here: link texts hold them ([`genReqId`](./Server.md#genreqid)).
    return map_prose(body, prose, spans=False)


def _src(tag: str) -> str | None:
    match = re.search(r"""src=["']([^"']*)["']""", tag, re.IGNORECASE)
    return match.group(1) if match else None


def truth_text(title: str | None, body: str) -> str:
    """The truth of a page: the title its theme shows as the h1 (when it comes from front matter), then the body."""
    text = markdown_text(body)
    if title:
        return f"{' '.join(title.split())}\n\n{text}" if text else title
    return text


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def yaml_front_matter(fields: Mapping[str, object]) -> str:
    """Front matter whose values are JSON literals (JSON is YAML), so titles with colons or quotes stay intact."""
    lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in fields.items() if value is not None]
    return "---\n" + "\n".join(lines) + "\n---\n\n"


# --- Content -----------------------------------------------------------------------------------------------------


def docs_from_folder(
    root: Path, url_of: Callable[[str], str], kind_of: Callable[[str], str], keep_title: bool = False
) -> list[Doc]:
    """Every Markdown file under ``root`` as a Doc, its title taken from its leading heading, links resolved.

    The heading leaves the body (the theme renders the front-matter title as the h1) unless ``keep_title``
    (generators that show the page's own h1, as VitePress does).
    """
    docs: list[Doc] = []
    for path in sorted(root.rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        source = strip_front_matter(path.read_text(encoding="utf-8"))
        title, body = take_title(source, path.stem.replace("-", " "))
        if keep_title:
            body = source
        docs.append(Doc(rel=rel, url=url_of(rel), title=title, body=body, kind=kind_of(rel)))
    urls = {doc.rel: doc.url for doc in docs}
    for doc in docs:
        doc.body = resolve_links(doc.body, doc.rel, urls)
    return docs


RELEASE_HEADINGS: dict[str, re.Pattern[str]] = {
    # "## v4.4.0 - 2026-05-30", "## [2.32.0] - 2025-06-20"
    "iso": re.compile(r"^##\s+\[?v?(\d[\w.\-]*)\]?(?:\([^)]*\))?\s+-\s+(\d{4}-\d{2}-\d{2})\s*$"),
    # "# 3.3.0 - 26 June, 2026"
    "knex": re.compile(r"^#\s+(\d[\w.\-]*)\s+-\s+(\d{1,2} \w+,? \d{4})\s*$"),
}


def releases(changelog: Path, package: str, style: str, limit: int, min_words: int = 20) -> list[Doc]:
    """The newest releases of a CHANGELOG as release-note posts, one per version, dated as the CHANGELOG dates them.

    Link reference definitions (kept at the CHANGELOG's end) are appended to the posts that use them, so a post's
    reference links render as links, as they do in the whole file.
    """
    heading = RELEASE_HEADINGS[style]
    lines = changelog.read_text(encoding="utf-8").splitlines()
    definitions = {m.group(1).lower(): line for line in lines if (m := re.match(r"^\[([^\]]+)\]:\s+\S+", line))}
    sections: list[tuple[str, dt.date, list[str]]] = []
    current: list[str] | None = None
    level = "##" if style == "iso" else "#"
    for line in lines:
        match = heading.match(line)
        if match:
            raw = match.group(2).replace(",", "")
            date = dt.datetime.strptime(raw, "%Y-%m-%d" if style == "iso" else "%d %B %Y").date()
            current = []
            sections.append((match.group(1), date, current))
        elif re.match(rf"^{level}\s", line) or line in definitions.values():
            current = None
        elif current is not None:
            current.append(line)
    docs: list[Doc] = []
    for version, date, body_lines in sections:
        body = "\n".join(body_lines).strip() + "\n"
        if len(body.split()) < min_words or "alpha" in version or "beta" in version:
            continue
        used = {label.lower() for label in re.findall(r"\[([^\]]+)\]", body)}
        refs = [definitions[label] for label in sorted(used) if label in definitions]
        if refs:
            body += "\n" + "\n".join(refs) + "\n"
        title = f"{package} {version}"
        docs.append(Doc(rel=f"releases/{version}.md", url="", title=title, body=body, kind="release-notes", date=date))
        if len(docs) == limit:
            break
    return docs


def escape_pseudo_tags(body: str) -> str:
    """``Promise<Response>`` and ``{{`` in prose escaped: VitePress compiles a page as a Vue template.

    CommonMark takes ``<Response>`` for raw HTML (and drops it from the text), Vue fails on it as an unclosed
    element; escaped, both show the words a reader sees. Applied to the source before both site and truth.
    """
    known = {
        "a",
        "abbr",
        "b",
        "br",
        "code",
        "details",
        "div",
        "em",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "hr",
        "i",
        "img",
        "kbd",
        "li",
        "ol",
        "p",
        "picture",
        "pre",
        "source",
        "span",
        "strong",
        "sub",
        "summary",
        "sup",
        "table",
        "tbody",
        "td",
        "th",
        "thead",
        "tr",
        "ul",
        "blockquote",
        "dl",
        "dt",
        "dd",
        "del",
        "s",
        "u",
    }

    def change(text: str) -> str:
        text = re.sub(
            r"</?([A-Za-z][\w.:-]*)(\s[^<>]*)?/?>",
            lambda m: (
                m.group(0) if m.group(1).lower() in known else m.group(0).replace("<", "&lt;").replace(">", "&gt;")
            ),
            text,
        )
        return text.replace("{{", "&#123;&#123;").replace("}}", "&#125;&#125;")

    return map_prose(body, change)


# --- Build plumbing ----------------------------------------------------------------------------------------------


def reuse(cache: Path, site: BuiltSite) -> BuiltSite | None:
    """``site`` with the truth already built in ``cache/name`` (truth and site folder present), else None."""
    return site if site.read_built() else None


def staging(cache: Path, name: str) -> Path:
    work = cache / f".{name}.partial"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    return work


def finish(site: BuiltSite, work: Path, built: Path) -> BuiltSite:
    """Move the built folder to ``site/``, write the truth, and swap the staging folder into place."""
    final_work = work / "_final"
    final_work.mkdir()
    shutil.move(str(built), str(final_work / SITE_FOLDER))
    target = site.folder
    site.folder = final_work
    site.write_truth()
    site.folder = target
    shutil.rmtree(target, ignore_errors=True)
    final_work.rename(target)
    shutil.rmtree(work, ignore_errors=True)
    missing = [page.path for page in site.pages if not _served_file(target / SITE_FOLDER, page.path).is_file()]
    if missing:
        raise RuntimeError(f"{site.name}: truth pages missing from the built site: {missing[:5]}")
    return site


def _served_file(root: Path, path: str) -> Path:
    local = root / path.lstrip("/")
    return local / "index.html" if path.endswith("/") else local


def npm_tool(cache: Path, name: str, dependencies: dict[str, str]) -> Path:
    """An npm project of the bench's own holding a generator (``<cache>/tools/<name>``); returns its folder."""
    folder = cache / "tools" / name
    folder.mkdir(parents=True, exist_ok=True)
    manifest = json.dumps({"name": f"bench-{name}", "private": True, "dependencies": dependencies}, indent=1)
    stamp = folder / ".installed"
    if stamp.is_file() and stamp.read_text() == manifest:
        return folder
    (folder / "package.json").write_text(manifest)
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder, check=True)
    stamp.write_text(manifest)
    return folder


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed in {cwd}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --- Hugo --------------------------------------------------------------------------------------------------------

HUGO_MARKUP = """
[markup.goldmark.renderer]
  unsafe = true  # raw HTML kept, as CommonMark renders it
[markup.goldmark.extensions]
  typographer = false  # no curly quotes or dashes the source does not have
"""


def patch_templates(layouts: Path, replacements: dict[str, str]) -> None:
    """Old theme templates brought to the Hugo at hand (removed fields renamed)."""
    for path in layouts.rglob("*.html"):
        text = original = path.read_text(encoding="utf-8")
        for old, new in replacements.items():
            text = text.replace(old, new)
        if text != original:
            path.write_text(text, encoding="utf-8")


def build_hugo_learn_docs(cache: Path) -> BuiltSite:
    """fastify's docs (Guides, Reference) on Hugo with hugo-cloudflare-docs, a fork of the Learn docs theme."""
    site = BuiltSite(
        name="hugo-learn-docs",
        generator="hugo",
        theme="hugo-cloudflare-docs",
        folder=cache / "hugo-learn-docs",
        # The theme's home page is a landing page whose links all leave the site; its navigation starts at the guides.
        start_path="/guides/",
        sitemap_path="/sitemap.xml",
    )
    if reuse(cache, site) is not None:
        return site
    ensure_debian_packages("hugo")
    source = npm_package(FASTIFY, cache) / "docs"
    theme_dir = npm_package(CLOUDFLARE_DOCS_THEME, cache)
    work = staging(cache, site.name)
    project = work / "project"
    theme = site.theme
    # revealjs (its slide layout's player, with test pages) is left out: no page here is a slide deck.
    ignored = shutil.ignore_patterns("exampleSite", "node_modules", "revealjs")
    shutil.copytree(theme_dir, project / "themes" / theme, ignore=ignored)
    # The published theme ships its stylesheet as Stylus sources (its gulp build compiles theme.css): compile it.
    stylus = npm_tool(cache, "stylus", {"stylus": "0.64.0"}) / "node_modules" / ".bin" / "stylus"
    css = project / "themes" / theme / "static" / "css"
    run([str(stylus), "--quiet", str(theme_dir / "src" / "styl" / "theme.styl"), "--out", str(css)], cwd=work)
    # The theme predates Hugo 0.111: ``.Hugo`` became the ``hugo`` function, ``.URL`` became ``.RelPermalink``.
    patch_templates(
        project / "themes" / theme / "layouts",
        {".Hugo.Generator": "hugo.Generator", ".URL}}": ".RelPermalink}}", ".UniqueID": ".File.UniqueID"},
    )

    def url_of(rel: str) -> str:
        folder, _, stem = rel.rpartition("/")
        stem = "overview" if stem.lower() in {"index.md"} else stem[:-3]
        return "/" + "/".join(slug(part) for part in [*filter(None, [folder]), stem]) + "/"

    def kind_of(rel: str) -> str:
        return "reference" if rel.startswith("Reference/") else "tutorial" if rel.startswith("Guides/") else "manual"

    docs = docs_from_folder(source, url_of, kind_of)
    for doc in docs:
        # fastify's pages open with a centred "Fastify" banner heading before their own title.
        doc.body = re.sub(r'\A\s*<h1 align="center">Fastify</h1>\s*', "", doc.body)
        if doc.title == "Fastify":
            doc.title, doc.body = take_title(doc.body, doc.title)
    write(
        project / "config.toml",
        f'baseURL = "/"\nlanguageCode = "en-us"\ntitle = "Fastify"\ntheme = "{theme}"\n'
        'disableKinds = ["taxonomy", "term"]\n\n[params]\nordersectionsby = "weight"\n' + HUGO_MARKUP,
    )
    write(
        project / "content" / "_index.md",
        yaml_front_matter({"title": "Fastify documentation"}) + "Fastify's guides and reference.\n",
    )
    for index, section in enumerate(["Guides", "Reference"]):
        write(
            project / "content" / slug(section) / "_index.md",
            yaml_front_matter({"title": section, "weight": index + 1}),
        )
    for weight, doc in enumerate(docs, start=1):
        target = project / "content" / doc.url.strip("/")
        front = {"title": doc.title, "url": doc.url, "weight": weight}
        write(target.with_suffix(".md"), yaml_front_matter(front) + doc.body)
    run(["hugo", "--quiet", "--destination", str(work / "public")], cwd=project)
    site.pages = [TruthPage(path=d.url, title=d.title, text=truth_text(d.title, d.body), kind=d.kind) for d in docs]
    return finish(site, work, work / "public")


# --- Jekyll ------------------------------------------------------------------------------------------------------

JEKYLL_CONFIG = """title: date-fns notes
description: Release notes and guides of date-fns, the JavaScript date utility library.
baseurl: ""
url: ""
theme: minima
markdown: CommonMark
commonmark:
  options: ["UNSAFE"]
  extensions: ["table", "strikethrough", "autolink"]
plugins: [jekyll-feed, jekyll-sitemap, jekyll-commonmark]
header_pages: [about.md, guides.md]
exclude: [Gemfile, Gemfile.lock, vendor]
"""


def build_jekyll_minima(cache: Path) -> BuiltSite:
    """date-fns's release notes as dated posts and its guides as pages, on Jekyll with the minima theme.

    Markdown goes through jekyll-commonmark (CommonMark, as the truth) rather than kramdown, and every document
    has ``render_with_liquid: false`` so that ``{{`` in its prose is text, not Liquid.
    """
    site = BuiltSite(
        name="jekyll-minima",
        generator="jekyll",
        theme="minima",
        folder=cache / "jekyll-minima",
        sitemap_path="/sitemap.xml",
    )
    if reuse(cache, site) is not None:
        return site
    ensure_debian_packages(
        "jekyll",
        "jekyll-theme-minima",
        "ruby-jekyll-feed",
        "ruby-jekyll-sitemap",
        "ruby-jekyll-seo-tag",
        "ruby-jekyll-commonmark",
    )
    package = npm_package(DATE_FNS, cache)
    work = staging(cache, site.name)
    project = work / "project"
    write(project / "_config.yml", JEKYLL_CONFIG)
    guides = docs_from_folder(package / "docs", lambda rel: f"/guides/{slug(rel[:-3])}/", lambda rel: "manual")
    posts = releases(package / "CHANGELOG.md", "date-fns", "iso", limit=60)
    for post in posts:
        post.url = f"/{post.date:%Y/%m/%d}/{slug(post.title)}/" if post.date else ""
        front = {
            "layout": "post",
            "title": post.title,
            "date": f"{post.date:%Y-%m-%d} 12:00:00 +0000",
            "permalink": post.url,
            "render_with_liquid": False,
        }
        write(project / "_posts" / f"{post.date:%Y-%m-%d}-{slug(post.title)}.md", yaml_front_matter(front) + post.body)
    for guide in guides:
        front = {"layout": "page", "title": guide.title, "permalink": guide.url, "render_with_liquid": False}
        write(project / "guides" / f"{slug(guide.rel[:-3])}.md", yaml_front_matter(front) + guide.body)
    # Listings (not truth): the guides' index and an about page for the header, the home page's post list.
    listing = "\n".join(f"- [{g.title}]({g.url})" for g in guides)
    write(
        project / "guides.md",
        yaml_front_matter({"layout": "page", "title": "Guides", "permalink": "/guides/"}) + listing + "\n",
    )
    write(
        project / "about.md",
        yaml_front_matter({"layout": "page", "title": "About", "permalink": "/about/"})
        + "Release notes and guides of date-fns, from its published package.\n",
    )
    write(project / "index.md", yaml_front_matter({"layout": "home"}))
    run(
        ["jekyll", "build", "--quiet", "--destination", str(work / "public")],
        cwd=project,
        env={"JEKYLL_ENV": "production", "LANG": "C.UTF-8"},
    )
    site.pages = [
        TruthPage(path=d.url, title=d.title, text=truth_text(d.title, d.body), kind=d.kind) for d in [*posts, *guides]
    ]
    return finish(site, work, work / "public")


# --- VitePress ---------------------------------------------------------------------------------------------------

GITHUB_ALERT = re.compile(r"^(\s*>\s*)\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*$", re.MULTILINE)


def vitepress_truth_source(body: str) -> str:
    """The body as VitePress shows it: a GitHub alert's ``[!NOTE]`` marker becomes its "NOTE" title."""
    return map_prose(
        body, lambda text: GITHUB_ALERT.sub(lambda m: f"{m.group(1)}{m.group(2)}\n{m.group(1).rstrip()}", text)
    )


def build_vitepress_docs(cache: Path) -> BuiltSite:
    """undici's docs (API reference and best practices) on VitePress's default theme."""
    site = BuiltSite(
        name="vitepress-docs", generator="vitepress", theme="vitepress-default", folder=cache / "vitepress-docs"
    )
    if reuse(cache, site) is not None:
        return site
    tool = npm_tool(cache, "vitepress", VITEPRESS_TOOL)
    source = npm_package(UNDICI, cache) / "docs" / "docs"
    work = staging(cache, site.name)
    project = work / "project"
    (project).mkdir()
    (project / "node_modules").symlink_to(tool / "node_modules")

    def url_of(rel: str) -> str:
        return "/" if rel == "index.md" else "/" + rel[:-3] + ".html"

    def kind_of(rel: str) -> str:
        return "reference" if rel.startswith("api/") else "tutorial" if rel.startswith("best-practices/") else "manual"

    docs = docs_from_folder(source, url_of, kind_of, keep_title=True)
    sidebar: dict[str, list[dict[str, str]]] = {}
    for doc in docs:
        doc.body = escape_pseudo_tags(doc.body)
        write(project / "docs" / doc.rel, doc.body)
        section = {"api": "API", "best-practices": "Best practices"}.get(doc.rel.partition("/")[0], "Guide")
        sidebar.setdefault(section, []).append({"text": doc.title, "link": doc.url})
    config = {
        "title": "undici",
        "description": "An HTTP/1.1 client, written from scratch for Node.js",
        "ignoreDeadLinks": True,
        # markdown-it-attrs would take undici's "Type: {number}" for attributes and drop it: plain Markdown here.
        "markdown": {"attrs": {"disable": True}},
        "themeConfig": {
            "nav": [{"text": "Guide", "link": "/"}, {"text": "API", "link": "/api/Agent.html"}],
            "sidebar": [{"text": k, "items": v} for k, v in sorted(sidebar.items(), key=lambda kv: kv[0] != "Guide")],
            "outline": "deep",
        },
    }
    write(project / "docs" / ".vitepress" / "config.mjs", "export default " + json.dumps(config, indent=1) + "\n")
    run([str(tool / "node_modules" / ".bin" / "vitepress"), "build", "docs"], cwd=project)
    site.pages = [
        TruthPage(path=d.url, title=d.title, text=truth_text(None, vitepress_truth_source(d.body)), kind=d.kind)
        for d in docs
    ]
    return finish(site, work, project / "docs" / ".vitepress" / "dist")


# --- Docusaurus --------------------------------------------------------------------------------------------------

DOCUSAURUS_CONFIG = """// The classic preset: docs and blog. Markdown format "detect": a .md file is CommonMark, not MDX, so its
// braces and angle brackets are text, as in the truth's renderer.
module.exports = {
  title: 'eslint-plugin-import',
  tagline: 'ESLint rules for ES2015+ import/export syntax',
  url: 'http://127.0.0.1',
  baseUrl: '/',
  trailingSlash: true,
  onBrokenLinks: 'warn',
  markdown: {format: 'detect', hooks: {onBrokenMarkdownLinks: 'warn'}},
  presets: [['classic', {
    docs: {routeBasePath: 'docs', sidebarPath: require.resolve('./sidebars.js')},
    blog: {routeBasePath: 'blog', blogTitle: 'Releases', postsPerPage: 10, blogSidebarCount: 15,
           onInlineAuthors: 'ignore', onUntruncatedBlogPosts: 'ignore', feedOptions: {type: 'rss'}},
    theme: {},
  }]],
  themeConfig: {
    navbar: {title: 'eslint-plugin-import', items: [
      {type: 'docSidebar', sidebarId: 'rules', label: 'Rules', position: 'left'},
      {to: '/blog/', label: 'Releases', position: 'left'},
    ]},
    footer: {style: 'dark', copyright: 'Documentation of eslint-plugin-import (MIT).'},
  },
};
"""


def build_docusaurus_docs(cache: Path) -> BuiltSite:
    """eslint-plugin-import's rule docs and its release notes (as a blog) on Docusaurus's classic preset."""
    site = BuiltSite(
        name="docusaurus-docs",
        generator="docusaurus",
        theme="classic",
        folder=cache / "docusaurus-docs",
        sitemap_path="/sitemap.xml",
    )
    if reuse(cache, site) is not None:
        return site
    tool = npm_tool(cache, "docusaurus", DOCUSAURUS_TOOL)
    package = npm_package(ESLINT_IMPORT, cache)
    work = staging(cache, site.name)
    project = work / "project"
    project.mkdir()
    (project / "node_modules").symlink_to(tool / "node_modules")
    write(project / "package.json", json.dumps({"name": "bench-docusaurus-site", "private": True}))
    write(project / "docusaurus.config.js", DOCUSAURUS_CONFIG)
    write(project / "sidebars.js", "module.exports = {rules: [{type: 'autogenerated', dirName: '.'}]};\n")
    # Docusaurus shows a doc's own leading h1 as its title: the body keeps it.
    docs = docs_from_folder(
        package / "docs", lambda rel: f"/docs/{rel[:-3]}/", lambda rel: "reference", keep_title=True
    )
    for doc in docs:
        write(project / "docs" / doc.rel, doc.body)
    posts = releases(package / "CHANGELOG.md", "eslint-plugin-import", "iso", limit=50)
    urls = {f"docs/{doc.rel}": doc.url for doc in docs}
    for post in posts:
        post.body = resolve_links(post.body, "CHANGELOG.md", urls)
        post_slug = slug(post.title)
        post.url = f"/blog/{post_slug}/"
        front = {"title": post.title, "date": f"{post.date:%Y-%m-%d}", "slug": post_slug}
        write(project / "blog" / f"{post.date:%Y-%m-%d}-{post_slug}.md", yaml_front_matter(front) + post.body)
    write(
        project / "src" / "pages" / "index.md",
        yaml_front_matter({"title": "eslint-plugin-import"})
        + "# eslint-plugin-import\n\nThe [rules](/docs/rules/no-unresolved/) and the [releases](/blog/).\n",
    )
    run(
        [str(tool / "node_modules" / ".bin" / "docusaurus"), "build", "--out-dir", str(work / "public")],
        cwd=project,
        env={"DOCUSAURUS_SSR_CONCURRENCY": "2", "NODE_OPTIONS": "--max-old-space-size=4096"},
    )
    site.pages = [TruthPage(path=d.url, title=d.title, text=truth_text(None, d.body), kind=d.kind) for d in docs]
    site.pages += [TruthPage(path=p.url, title=p.title, text=truth_text(p.title, p.body), kind=p.kind) for p in posts]
    return finish(site, work, work / "public")


def build(cache: Path) -> list[BuiltSite]:
    """Build (or reuse from ``cache``) every static site of this module, in order."""
    cache.mkdir(parents=True, exist_ok=True)
    return [builder(cache) for builder in BUILDERS]


BUILDERS: list[Callable[[Path], BuiltSite]] = [
    build_hugo_learn_docs,
    build_jekyll_minima,
    build_vitepress_docs,
    build_docusaurus_docs,
]


def main(argv: list[str] | None = None) -> int:
    """Build the sites and print, for each, its truth pages and words."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cache", type=Path, required=True, help="cache folder: downloads, tools and built sites")
    parser.add_argument("--only", nargs="*", help="build only these site names")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    for builder in BUILDERS:
        if args.only and not any(builder.__name__ == "build_" + n.replace("-", "_") for n in args.only):
            continue
        start = time.monotonic()
        site = builder(args.cache.resolve())
        words = sum(len(page.text.split()) for page in site.pages)
        print(
            f"{site.name}\t{site.generator}/{site.theme}\t{len(site.pages)} pages\t{words} words\t{time.monotonic() - start:.1f} s"
        )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
