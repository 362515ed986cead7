"""What a website of the real-websites bench is: a served site and the truth of each of its documents.

The truth of a page is its own source (Markdown, reST, wikitext, a stored post) rendered to plain text by a renderer
that knows nothing of the site's template, so no page type and no template is favoured by the scoring.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path

TRUTH_FILE = "truth.jsonl"
SITE_FOLDER = "site"


@dataclass(frozen=True)
class TruthPage:
    """One document of a website: where it is served and what its main content says."""

    path: str  # URL path on the served site, starting with "/" ("/guide/install/", "/usage.html")
    title: str
    text: str  # the document's own source rendered to text, blocks separated by blank lines
    kind: str  # what sort of document: manual, reference, post, release-notes, wiki, page, tutorial, ...


@dataclass
class BuiltSite:
    """A website built offline: its static folder (or a server that serves it) and its documents' truth.

    ``serve`` is None for a static folder (served by the demo server); a dynamic website (WordPress, MediaWiki)
    gives a context manager that starts its server on 127.0.0.1 and yields the base URL.
    """

    name: str
    generator: str  # "sphinx", "mkdocs", "hugo", "wordpress", ...
    theme: str
    folder: Path  # <cache>/<name>: holds site/ and truth.jsonl
    pages: list[TruthPage] = field(default_factory=list)
    start_path: str = "/"
    sitemap_path: str | None = None  # "/sitemap.xml" when the generator writes one
    serve: Callable[[], AbstractContextManager[str]] | None = None

    @property
    def root(self) -> Path:
        return self.folder / SITE_FOLDER

    def read_built(self) -> bool:
        """Whether the site is built in its folder already (its truth and its site folder): if so, its pages are
        read from the truth, and a build reuses it."""
        if (self.folder / TRUTH_FILE).is_file() and self.root.is_dir():
            self.pages = read_truth(self.folder)
            return True
        return False

    def write_truth(self) -> None:
        with (self.folder / TRUTH_FILE).open("w", encoding="utf-8") as out:
            for page in self.pages:
                out.write(json.dumps(asdict(page), ensure_ascii=False) + "\n")


def built_summary(site: BuiltSite, seconds: float) -> str:
    """One line for a generator's command line: the site, its documents, their words and kinds, the build's time."""
    words = sum(len(re.findall(r"\w+", page.text)) for page in site.pages)
    kinds: dict[str, int] = {}
    for page in site.pages:
        kinds[page.kind] = kinds.get(page.kind, 0) + 1
    return f"{site.name:20} {len(site.pages):4} pages {words:8} words  {seconds:6.1f} s  {dict(sorted(kinds.items()))}"


def read_truth(folder: Path) -> list[TruthPage]:
    """The truth pages written by ``BuiltSite.write_truth``."""
    with (folder / TRUTH_FILE).open(encoding="utf-8") as lines:
        return [TruthPage(**json.loads(line)) for line in lines if line.strip()]


def iter_truth_paths(pages: list[TruthPage]) -> Iterator[str]:
    for page in pages:
        yield page.path
