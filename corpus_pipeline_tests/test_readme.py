"""The README stays a short front door: the two commands, links into docs/ that resolve."""

import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _relative_links(markdown: Path) -> list[str]:
    return [target for target in LINK.findall(markdown.read_text(encoding="utf-8")) if "://" not in target]


def test_the_readme_is_at_most_150_lines():
    assert len((PROJECT / "README.md").read_text(encoding="utf-8").splitlines()) <= 150


def test_the_readme_s_two_commands_exist_and_ci_runs_the_test_command():
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    for command in ("./scripts/demo.sh", "./scripts/test.sh"):
        assert command in readme
        assert (PROJECT / command).is_file()
    assert "scripts/test.sh" in (PROJECT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_relative_link_of_the_readmes_resolves():
    for markdown in (PROJECT / "README.md", PROJECT / "benchmarks" / "README.md"):
        links = _relative_links(markdown)
        assert links, markdown
        for target in links:
            assert (markdown.parent / target).exists(), f"{markdown.relative_to(PROJECT)} links to missing {target}"


def test_the_readme_links_to_every_page_of_the_docs_nav():
    readme_targets = {Path(target).as_posix() for target in _relative_links(PROJECT / "README.md")}
    nav_pages = re.findall(r"^\s+- (?:[^:\n]+: )?([\w/-]+\.md)$", (PROJECT / "mkdocs.yml").read_text(), re.MULTILINE)
    assert nav_pages
    missing = [page for page in nav_pages
               if not page.endswith("index.md") and f"docs/{page}" not in readme_targets]
    assert not missing, f"pages of the docs' nav the README does not link to: {missing}"
