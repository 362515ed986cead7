"""Dynamic websites of the real-websites bench: two WordPress blogs and a MediaWiki, built offline from Debian packages.

* ``wordpress-classic``: Debian's WordPress 6.1 on MariaDB with the classic theme Twenty Twenty (Debian 11's
  ``wordpress-theme-twentytwenty``: Debian 12 ships only block themes and Twenty Twenty-One), classic HTML posts with
  aligned images and ``[caption]`` shortcodes. Content: HTTPX's changelog (one post per release) and README.
* ``wordpress-blocks``: the same with the block theme Twenty Twenty-Three and block-editor markup (paragraphs,
  headings, lists, quotes, captioned images, galleries, tables, code, separators, columns). Content: axios's
  changelogs (1.x and 0.x, one post per release) and README sections as pages.
* ``mediawiki``: Debian's MediaWiki 1.39 on SQLite with short URLs (/wiki/Title), articles converted from
  Python-Markdown's documentation by pandoc and imported with maintenance/importTextFiles.php.

The code trees are copied from /usr/share into ``<cache>/<name>/site``; the databases live beside it (MariaDB's data
folder ``<cache>/<name>/mariadb``, MediaWiki's SQLite folder ``<cache>/<name>/mwdata``). ``BuiltSite.serve`` starts
MariaDB (WordPress) and ``php -S`` on free loopback ports and yields the base URL; the sites take their host from the
environment (WP_HOME/WP_SITEURL and $wgServer), so any port works. The processes and WordPress's install and
content scripts are corpus_pipeline_tests/support/wordpress.py's, which the suite's WordPress test runs too.

Truth: a document's title, then its content as the CMS itself renders it (WordPress's ``the_content`` filters in PHP,
MediaWiki's parser through api.php without table of contents and section edit links) read by ``fragment_text``.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from lxml import html as lxml_html

from benchmarks.sites.real.model import BuiltSite, TruthPage
from benchmarks.sites.real.sources import ensure_debian_packages, npm_package, pypi_sdist
from benchmarks.sites.real.truth import fragment_text, strip_front_matter
from corpus_pipeline_tests.support.wordpress import (
    LOOPBACK,
    WordPressFolder,
    copy_tree,
    free_port,
    install_wordpress,
    load_content,
    new_wordpress,
    run_php,
    running_mariadb,
    running_php,
)
from corpus_pipeline_tests.support.wordpress import serve_wordpress as serve_wordpress_on

HERE = Path(__file__).resolve().parent
PHP_DIR = HERE / "cms"  # MediaWiki's router; WordPress's PHP scripts are the shared harness's (wordpress_php/)
MEDIAWIKI_SOURCE = Path("/usr/share/mediawiki")
DEBIAN_PACKAGES = (
    "wordpress", "wordpress-theme-twentytwentythree", "mediawiki", "mariadb-server", "mariadb-client",
    "php-cli", "php-mysql", "php-sqlite3", "php-gd", "php-intl", "php-mbstring", "php-xml", "pandoc",
)
PERMALINKS = "/%year%/%monthnum%/%day%/%postname%/"
# Debian 12 ships no classic default theme but Twenty Twenty-One; Debian 11's archive still has Twenty Twenty.
CLASSIC_THEME_DEB = ("wordpress-theme-twentytwenty", "bullseye")
SITEMAP_PLACEHOLDER = "http://sitemap.invalid"  # mw_router.php swaps it for the served host
HTTPX_VERSION = "0.25.2"
AXIOS_VERSIONS = ("1.6.2", "0.27.2")
MARKDOWN_VERSION = "3.5.2"


# ---------------------------------------------------------------------------------------------------------------
# Content: Markdown from published packages, split into documents


@dataclass
class Document:
    """A post or page to insert into WordPress (its content as stored, with %%URL:key%% / %%ID:key%% image refs)."""

    key: str
    type: str  # "post" or "page"
    kind: str  # the TruthPage kind
    title: str
    slug: str
    date: datetime
    content: str = ""
    markdown: str = ""
    categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    featured: str | None = None
    comments: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Image:
    key: str
    file: Path
    title: str
    alt: str
    caption: str
    date: datetime
    width: int
    height: int


MONTHS = {name: i for i, name in enumerate(
    "january february march april may june july august september october november december".split(), 1)}


def parse_date(text: str) -> datetime | None:
    """The release date written in a changelog heading: 2023-11-14, 24th November, 2023, April 27, 2022."""
    if match := re.search(r"(\d{4})-(\d{2})-(\d{2})", text):
        return datetime(int(match[1]), int(match[2]), int(match[3]))
    if match := re.search(r"(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]+),?\s+(\d{4})", text):
        if (month := MONTHS.get(match[2].lower())) is not None:
            return datetime(int(match[3]), month, int(match[1]))
    if match := re.search(r"([A-Za-z]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})", text):
        month = next((number for name, number in MONTHS.items() if len(match[1]) >= 3
                      and name.startswith(match[1].lower())), None)
        if month is not None:
            return datetime(int(match[3]), month, int(match[2]))
    return None


def split_sections(markdown: str, level: int) -> list[tuple[str, str]]:
    """(heading text, body) of each ATX heading of ``level`` or above (outside code fences), text before the first
    dropped: a changelog whose releases are at levels 1 and 2 alike splits at every release."""
    sections: list[tuple[str, list[str]]] = []
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if match and len(match[1]) <= level:
            sections.append((match[2], []))
        elif sections:
            sections[-1][1].append(line)
    return [(heading, "\n".join(body).strip()) for heading, body in sections]


def render_markdown(source: str) -> str:
    """Markdown to an HTML fragment (CommonMark, tables, strikethrough), its images removed.

    The sites are served offline: a README's badges, logos and contributors' avatars point at hosts (or repository
    files) the site does not have; the bench's own images are added as attachments instead.
    """
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(
        strip_front_matter(source))
    return re.sub(r"<img\b[^>]*>", "", rendered)


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80] or "untitled"


def make_images(folder: Path, wanted: list[tuple[str, str, datetime]]) -> dict[str, Image]:
    """Small PNG illustrations (a gradient, shapes and the title) to upload as attachments, by (key, title, date)."""
    from PIL import Image as PILImage
    from PIL import ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    palette = [(38, 70, 83), (42, 157, 143), (233, 196, 106), (244, 162, 97), (231, 111, 81), (69, 123, 157)]
    images = {}
    for index, (key, title, date) in enumerate(wanted):
        width, height = 640, 400
        picture = PILImage.new("RGB", (width, height))
        draw = ImageDraw.Draw(picture)
        top, bottom = palette[index % len(palette)], palette[(index + 2) % len(palette)]
        for y in range(height):
            mix = y / height
            draw.line([(0, y), (width, y)], fill=tuple(int(a + (b - a) * mix) for a, b in zip(top, bottom)))
        for shape in range(4):
            x, y = 60 + (index * 37 + shape * 131) % 480, 40 + (index * 53 + shape * 71) % 260
            draw.ellipse([x, y, x + 70 + shape * 10, y + 70 + shape * 10], outline=(255, 255, 255), width=4)
        draw.text((24, height - 40), title[:70], fill=(255, 255, 255))
        path = folder / f"{slugify(title)[:40]}-{key}.png"
        picture.save(path, optimize=True)
        images[key] = Image(key=key, file=path, title=title, alt=f"Illustration for {title}",
                            caption=f"Illustration: {title}", date=date, width=width, height=height)
    return images


COMMENTERS = ["Ada Marsh", "Jonas Ebert", "Priya Natarajan", "Lucía Romero", "Tomás Novak", "Mei Lin"]
COMMENT_LINES = [
    "Thanks for the detailed notes, upgrading now.",
    "The fixes listed here solved the problem we had in production.",
    "Is there a migration guide for this release?",
    "Great work on this one, the changelog is very clear.",
    "We hit a regression after updating; the next release fixed it.",
]


def _comments(index: int, date: datetime) -> list[dict[str, str]]:
    if index % 9 != 4:
        return []
    return [{"author": COMMENTERS[(index + n) % len(COMMENTERS)], "text": COMMENT_LINES[(index + n) % len(COMMENT_LINES)],
             "date": (date + timedelta(days=n + 1, hours=3)).strftime("%Y-%m-%d %H:%M:%S")}
            for n in range(1 + index % 3)]


def _release_posts(sections: list[tuple[str, str]], product: str, key_prefix: str,
                   first_date: datetime) -> list[Document]:
    """One post per changelog section (newest first in the file), dated by its heading."""
    posts: list[Document] = []
    fallback = first_date
    for heading, body in sections:
        version_match = re.search(r"v?(\d+\.\d+(?:\.\d+)?(?:[-.]\w+)?)", heading)
        if not version_match or not body.strip():
            continue
        version = version_match[1]
        date = parse_date(heading) or fallback - timedelta(days=20)
        fallback = date
        subsections = sorted({h.strip().lower() for h in re.findall(r"^#{3,4}\s+(.+)$", body, re.M)})
        major_minor = ".".join(version.split(".")[:2])
        posts.append(Document(
            key=f"{key_prefix}-{slugify(version)}", type="post", kind="release-notes",
            title=f"{product} {version}", slug=f"{slugify(product)}-{slugify(version)}",
            date=date.replace(hour=9) + timedelta(minutes=len(posts)), markdown=body,
            categories=["Release notes", f"{product} {major_minor}"],
            tags=[t for t in subsections if len(t) < 30][:6] or ["maintenance"],
        ))
    return posts


def httpx_documents(cache: Path) -> list[Document]:
    """HTTPX's CHANGELOG (one post per release, 2019–2023) and README as pages: wordpress-classic's content."""
    sdist = pypi_sdist("httpx", HTTPX_VERSION, cache / "sources")
    changelog = (sdist / "CHANGELOG.md").read_text(encoding="utf-8")
    posts = _release_posts(split_sections(changelog, 2), "HTTPX", "httpx", datetime(2023, 12, 1))
    readme = (sdist / "README.md").read_text(encoding="utf-8")
    pages = [Document(key="httpx-about", type="page", kind="page", title="About HTTPX", slug="about",
                      date=datetime(2019, 6, 1, 12), markdown=re.sub(r"\A.*?\n(?=\S)", "", readme, count=1)),
             Document(key="httpx-license", type="page", kind="page", title="License", slug="license",
                      date=datetime(2019, 6, 1, 12, 5), markdown=(sdist / "LICENSE.md").read_text(encoding="utf-8"))]
    for index, post in enumerate(posts):
        post.comments = _comments(index, post.date)
    return posts + pages


def axios_documents(cache: Path) -> list[Document]:
    """axios's changelogs (1.x and 0.x) as posts and its README's sections as pages: wordpress-blocks' content."""
    new = npm_package(f"axios@{AXIOS_VERSIONS[0]}", cache / "sources")
    old = npm_package(f"axios@{AXIOS_VERSIONS[1]}", cache / "sources")
    posts = _release_posts(split_sections((new / "CHANGELOG.md").read_text(encoding="utf-8"), 2),
                           "axios", "axios", datetime(2023, 12, 1))
    old_posts = _release_posts(split_sections((old / "CHANGELOG.md").read_text(encoding="utf-8"), 3),
                               "axios", "axios", datetime(2022, 5, 1))
    # The 0.x changelog has 57 releases since 2014: every other one keeps the site under 100 documents.
    posts += old_posts[::2]
    by_slug: dict[str, Document] = {}
    for post in sorted(posts, key=lambda p: p.date, reverse=True):
        by_slug.setdefault(post.slug, post)
    posts = list(by_slug.values())
    pages = []
    readme = (new / "README.md").read_text(encoding="utf-8")
    for index, (heading, body) in enumerate(split_sections(readme, 2)):
        if len(body) < 300 or "table of contents" in heading.lower():
            continue  # badges, credits, and the README's own contents list (anchors of one long page)
        title = re.sub(r"[`*_]|\[([^]]*)\]\([^)]*\)", r"\1", heading).strip()
        pages.append(Document(key=f"axios-guide-{index}", type="page", kind="manual", title=title,
                              slug=slugify(title), date=datetime(2023, 11, 20, 12) + timedelta(minutes=index),
                              markdown=body))
    for name, title in (("MIGRATION_GUIDE.md", "Migration guide"), ("SECURITY.md", "Security policy")):
        if (new / name).is_file():
            pages.append(Document(key=f"axios-{slugify(title)}", type="page", kind="manual", title=title,
                                  slug=slugify(title), date=datetime(2023, 11, 21, 12),
                                  markdown=re.sub(r"\A#\s.*\n", "", (new / name).read_text(encoding="utf-8"))))
    for index, post in enumerate(posts):
        post.comments = _comments(index, post.date)
    return posts + pages


# ---------------------------------------------------------------------------------------------------------------
# WordPress markup: classic HTML with [caption] shortcodes, and block-editor markup


def classic_content(doc: Document, index: int, images: dict[str, Image]) -> str:
    """The Markdown as classic-editor HTML; some posts get an aligned, captioned image or a plain aligned one."""
    body = render_markdown(doc.markdown)
    image = images.get(f"c{index:03d}")
    if image is None:
        return body
    width, height = image.width // 2, image.height // 2
    tag = (f'<img class="size-medium wp-image-%%ID:{image.key}%%" src="%%URL:{image.key}%%" alt="{html.escape(image.alt)}"'
           f' width="{width}" height="{height}" />')
    if index % 2 == 0:
        figure = (f'[caption id="attachment_%%ID:{image.key}%%" align="{"alignright" if index % 4 == 0 else "alignleft"}"'
                  f' width="{width}"]{tag} {html.escape(image.caption)}[/caption]\n\n')
    else:
        centered = tag.replace('class="', 'class="aligncenter ', 1)
        figure = f"<p>{centered}</p>\n\n"
    # After the first paragraph or list, as an author would place it.
    cut = re.search(r"</(?:p|ul|ol)>\n", body)
    return body[:cut.end()] + figure + body[cut.end():] if cut else figure + body


def _block(name: str, inner: str, attrs: dict | None = None) -> str:
    # An attachment ID is a number in block attributes: its placeholder goes in unquoted.
    attributes = re.sub(r'"(%%ID:[\w-]+%%)"', r"\1", f" {json.dumps(attrs, separators=(',', ':'))}") if attrs else ""
    return f"<!-- wp:{name}{attributes} -->\n{inner}\n<!-- /wp:{name} -->"


def _outer(element: lxml_html.HtmlElement) -> str:
    return lxml_html.tostring(element, encoding="unicode", with_tail=False).strip()


def _inner(element: lxml_html.HtmlElement) -> str:
    return (html.escape(element.text or "", quote=False)
            + "".join(lxml_html.tostring(child, encoding="unicode") for child in element)).strip()


def element_block(element: lxml_html.HtmlElement) -> str:
    """One top-level HTML element as the block the block editor would store for it."""
    tag = element.tag
    if tag == "p":
        return _block("paragraph", _outer(element))
    if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
        level = int(tag[1])
        element.set("class", "wp-block-heading")
        return _block("heading", _outer(element), None if level == 2 else {"level": level})
    if tag in {"ul", "ol"}:
        return _block("list", _outer(element), {"ordered": True} if tag == "ol" else None)
    if tag == "blockquote":
        paragraphs = [child for child in element if isinstance(child.tag, str)]
        inner = "\n".join(element_block(child) for child in paragraphs) or _block("paragraph", f"<p>{_inner(element)}</p>")
        return _block("quote", f'<blockquote class="wp-block-quote">{inner}</blockquote>')
    if tag == "pre":
        code = element.text_content()
        return _block("code", f'<pre class="wp-block-code"><code>{html.escape(code, quote=False)}</code></pre>')
    if tag == "table":
        return _block("table", f'<figure class="wp-block-table">{_outer(element)}</figure>')
    if tag == "hr":
        return _block("separator", '<hr class="wp-block-separator has-alpha-channel-opacity"/>')
    return _block("html", _outer(element))


def image_block(image: Image, caption: bool = True) -> str:
    caption_html = f'<figcaption class="wp-element-caption">{html.escape(image.caption)}</figcaption>' if caption else ""
    return _block("image", f'<figure class="wp-block-image size-large"><img src="%%URL:{image.key}%%" '
                           f'alt="{html.escape(image.alt)}" class="wp-image-%%ID:{image.key}%%"/>{caption_html}</figure>',
                  {"id": f"%%ID:{image.key}%%", "sizeSlug": "large", "linkDestination": "none"})


def blocks_content(doc: Document, index: int, images: dict[str, Image]) -> str:
    """The Markdown as block-editor markup, with captioned images, galleries, columns and separators mixed in."""
    rendered = render_markdown(doc.markdown)
    if not rendered.strip():
        return ""
    root = lxml_html.fragment_fromstring(rendered, create_parent="div")
    blocks = [element_block(child) for child in root if isinstance(child.tag, str)]
    own = [images[k] for k in (f"b{index:03d}", f"b{index:03d}x", f"b{index:03d}y") if k in images]
    if own and index % 3 == 0:
        blocks.insert(min(1, len(blocks)), image_block(own[0]))
    if len(own) == 3 and index % 3 == 1:
        gallery = "\n".join(image_block(image, caption=n == 0) for n, image in enumerate(own))
        blocks.append(_block("gallery", '<figure class="wp-block-gallery has-nested-images columns-default is-cropped">'
                                        f"{gallery}</figure>", {"linkTo": "none"}))
    text_blocks = [n for n, b in enumerate(blocks) if b.startswith(("<!-- wp:paragraph", "<!-- wp:list"))]
    if own and index % 3 == 2 and text_blocks:
        # Two columns: the first paragraph or list beside an illustration.
        first = text_blocks[0]
        columns = (_block("column", f'<div class="wp-block-column">{blocks[first]}</div>')
                   + "\n" + _block("column", f'<div class="wp-block-column">{image_block(own[0])}</div>'))
        blocks[first] = _block("columns", f'<div class="wp-block-columns">{columns}</div>')
    if index % 4 == 1:
        # A separator before each heading but an opening one, as long posts have.
        for position in range(len(blocks) - 1, 0, -1):
            if blocks[position].startswith("<!-- wp:heading"):
                blocks.insert(position, element_block(lxml_html.fragment_fromstring("<hr/>")))
    return "\n\n".join(blocks)


# ---------------------------------------------------------------------------------------------------------------
# WordPress


@dataclass(frozen=True)
class WordPressSpec:
    name: str
    theme: str
    title: str
    documents: Callable[[Path], list[Document]]
    blocks: bool


WORDPRESS_SITES = (
    WordPressSpec("wordpress-classic", "twentytwenty", "HTTPX Release Journal", httpx_documents, blocks=False),
    WordPressSpec("wordpress-blocks", "twentytwentythree", "The axios Logbook", axios_documents, blocks=True),
)


def debian_archive_deb(package: str, suite: str, cache: Path) -> Path:
    """A .deb of another Debian release, downloaded by apt with a private source list (the system's is untouched)."""
    folder = cache / "apt" / suite
    found = sorted(folder.glob(f"{package}_*.deb"))
    if found:
        return found[-1]
    (folder / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (folder / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    sources = folder / "sources.list"
    sources.write_text(f"deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
                       f"http://deb.debian.org/debian {suite} main\n")
    options = ["-o", f"Dir::Etc::sourcelist={sources}", "-o", "Dir::Etc::sourceparts=/nonexistent",
               "-o", f"Dir::State::Lists={folder / 'lists'}", "-o", f"Dir::Cache={folder}",
               "-o", "APT::Sandbox::User=root"]
    subprocess.run(["apt-get", *options, "update", "-qq"], check=True, capture_output=True, timeout=600)
    subprocess.run(["apt-get", *options, "download", package], check=True, capture_output=True, cwd=folder,
                   timeout=600)
    return sorted(folder.glob(f"{package}_*.deb"))[-1]


def serve_wordpress(folder: Path) -> Callable[[], AbstractContextManager[str]]:
    """The serve factory of a built WordPress: MariaDB, then php -S with the router; yields the base URL."""

    @contextmanager
    def serve() -> Iterator[str]:
        site = WordPressFolder(folder)
        with running_mariadb(site.datadir) as database, serve_wordpress_on(site, database) as base:
            yield base

    return serve


def build_wordpress(spec: WordPressSpec, cache: Path) -> BuiltSite:
    """The WordPress website of ``spec`` under ``cache``, built (installed, themed, filled) unless it is there."""
    folder = cache / spec.name
    site = BuiltSite(name=spec.name, generator="wordpress", theme=spec.theme, folder=folder, start_path="/",
                     sitemap_path="/wp-sitemap.xml", serve=serve_wordpress(folder))
    if site.read_built():
        return site
    shutil.rmtree(folder, ignore_errors=True)
    from_archive = spec.theme == CLASSIC_THEME_DEB[0].removeprefix("wordpress-theme-")
    wordpress = new_wordpress(folder, themes=() if from_archive else (spec.theme,))
    if from_archive:
        deb = debian_archive_deb(*CLASSIC_THEME_DEB, cache)
        unpacked = folder / "theme-deb"
        subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
        shutil.copytree(unpacked / "usr/share/wordpress/wp-content/themes" / spec.theme,
                        wordpress.root / "wp-content" / "themes" / spec.theme, symlinks=False,
                        ignore_dangling_symlinks=True)
        shutil.rmtree(unpacked)

    documents = spec.documents(cache)
    posts = [d for d in documents if d.type == "post"]
    # Which posts get pictures: every post of the block site (an image, a gallery or columns, by turns), a third of
    # the classic one's (captioned or plain aligned), and a featured image on every fourth post of both.
    wanted: list[tuple[str, str, datetime]] = []
    for index, post in enumerate(posts):
        if spec.blocks:
            keys = [f"b{index:03d}"] + ([f"b{index:03d}x", f"b{index:03d}y"] if index % 3 == 1 else [])
        else:
            keys = [f"c{index:03d}"] if index % 3 == 0 else []
        keys += [f"f{index:03d}"] if index % 4 == 0 else []  # featured image
        wanted += [(key, post.title, post.date) for key in keys]
    images = make_images(folder / "images", wanted)
    for index, post in enumerate(posts):
        post.featured = f"f{index:03d}" if f"f{index:03d}" in images else None
        post.content = (blocks_content if spec.blocks else classic_content)(post, index, images)
    for index, page in enumerate(d for d in documents if d.type == "page"):
        page.content = blocks_content(page, 1000 + index, images) if spec.blocks else render_markdown(page.markdown)

    spec_file = folder / "content.json"
    spec_file.write_text(json.dumps({
        "images": {key: {"file": str(image.file), "title": image.title, "alt": image.alt, "caption": image.caption,
                         "date": image.date.strftime("%Y-%m-%d %H:%M:%S"),
                         "date_folder": image.date.strftime("%Y/%m")} for key, image in images.items()},
        "documents": [{"key": d.key, "type": d.type, "title": d.title, "slug": d.slug,
                       "date": d.date.strftime("%Y-%m-%d %H:%M:%S"), "content": d.content,
                       "categories": d.categories, "tags": d.tags, "featured": d.featured,
                       "comments": d.comments} for d in documents],
    }, ensure_ascii=False))
    result_file = folder / "rendered.json"
    with running_mariadb(wordpress.datadir) as database:
        install_wordpress(wordpress, database, spec.title, spec.theme, PERMALINKS)
        load_content(wordpress, database, spec_file, result_file)
    kinds = {d.key: d.kind for d in documents}
    for row in json.loads(result_file.read_text(encoding="utf-8")):
        title = fragment_text(f"<p>{row['title']}</p>")
        body = fragment_text(row["html"])
        site.pages.append(TruthPage(path=row["path"], title=title, text=f"{title}\n\n{body}".strip(),
                                    kind=kinds[row["key"]]))
    site.write_truth()
    return site


# ---------------------------------------------------------------------------------------------------------------
# MediaWiki


def markdown_articles(cache: Path) -> list[tuple[str, str, str]]:
    """(title, category, Markdown) of each page of Python-Markdown's documentation: the wiki's content.

    Links between the documents (``../reference.md#extensions``) become links to the articles, and the admonitions
    (``!!! note``) quotes, so that pandoc's wikitext reads as the documentation does.
    """
    sdist = pypi_sdist("Markdown", MARKDOWN_VERSION, cache / "sources")
    docs = sdist / "docs"
    found: list[tuple[Path, str, str, str]] = []  # (source file, title, category, Markdown)
    for path in sorted(docs.rglob("*.md")):
        source = path.read_text(encoding="utf-8")
        meta = re.match(r"\A((?:[A-Za-z_]+:.*\n)+)\n", source)
        title = None
        if meta:
            title = next((line.split(":", 1)[1].strip() for line in meta[1].splitlines()
                          if line.lower().startswith("title:")), None)
            source = source[meta.end():]
        # The document's own first-level heading repeats the title the wiki shows above the article.
        heading = re.match(r"\A\s*(?:#\s+(.+)\n|(.+)\n=+\s*\n)", source)
        if heading:
            title = title or (heading[1] or heading[2]).strip()
            source = source[heading.end():]
        relative = path.relative_to(docs)
        title = (title or path.stem.replace("_", " ").title()).replace("_", " ")
        category = {"extensions": "Extensions", "change_log": "Release notes"}.get(relative.parts[0], "Documentation")
        if path.name == "changelog.md":
            # One article per minor series: the full changelog is a long list of releases.
            series: dict[str, list[str]] = {}
            for release, body in split_sections(source, 2):
                if number := re.search(r"\d+\.\d+", release):
                    series.setdefault(number[0], []).append(f"## {release}\n\n{body}\n")
            for minor, parts in series.items():
                found.append((path, f"Changes in Python-Markdown {minor}", "Release notes", "\n".join(parts)))
            continue
        found.append((path, title, category, source))
    for name, title in (("README.md", "About Python-Markdown"), ("INSTALL.md", "Installing from source")):
        source = (sdist / name).read_text(encoding="utf-8")
        found.append((sdist / name, title, "Documentation", re.sub(r"\A\s*(?:#\s+.+\n|.+\n=+\s*\n)", "", source)))
    seen: set[str] = set()
    titles: dict[Path, str] = {}
    unique: list[tuple[Path, str, str, str]] = []
    for path, title, category, source in found:
        title = title.replace("#", "").replace("/", " ").strip()
        while title in seen:
            title += " (2)"
        seen.add(title)
        titles.setdefault(path.resolve(), title)
        unique.append((path, title, category, source))

    articles = []
    for path, title, category, source in unique:
        source = re.sub(r"\]\((?!https?:)(([^)\s#]+\.md))(#[^)\s]*)?\)", _article_link(titles, path.parent), source)
        articles.append((title, category, admonitions_as_quotes(source)))
    return articles


def _article_link(titles: dict[Path, str], folder: Path) -> Callable[[re.Match[str]], str]:
    """A link to another document of the docs as a link to its article (an unknown target stays as it is)."""

    def link(match: re.Match[str]) -> str:
        target = titles.get((folder / match[2]).resolve())
        if target is None:
            return match[0]
        return f"]({target.replace(' ', '_')}{match[3] or ''})"

    return link


def admonitions_as_quotes(markdown: str) -> str:
    """Python-Markdown's ``!!! type "Title"`` blocks (title, then an indented body) as Markdown block quotes."""
    lines = markdown.splitlines()
    out: list[str] = []
    index = 0
    while index < len(lines):
        match = re.match(r'^!!!\s+([\w-]+)(?:\s+"([^"]*)")?\s*$', lines[index])
        if not match:
            out.append(lines[index])
            index += 1
            continue
        out.append(f"> **{match[2] if match[2] is not None else match[1].capitalize()}**")
        out.append(">")
        index += 1
        while index < len(lines) and (lines[index].startswith("    ") or not lines[index].strip()):
            if not lines[index].strip() and (index + 1 >= len(lines) or not lines[index + 1].startswith("    ")):
                break
            out.append(("> " + lines[index][4:]).rstrip())
            index += 1
    return "\n".join(out) + "\n"


def pandoc_wikitext(markdown: str) -> str:
    """Markdown as MediaWiki wikitext (pandoc); code blocks as <pre>, as the wiki has no SyntaxHighlight extension."""
    result = subprocess.run(["pandoc", "--from", "markdown-smart", "--to", "mediawiki", "--wrap", "none"],
                            input=markdown, capture_output=True, text=True, check=True, timeout=120)
    wikitext = re.sub(r"<syntaxhighlight[^>]*>", "<pre>", result.stdout)
    return wikitext.replace("</syntaxhighlight>", "</pre>")


MW_SETTINGS = """
# --- the bench's settings (benchmarks/sites/real/generators/cms_sites.py) ---
# The host comes from the environment: the site is served on whatever free port php -S gets.
$wgServer = getenv('MW_BENCH_SERVER') ?: 'http://127.0.0.1';
$wgCanonicalServer = $wgServer;
$wgScriptPath = '';
$wgArticlePath = '/wiki/$1';
$wgUsePathInfo = true;
$wgEnableUploads = false;
$wgEnableEmail = false;
$wgMainCacheType = CACHE_NONE;
$wgDefaultSkin = 'vector';
$wgShowExceptionDetails = true;
$wgRateLimits = [];
"""


def serve_mediawiki(folder: Path) -> Callable[[], AbstractContextManager[str]]:
    """The serve factory of the built MediaWiki: php -S with the short-URL router; yields the base URL."""

    @contextmanager
    def serve() -> Iterator[str]:
        port = free_port()
        env = {"MW_BENCH_SERVER": f"http://{LOOPBACK}:{port}"}
        with running_php(folder / "site", PHP_DIR / "mw_router.php", env, port) as base:
            yield base

    return serve


def _api(base: str, **params: str) -> dict:
    query = urllib.parse.urlencode({**params, "format": "json", "formatversion": "2"})
    with urllib.request.urlopen(f"{base}/api.php?{query}", timeout=120) as response:
        answer = json.load(response)
    if "error" in answer:
        raise RuntimeError(f"api.php {params}: {answer['error']}")
    return answer


def build_mediawiki(cache: Path) -> BuiltSite:
    """The MediaWiki website under ``cache``, built (installed, articles imported) unless it is there."""
    name = "mediawiki"
    folder = cache / name
    site = BuiltSite(name=name, generator="mediawiki", theme="vector", folder=folder, start_path="/wiki/Main_Page",
                     sitemap_path="/sitemap/sitemap-index-wiki.xml", serve=serve_mediawiki(folder))
    if site.read_built():
        return site
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    root = site.root
    copy_tree(MEDIAWIKI_SOURCE, root, {"LocalSettings.php", "extensions", "extensions-core", "images", "config",
                                        "mw-config"})
    for empty in ("extensions", "images", "cache"):
        (root / empty).mkdir()
    data = folder / "mwdata"
    data.mkdir()
    env = {"MW_BENCH_SERVER": f"http://{LOOPBACK}"}
    password = "Bench-" + secrets.token_hex(10)
    run_php(root / "maintenance" / "install.php",
            ["--dbtype=sqlite", f"--dbpath={data}", "--dbname=benchwiki", f"--server=http://{LOOPBACK}",
             "--scriptpath=", "--lang=en", f"--pass={password}", "--skins=Vector", "Python-Markdown Wiki", "Editor"],
            root, env, "MediaWiki install")
    with (root / "LocalSettings.php").open("a", encoding="utf-8") as settings:
        settings.write(MW_SETTINGS)

    articles = markdown_articles(cache)
    pages_dir = folder / "wikitext"
    pages_dir.mkdir()
    for title, category, source in articles:
        wikitext = pandoc_wikitext(source).strip() + f"\n\n[[Category:{category}]]\n"
        (pages_dir / f"{title}.txt").write_text(wikitext, encoding="utf-8")
    # The main page lists every article, by category: a reader's (and a crawler's) way in.
    by_category: dict[str, list[str]] = {}
    for title, category, _ in articles:
        by_category.setdefault(category, []).append(title)
    main = ["This wiki holds the documentation of Python-Markdown, converted from its Markdown sources.", ""]
    for category, titles in by_category.items():
        main += [f"== {category} ==", *[f"* [[{t}]]" for t in titles], ""]
    (folder / "Main Page.txt").write_text("\n".join(main), encoding="utf-8")
    files = [str(pages_dir / f"{title}.txt") for title, _, _ in articles]
    run_php(root / "maintenance" / "importTextFiles.php", ["--user=Editor", "--summary=Imported from Markdown", *files],
            root, env, "importTextFiles")
    run_php(root / "maintenance" / "importTextFiles.php", ["--user=Editor", "--overwrite", "--summary=Index",
                                                           str(folder / "Main Page.txt")], root, env, "main page")
    run_php(root / "maintenance" / "runJobs.php", [], root, env, "runJobs")
    sitemap = root / "sitemap"
    sitemap.mkdir()
    run_php(root / "maintenance" / "generateSitemap.php",
            [f"--fspath={sitemap}", "--urlpath=/sitemap/", "--compress=no", "--identifier=wiki"],
            root, {"MW_BENCH_SERVER": SITEMAP_PLACEHOLDER}, "generateSitemap")

    with serve_mediawiki(folder)() as base:
        for title, _, _ in articles:
            info = _api(base, action="query", prop="info", inprop="url", titles=title)["query"]["pages"][0]
            if info.get("missing"):
                raise RuntimeError(f"article {title!r} was not imported")
            parsed = _api(base, action="parse", pageid=str(info["pageid"]), prop="text|displaytitle",
                          disableeditsection="1", disabletoc="1", disablelimitreport="1")["parse"]
            shown = fragment_text(f"<p>{parsed['displaytitle']}</p>")
            body = fragment_text(_strip_wiki_chrome(parsed["text"]))
            path = urllib.parse.urlsplit(info["fullurl"]).path
            site.pages.append(TruthPage(path=path, title=shown, text=f"{shown}\n\n{body}".strip(), kind="wiki"))
    site.write_truth()
    return site


def _strip_wiki_chrome(fragment: str) -> str:
    """Parser output without what is not the article: TOC, [edit] links, and the hidden parser report comment."""
    root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    for element in root.xpath('//*[@id="toc" or contains(@class, "toc") or contains(@class, "mw-editsection")]'):
        element.drop_tree()
    return lxml_html.tostring(root, encoding="unicode")


# ---------------------------------------------------------------------------------------------------------------


def build(cache: Path) -> list[BuiltSite]:
    """Build (or reuse) wordpress-classic, wordpress-blocks and mediawiki under ``cache``."""
    ensure_debian_packages(*DEBIAN_PACKAGES)
    cache.mkdir(parents=True, exist_ok=True)
    sites = [build_wordpress(spec, cache) for spec in WORDPRESS_SITES]
    sites.append(build_mediawiki(cache))
    return sites


def main() -> None:
    parser = argparse.ArgumentParser(description="Build the bench's WordPress and MediaWiki sites (and serve one).")
    parser.add_argument("--cache", type=Path, required=True, help="folder holding the built sites")
    parser.add_argument("--serve", metavar="NAME", help="serve this site until Ctrl-C")
    args = parser.parse_args()
    sites = build(args.cache.resolve())
    for site in sites:
        print(f"{site.name}: {len(site.pages)} documents in {site.folder}")
    if args.serve:
        chosen = next((s for s in sites if s.name == args.serve), None)
        if chosen is None or chosen.serve is None:
            parser.error(f"no dynamic site named {args.serve!r}")
        site = chosen
        serve = chosen.serve
        # SIGINT and SIGTERM both end the serve cleanly (a background job may start with SIGINT ignored).
        stop = threading.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
        with serve() as base:
            print(f"{site.name} served at {base}{site.start_path} (sitemap {base}{site.sitemap_path}); Ctrl-C stops")
            sys.stdout.flush()
            stop.wait()


if __name__ == "__main__":
    main()
