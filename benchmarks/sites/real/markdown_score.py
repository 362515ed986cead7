"""The Markdown score of issue 45: our ``markdown`` column against the Markdown source of each document.

For the websites whose sources are Markdown (Hugo, Jekyll, VitePress, Docusaurus, MkDocs here, and the two blind blogs,
whose posts, docs and README are rebuilt from their project's sdist as their generator wrote them), each truth document
is matched to its source file (the bench's generators keep their packages in the cache; a document is matched by its
truth text, which the generator rendered from that source). Every Markdown (the source, ours, trafilatura's
``output_format="markdown"``, html2text's, markdownify's) is parsed by the same CommonMark + GFM-table parser
(markdown-it-py), and per document compared on:

- headings: (text, level), a heading that repeats the title left out on every side (the record's ``title`` holds it):
  the document's title in the truth, or the page's own ``<title>`` (a home page's "Python-Markdown", where the
  website's navigation names it "Home");
- list items: the text of each item's first paragraph;
- table cells: (row, column, text);
- code blocks: their exact text (trailing spaces of a line and of the block left out);
- text: the word-bag F1 of the Markdown's text (as rendered) against the truth text.

MkDocs' sources are Python-Markdown with PyMdown Extensions (admonitions ``!!!``, tabs ``===``, ``///`` blocks,
snippets, custom fences), which CommonMark does not read: they are rendered by Python-Markdown with the website's own
extensions (as its build did, without the template), and their structures read from that HTML (headings, the first
paragraph of each list item, table cells, ``pre`` blocks), as markdown-it's tokens give them for the others.

Texts are compared as their lower-cased words. A structure's F1 counts on a document where the truth or the reading
has any of it (both without: not counted). html2text and markdownify are given the main-content region ours reads
(the site's container, from the website survey; the whole body when the page has none); trafilatura reads the page.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path

import trafilatura
from lxml import etree

from benchmarks.common import WORD, bag_f1
from benchmarks.sites.real.model import BuiltSite, TruthPage
from benchmarks.sites.real.truth import fragment_text, strip_front_matter

# Generators whose sources are Markdown, and where the bench's cache keeps them (see generators/static_sites.py).
MARKDOWN_GENERATORS = frozenset({"hugo", "jekyll", "vitepress", "docusaurus", "mkdocs"})
STRUCTURES = ("headings", "list items", "table cells", "code blocks")
METRICS = (*STRUCTURES, "text")
CONVERTERS = ("trafilatura markdown", "html2text", "markdownify")
OURS = "ours (markdown)"
MIN_MATCH_F1 = 0.9  # a source is a document's when its rendered text has this word-bag F1 with the truth text


@dataclass
class MarkdownResult:
    """Per reading, each metric's per-document F1 values."""

    documents: int = 0  # truth documents matched to a source
    scores: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    def mean(self, reading: str, metric: str) -> float:
        values = self.scores.get(reading, {}).get(metric, [])
        return sum(values) / len(values) if values else float("nan")


# -- the sources ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A document's source: its Markdown (CommonMark), or the HTML its own Markdown processor renders it to."""

    markdown: str = ""
    html: str | None = None

    def text(self) -> str:
        return fragment_text(self.html) if self.html is not None else _render_text(self.markdown)

    def structures(self, titles: tuple[str, ...]) -> Structures:
        return html_structures(self.html, titles) if self.html is not None else structures(self.markdown, titles)


def site_sources(site: BuiltSite, cache: Path) -> list[Source]:
    """The sources the site was built from: its Markdown, or for MkDocs its sources rendered by Python-Markdown."""
    if site.name in PYTHON_MARKDOWN_SITES:
        return python_markdown_sources(site.name, cache)
    return [Source(markdown=body) for body in source_bodies(site, cache)]


def source_bodies(site: BuiltSite, cache: Path) -> list[str]:
    """The Markdown bodies the site was built from, as its generator wrote them (front matter removed)."""
    from benchmarks.sites.real.generators import static_sites as static
    from benchmarks.sites.real.sources import npm_package

    specs: dict[str, tuple[str, str, str | None]] = {
        "hugo-learn-docs": (static.FASTIFY, "docs", None),
        "jekyll-minima": (static.DATE_FNS, "docs", "date-fns"),
        "vitepress-docs": (static.UNDICI, "docs/docs", None),
        "docusaurus-docs": (static.ESLINT_IMPORT, "docs", "eslint-plugin-import"),
    }
    if site.name in BLOG_SITES:
        return blog_bodies(site.name, cache)
    if site.name not in specs:
        return []
    spec, folder, changelog_package = specs[site.name]
    package = npm_package(spec, cache)
    bodies = [strip_front_matter(path.read_text(encoding="utf-8")) for path in sorted((package / folder).rglob("*.md"))]
    if site.name == "vitepress-docs":
        # As the build wrote them: a pseudo-tag of the API's types ("{Array<Dispatcher>}") escaped, shown as text.
        bodies = [static.vitepress_truth_source(static.escape_pseudo_tags(body)) for body in bodies]
    if changelog_package is not None:
        posts = static.releases(package / "CHANGELOG.md", changelog_package, "iso", limit=60)
        bodies += [post.body for post in posts]
    return bodies


# The blind blogs (generators/blog_sites.py): CommonMark on Jekyll and Hugo, built from a project's sdist.
BLOG_SITES = ("jekyll-chirpy", "hugo-blog")


def blog_bodies(name: str, cache: Path) -> list[str]:
    """A blind blog's Markdown bodies as its generator wrote them: its releases' posts, its docs, its README."""
    import tempfile

    from benchmarks.sites.real.generators import blog_sites as blog
    from benchmarks.sites.real.sources import pypi_sdist

    (project, version), repo = {
        "jekyll-chirpy": (blog.STRUCTLOG, "hynek/structlog"), "hugo-blog": (blog.ATTRS, "python-attrs/attrs"),
    }[name]
    sdist = pypi_sdist(project, version, cache)
    with tempfile.TemporaryDirectory() as work:
        docs = blog.project_docs(sdist, Path(work), repo, lambda rel: "", skip={"index.md", "license.md", "changelog.md"})
    posts = blog.release_posts(sdist, project, repo)
    return [doc.body for doc in [*posts, *docs]] + [blog.readme_body(sdist, repo)]


# The MkDocs websites of the bench: the source distribution, its documents' folder (and what the site leaves out),
# and the Markdown extensions as the generator configured them.
PYTHON_MARKDOWN_SITES = ("mkdocs-readthedocs", "mkdocs-material")


def python_markdown_sources(name: str, cache: Path) -> list[Source]:
    """An MkDocs website's sources rendered by Python-Markdown with the extensions its build used (the generator's
    configuration; PyMdown's snippets read from the source distribution)."""
    import sys

    import markdown
    import yaml

    from benchmarks.sites.real.generators import python_docs as docs
    from benchmarks.sites.real.sources import pypi_sdist

    if name == "mkdocs-readthedocs":
        project = pypi_sdist(*docs.MARKDOWN, cache)
        folder = project / "docs"
        block = docs._yaml_block(docs.READTHEDOCS_CONFIG, "markdown_extensions")
        paths = [path for path in sorted(folder.rglob("*.md"))
                 if "reference" not in path.relative_to(folder).parts and path.name != "playground.md"]
    else:
        project = pypi_sdist(*docs.PYMDOWN, cache)
        folder = project / "docs" / "src" / "markdown"
        block = docs._yaml_block((project / "zensical.yml").read_text(encoding="utf-8"), "markdown_extensions")
        block = re.sub(r"  - tools\.collapse_code:\n(?:      .*\n)*", "", block)  # not in the sdist, as the build
        paths = sorted(folder.rglob("*.md"))
    # The configuration names formatters of the project's own tools/ package (both projects call theirs "tools").
    if str(project) in sys.path:
        sys.path.remove(str(project))
    sys.path.insert(0, str(project))
    for module in [module for module in sys.modules if module == "tools" or module.startswith("tools.")]:
        del sys.modules[module]
    # MkDocs loads these three whatever its configuration names (its MarkdownExtensions option's defaults).
    extensions: list[str] = ["toc", "tables", "fenced_code"]
    configs: dict[str, dict] = {}
    for entry in yaml.load(block, Loader=yaml.UnsafeLoader)["markdown_extensions"]:  # noqa: S506 - pinned sources
        extension, config = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        if extension == "mdx_gh_links":
            continue  # GitHub's issue links: the same text, a package the bench does not install
        if extension == "pymdownx.snippets":
            config = {**(config or {}), "check_paths": False,
                      "base_path": [str(project / path) for path in (config or {}).get("base_path", ["."])]}
        if extension not in extensions:
            extensions.append(extension)
        configs[extension] = config or {}
    renderer = markdown.Markdown(extensions=extensions, extension_configs=configs)
    sources = []
    for path in paths:
        body = re.sub(r"^icon: lucide/.*\n", "", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
        try:
            sources.append(Source(html=renderer.reset().convert(strip_front_matter(body))))
        except Exception:  # noqa: BLE001 - a source its processor cannot render here matches no document
            continue
    return sources


def matched_sources(pages: list[TruthPage], sources: list[Source]) -> dict[str, Source]:
    """Truth page path -> the source whose rendered text is the page's truth (best word-bag F1, at least
    ``MIN_MATCH_F1``)."""
    rendered = [(source, source.text()) for source in sources]
    matched: dict[str, Source] = {}
    for page in pages:
        best, score = None, 0.0
        for body, text in rendered:
            value = bag_f1(text, page.text)
            if value > score:
                best, score = body, value
        if best is not None and score >= MIN_MATCH_F1:
            matched[page.path] = best
    return matched


# -- structures -------------------------------------------------------------------------------------


@dataclass
class Structures:
    """What a Markdown document holds, as multisets."""

    headings: Counter = field(default_factory=Counter)
    items: Counter = field(default_factory=Counter)
    cells: Counter = field(default_factory=Counter)
    code: Counter = field(default_factory=Counter)
    text: str = ""


_TASK_MARKER = re.compile(r"^\[[ xX]\]\s+")


def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def structures(markdown: str, titles: tuple[str, ...] = ()) -> Structures:
    """The headings, list items, table cells and code blocks of a Markdown document, and its rendered text
    (``titles``: the document's titles, left out of its headings)."""
    parser = _parser()
    tokens = parser.parse(markdown or "")
    found = Structures(text=fragment_text(parser.render(markdown or "")))
    title_keys = _title_keys(titles)
    row = col = -1
    pending_item = False
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "heading_open":
            text = _key(_inline_text(tokens[index + 1]))
            level = int(token.tag[1])
            if text and text not in title_keys:
                found.headings[(text, level)] += 1
        elif kind == "list_item_open":
            pending_item = True
        elif kind == "inline" and pending_item:
            pending_item = False
            # A GFM task list item's "[ ]" or "[x]" is a checkbox on the page, not its text.
            if text := _key(_TASK_MARKER.sub("", _inline_text(token), count=1)):
                found.items[text] += 1
        elif kind == "table_open":
            row = -1
        elif kind == "tr_open":
            row, col = row + 1, -1
        elif kind in ("th_open", "td_open"):
            col += 1
            if text := _key(_inline_text(tokens[index + 1])):
                found.cells[(row, col, text)] += 1
        elif kind in ("fence", "code_block"):
            code = "\n".join(line.rstrip() for line in token.content.split("\n")).strip("\n")
            if code:
                found.code[code] += 1
    return found


_HTML_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "details", "dialog", "dd", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
    "ol", "p", "pre", "section", "summary", "table", "ul",
})


def html_structures(fragment: str, titles: tuple[str, ...] = ()) -> Structures:
    """The structures of a rendered source, as :func:`structures` reads them from Markdown: headings (text, level),
    each list item's first paragraph, table cells (row, column), ``pre`` blocks' text."""
    from lxml import html

    found = Structures(text=fragment_text(fragment))
    if not fragment.strip():
        return found
    root = html.fragment_fromstring(fragment, create_parent="div")
    title_keys = _title_keys(titles)
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = _key(element.text_content())
            if text and text not in title_keys:
                found.headings[(text, int(tag[1]))] += 1
        elif tag == "li":
            if text := _key(_first_paragraph(element)):
                found.items[text] += 1
        elif tag == "table":
            rows = [row for row in element.iter("tr") if next(row.iterancestors("table")) is element]
            for row_number, row in enumerate(rows):
                cells = [cell for cell in row if cell.tag in ("th", "td")]
                for col, cell in enumerate(cells):
                    if text := _key(cell.text_content()):
                        found.cells[(row_number, col, text)] += 1
        elif tag == "pre" and "arithmatex" not in (element.get("class") or ""):  # math typeset on the page, no code
            code = "\n".join(line.rstrip() for line in element.text_content().split("\n")).strip("\n")
            if code:
                found.code[code] += 1
    return found


def _first_paragraph(item) -> str:
    """A list item's first paragraph: its text up to its first block (a loose item's first ``p``)."""
    parts = [item.text or ""]
    for child in item:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag in _HTML_BLOCKS:
            if tag == "p" and not "".join(parts).strip():
                return child.text_content()
            break
        if tag not in ("script", "style", "input"):
            parts.append(child.text_content())
        parts.append(child.tail or "")
    return "".join(parts)


def _inline_text(token) -> str:
    if token.type != "inline":
        return ""
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content if child.type != "html_inline" else "")
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def _title_keys(titles: tuple[str, ...]) -> set[str]:
    # A title as text: a generator's navigation may hold it escaped ("Contributing &amp; Support").
    return {_key(unescape(title)) for title in titles}


def _key(text: str) -> str:
    return " ".join(WORD.findall((text or "").lower()))


def _render_text(markdown: str) -> str:
    parser = _parser()
    return fragment_text(parser.render(markdown or ""))


def multiset_f1(predicted: Counter, expected: Counter) -> float | None:
    """F1 of two multisets; None when both are empty (the document does not count for this structure)."""
    total = sum(predicted.values()) + sum(expected.values())
    if not total:
        return None
    return 2 * sum((predicted & expected).values()) / total


# -- the converters -----------------------------------------------------------------------------------


def _trafilatura_markdown(body: str, url: str, region: str) -> str:
    return trafilatura.extract(body, url=url, output_format="markdown", include_tables=True,
                               include_formatting=True, include_comments=False) or ""


def _html2text(body: str, url: str, region: str) -> str:
    import html2text

    converter = html2text.HTML2Text(baseurl=url, bodywidth=0)
    converter.ignore_links = converter.ignore_images = True
    converter.mark_code = False
    return converter.handle(region)


def _markdownify(body: str, url: str, region: str) -> str:
    from markdownify import markdownify

    def language(element) -> str | None:
        for node in (element, *(element.find_all("code") if hasattr(element, "find_all") else [])):
            for word in node.get("class") or []:
                match = re.match(r"(?:language|lang)-([\w+#.-]+)$", word)
                if match:
                    return match.group(1)
        return None

    return markdownify(region, heading_style="ATX", bullets="-", strip=["a", "img"], code_language_callback=language)


READERS: dict[str, Callable[[str, str, str], str]] = {
    "trafilatura markdown": _trafilatura_markdown,
    "html2text": _html2text,
    "markdownify": _markdownify,
}


def region_html(body: bytes, containers: tuple[str, ...]) -> str:
    """The HTML of the page's main-content region as ours reads it: its container elements (scripts, navigation
    and forms out, as ours clears them), else its body."""
    from corpus_pipeline.extract.content_container import container_elements
    from corpus_pipeline.extract.html_tree import parse_html

    document = parse_html(body)
    etree.strip_elements(document, "script", "style", "noscript", "template", "nav", "form", "button", with_tail=False)
    body = document.find("body")
    elements = container_elements(document, containers) or [body if body is not None else document]
    return "".join(etree.tostring(element, encoding="unicode", method="html") for element in elements)


def score_site_markdown(
    site: BuiltSite, cache: Path, documents: Iterable[tuple[TruthPage, object]], ours: dict[str, str],
    containers: tuple[str, ...], workers: int = 2,
) -> MarkdownResult:
    """Every reading's Markdown of the site's documents against their sources (``documents``: truth page and
    stored page; ``ours``: stored page URL -> the markdown column)."""
    result = MarkdownResult()
    matched = matched_sources(site.pages, site_sources(site, cache))
    chosen = [(page, stored) for page, stored in documents if page.path in matched]
    result.documents = len(chosen)
    if not chosen:
        return result
    from concurrent.futures import ProcessPoolExecutor

    items = [(stored.body, stored.url, containers) for _, stored in chosen]  # type: ignore[attr-defined]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        readings = list(pool.map(_converted, items, chunksize=4))
    for (page, stored), converted in zip(chosen, readings):
        titles = (page.title, page_title(stored.body))  # type: ignore[attr-defined]
        truth = matched[page.path].structures(titles)
        predictions = {OURS: ours.get(stored.url, "") or "", **converted}  # type: ignore[attr-defined]
        for reading, markdown in predictions.items():
            found = structures(markdown, titles)
            scores = result.scores.setdefault(reading, {metric: [] for metric in METRICS})
            for metric, (mine, theirs) in {
                "headings": (found.headings, truth.headings),
                "list items": (found.items, truth.items),
                "table cells": (found.cells, truth.cells),
                "code blocks": (found.code, truth.code),
            }.items():
                value = multiset_f1(mine, theirs)
                if value is not None:
                    scores[metric].append(value)
            scores["text"].append(bag_f1(_without_title(found.text, page.title), _without_title(page.text, page.title)))
    return result


def page_title(body: bytes) -> str:
    """The text of the page's ``<title>``."""
    from corpus_pipeline.extract.html_tree import parse_html

    return parse_html(body).findtext(".//title") or ""


def _converted(item: tuple[bytes, str, tuple[str, ...]]) -> dict[str, str]:
    body, url, containers = item
    text = body.decode("utf-8", "replace")
    region = region_html(body, containers)
    converted = {}
    for name, reader in READERS.items():
        try:
            converted[name] = reader(text, url, region)
        except Exception:  # noqa: BLE001 - a converter that fails on a page scores 0 there
            converted[name] = ""
    return converted


def _without_title(text: str, title: str) -> str:
    lines = (text or "").strip().split("\n", 1)
    if title and _key(lines[0]) in _title_keys((title,)):
        return lines[1] if len(lines) > 1 else ""
    return text or ""


def site_containers(site_pages: Iterable[tuple[str, bytes]]) -> tuple[str, ...]:
    """The website's content containers as the pipeline learns them (the survey of its pages, in URL order)."""
    from corpus_pipeline.extract.site_survey import survey_site

    return survey_site(((url, None, body) for url, body in sorted(site_pages)), workers=2).boilerplate.containers


def report_markdown(results: Iterable[tuple[str, MarkdownResult]]) -> None:
    """One table per metric: each website's mean per-document F1 by reading, and their mean."""
    from benchmarks.common import print_table

    scored = [(name, result) for name, result in results if result.documents]
    if not scored:
        return
    readings = (OURS, *CONVERTERS)
    rows = []
    for name, result in scored:
        for metric in METRICS:
            values = [result.mean(reading, metric) for reading in readings]
            best = max(values[1:])
            rows.append([name, result.documents, metric, *values, values[0] - best])
    for metric in METRICS:
        means = [sum(r.mean(reading, metric) for _, r in scored) / len(scored) for reading in readings]
        rows.append(["mean", sum(r.documents for _, r in scored), metric, *means, means[0] - max(means[1:])])
    print_table(
        "Markdown against each document's own Markdown source (issue 45): mean per-document F1 of headings (text, "
        "level), list items, table cells (row, column, text), code blocks (exact) and text (word bag)",
        ["website", "docs", "metric", *readings, "ours - best other"], rows,
    )
