"""Parsed pages for extraction tests: a test's own HTML sources next to every page of the built demo site."""

from pathlib import Path

from lxml import html

from corpus_pipeline.extract.html_tree import parse_html
from corpus_pipeline_demo.site import build_demo_site


def demo_and_given_documents(folder: Path, sources: dict[str, str]) -> dict[str, html.HtmlElement]:
    """``sources`` parsed under their names, and the demo site (built in ``folder``) under its files' paths."""
    build_demo_site(folder / "site")
    documents = {name: parse_html(source) for name, source in sources.items()}
    for path in sorted((folder / "site").rglob("*.html")):
        documents[str(path.relative_to(folder))] = parse_html(path.read_bytes())
    return documents
