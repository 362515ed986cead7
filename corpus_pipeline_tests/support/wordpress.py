"""A real WordPress on loopback: Debian's ``wordpress`` on MariaDB, served by ``php -S``. No mocks.

Shared by the WordPress test of the suite (corpus_pipeline_tests/test_wordpress_end_to_end.py) and the real-websites
bench (benchmarks/sites/real/generators/cms_sites.py, which also serves its MediaWiki with ``running_php``):

* ``running_mariadb``: ``mariadbd`` over a data folder, on a free 127.0.0.1 port, stopped on exit;
* ``running_php``: ``php -S`` with a router (``wordpress_php/wp_router.php`` does what WordPress's mod_rewrite rules
  do), stopped on exit;
* ``new_wordpress``: Debian's code tree copied into a folder with the themes asked for, a database and a
  ``wp-config.php`` that takes the database port and the site's URL from the environment (``WP_BENCH_DB_PORT``,
  ``WP_BENCH_BASE``), so that one install is served on any free port;
* ``install_wordpress``, ``load_content``, ``switch_theme``: the PHP scripts of ``wordpress_php/`` run by php-cli.

    site = new_wordpress(folder, themes=("twentytwentyone",))
    with running_mariadb(site.datadir) as database:
        install_wordpress(site, database, "My blog", "twentytwentyone", "/%year%/%monthnum%/%postname%/")
        load_content(site, database, spec_file, result_file)
        with serve_wordpress(site, database) as base_url:
            ...
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 60.0
PHP_DIR = Path(__file__).resolve().parent / "wordpress_php"
WORDPRESS_SOURCE = Path("/usr/share/wordpress")
THEMES_SOURCE = WORDPRESS_SOURCE / "wp-content" / "themes"
# The commands the harness runs; mariadbd lives in /usr/sbin, which a user's PATH may lack.
TOOLS = ("mariadbd", "mariadb-install-db", "mariadb-admin", "mariadb", "php")


def free_port() -> int:
    """A loopback TCP port nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def _which(tool: str) -> str | None:
    return shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/usr/local/sbin")


def missing_wordpress_tools(themes: tuple[str, ...] = ()) -> list[str]:
    """What is missing to run WordPress here (commands, Debian's code tree, themes); empty when all is there.

    scripts/setup.sh installs them (Debian packages wordpress, wordpress-theme-*, mariadb-server, php-cli, php-mysql).
    """
    missing = [f"{tool} (command)" for tool in TOOLS if _which(tool) is None]
    if not (WORDPRESS_SOURCE / "wp-settings.php").is_file():
        missing.append(f"WordPress ({WORDPRESS_SOURCE}, Debian package wordpress)")
    missing += [f"theme {theme} (Debian package wordpress-theme-{theme})" for theme in themes
                if not (THEMES_SOURCE / theme / "style.css").is_file()]
    if _which("php") is not None:
        modules = subprocess.run([_which("php") or "php", "-m"], capture_output=True, text=True, timeout=60).stdout
        if "mysqli" not in modules.split():
            missing.append("PHP's mysqli (Debian package php-mysql)")
    return missing


def _tail(log: Path, chars: int = 3000) -> str:
    try:
        return log.read_text(errors="replace")[-chars:]
    except OSError:
        return ""


def _stop(process: subprocess.Popen) -> None:
    """Stop a process started in its own session, and its children (php -S workers), by its process group."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    else:  # the leader is gone: workers of the group may still be there
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


# ---------------------------------------------------------------------------------------------------------------
# MariaDB

# Small buffers and redo log (the default 96 MB log would be most of a site's folder), UTF-8 throughout.
MARIADB_OPTIONS = ("--innodb-buffer-pool-size=64M", "--innodb-log-file-size=16M", "--innodb-flush-log-at-trx-commit=2",
                   "--character-set-server=utf8mb4", "--collation-server=utf8mb4_unicode_ci")


@dataclass(frozen=True)
class MariaDB:
    """A running MariaDB: TCP port on 127.0.0.1 and its private Unix socket (root's way in)."""

    port: int
    socket: Path

    def sql(self, statements: str) -> None:
        """Run SQL statements as root."""
        subprocess.run([_which("mariadb") or "mariadb", "--no-defaults", f"--socket={self.socket}", "-uroot",
                        "-e", statements], check=True, capture_output=True, text=True, timeout=START_TIMEOUT_S)


def _as_root() -> list[str]:
    """``--user=root`` when we are root: MariaDB refuses to run as root unless told to (as another user, it runs as
    that user and takes no such option)."""
    return ["--user=root"] if os.geteuid() == 0 else []


def init_mariadb(datadir: Path) -> None:
    """A new MariaDB data folder whose root logs in without password over the Unix socket only we know."""
    datadir.mkdir(parents=True)
    result = subprocess.run(
        [_which("mariadb-install-db") or "mariadb-install-db", "--no-defaults", f"--datadir={datadir}", *_as_root(),
         "--auth-root-authentication-method=normal", "--skip-test-db", *MARIADB_OPTIONS],
        capture_output=True, text=True, timeout=START_TIMEOUT_S * 3,
    )
    if result.returncode != 0:
        raise RuntimeError(f"mariadb-install-db failed: {(result.stderr or result.stdout)[-2000:]}")


@contextmanager
def running_mariadb(datadir: Path) -> Iterator[MariaDB]:
    """mariadbd on a free 127.0.0.1 port over ``datadir``, its socket and logs in a temporary folder; stopped on exit."""
    rundir = Path(tempfile.mkdtemp(prefix="cms_mariadb_"))  # short path: Unix socket paths are limited to 107 bytes
    server = MariaDB(port=free_port(), socket=rundir / "mysqld.sock")
    log = rundir / "error.log"
    process = subprocess.Popen(
        [_which("mariadbd") or "mariadbd", "--no-defaults", f"--datadir={datadir}", *_as_root(),
         f"--bind-address={LOOPBACK}", f"--port={server.port}", f"--socket={server.socket}",
         f"--pid-file={rundir / 'mariadbd.pid'}", f"--log-error={log}", f"--tmpdir={rundir}", "--skip-log-bin",
         "--skip-name-resolve", *MARIADB_OPTIONS],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"mariadbd exited with {process.returncode}: {_tail(log)}")
            ping = subprocess.run([_which("mariadb-admin") or "mariadb-admin", "--no-defaults",
                                   f"--socket={server.socket}", "-uroot", "ping"],
                                  capture_output=True, timeout=START_TIMEOUT_S)
            if ping.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"mariadbd did not answer within {START_TIMEOUT_S} s: {_tail(log)}")
            time.sleep(0.2)
        yield server
    finally:
        _stop(process)
        shutil.rmtree(rundir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------------------------
# PHP


@contextmanager
def running_php(root: Path, router: Path, env: dict[str, str], port: int | None = None) -> Iterator[str]:
    """``php -S`` on 127.0.0.1 serving ``root`` through ``router``; yields the base URL once a request is answered."""
    port = port or free_port()
    base = f"http://{LOOPBACK}:{port}"
    logdir = Path(tempfile.mkdtemp(prefix="cms_php_"))
    log = logdir / "php.log"
    full_env = {**os.environ, **env, "PHP_CLI_SERVER_WORKERS": "4"}  # a crawler sends requests in parallel
    with log.open("wb") as sink:
        process = subprocess.Popen(
            ["php", "-d", "memory_limit=512M", "-d", "display_errors=stderr", "-S", f"{LOOPBACK}:{port}",
             "-t", str(root), str(router)],
            cwd=root, env=full_env, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"php -S exited with {process.returncode}: {_tail(log)}")
            try:
                urllib.request.urlopen(base + "/robots.txt", timeout=10).close()
                break
            except urllib.error.HTTPError:
                break  # an answer, even a 404, means the server runs
            except OSError as error:
                if time.monotonic() > deadline:
                    reason = f"php -S did not answer on {base} within {START_TIMEOUT_S} s: {_tail(log)}"
                    raise RuntimeError(reason) from error
                time.sleep(0.2)
        yield base
    finally:
        _stop(process)
        shutil.rmtree(logdir, ignore_errors=True)


def run_php(script: Path, args: list[str], cwd: Path, env: dict[str, str], what: str) -> str:
    """Run a PHP script with php-cli; its standard output, or RuntimeError with the end of its output."""
    result = subprocess.run(["php", "-d", "memory_limit=1G", str(script), *args], cwd=cwd,
                            env={**os.environ, **env}, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise RuntimeError(f"{what} failed ({result.returncode}): {(result.stderr + result.stdout)[-3000:]}")
    return result.stdout


# ---------------------------------------------------------------------------------------------------------------
# WordPress


def copy_tree(source: Path, target: Path, skip: set[str]) -> None:
    """Copy a Debian code tree with its symlinks (to /etc, /usr/share/javascript, /usr/share/php) resolved."""
    shutil.copytree(source, target, symlinks=False, ignore_dangling_symlinks=True,
                    ignore=lambda folder, names: [n for n in names if Path(folder, n).relative_to(source).as_posix()
                                                  in skip])


WP_CONFIG = """<?php
// wp-config.php of a loopback WordPress: the database port and the site's URL come from the environment, so that
// the site can be served on any free port (corpus_pipeline_tests/support/wordpress.py sets them).
define('DB_NAME', 'wordpress');
define('DB_USER', 'wordpress');
define('DB_PASSWORD', '{password}');
define('DB_HOST', '127.0.0.1:' . (getenv('WP_BENCH_DB_PORT') ?: '3306'));
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
define('WP_HOME', getenv('WP_BENCH_BASE') ?: 'http://127.0.0.1');
define('WP_SITEURL', WP_HOME);
{salts}
$table_prefix = 'wp_';
define('WP_DEBUG', false);
define('DISABLE_WP_CRON', true);           // no loopback requests from page views
define('AUTOMATIC_UPDATER_DISABLED', true); // offline: nothing to update from
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('WP_ACCESSIBLE_HOSTS', '');
define('FS_METHOD', 'direct');
if (!defined('ABSPATH')) {{
    define('ABSPATH', __DIR__ . '/');
}}
require_once ABSPATH . 'wp-settings.php';
"""
SALT_NAMES = ("AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT", "SECURE_AUTH_SALT",
              "LOGGED_IN_SALT", "NONCE_SALT")


@dataclass(frozen=True)
class WordPressFolder:
    """A WordPress of its own: the code tree (``site``) and MariaDB's data folder (``mariadb``) under ``folder``."""

    folder: Path

    @property
    def root(self) -> Path:
        return self.folder / "site"

    @property
    def datadir(self) -> Path:
        return self.folder / "mariadb"


def new_wordpress(folder: Path, themes: tuple[str, ...] = (), password: str | None = None) -> WordPressFolder:
    """Debian's WordPress copied into ``folder/site`` with only ``themes`` (from Debian's theme packages; others may be
    added to ``wp-content/themes`` before the install), a ``wp-config.php`` and an initialized MariaDB data folder
    whose database ``wordpress`` the config's user owns."""
    site = WordPressFolder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    copy_tree(WORDPRESS_SOURCE, site.root, {".htaccess", "wp-config.php", "wp-content/themes"})
    (site.root / "wp-content" / "themes").mkdir()
    for theme in themes:
        shutil.copytree(THEMES_SOURCE / theme, site.root / "wp-content" / "themes" / theme, symlinks=False,
                        ignore_dangling_symlinks=True)
    (site.root / "wp-content" / "uploads").mkdir(exist_ok=True)
    password = password or secrets.token_hex(12)
    salts = "\n".join(f"define('{n}', '{secrets.token_hex(32)}');" for n in SALT_NAMES)
    (site.root / "wp-config.php").write_text(WP_CONFIG.format(password=password, salts=salts))
    init_mariadb(site.datadir)
    with running_mariadb(site.datadir) as database:
        database.sql("CREATE DATABASE wordpress CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;"
                     f"CREATE USER 'wordpress'@'127.0.0.1' IDENTIFIED BY '{password}';"
                     "GRANT ALL PRIVILEGES ON wordpress.* TO 'wordpress'@'127.0.0.1';")
    return site


def _cli_env(site: WordPressFolder, database: MariaDB) -> dict[str, str]:
    # php-cli has no request: the host and port of WP_HOME are placeholders; permalinks are read root-relative.
    return {"WP_BENCH_ROOT": str(site.root), "WP_BENCH_DB_PORT": str(database.port),
            "WP_BENCH_BASE": f"http://{LOOPBACK}:8080"}


def install_wordpress(site: WordPressFolder, database: MariaDB, title: str, theme: str, permalinks: str) -> None:
    """Install WordPress (editor ``editor``, UTC, 10 posts a page, comments open, no sample content) with ``theme``."""
    run_php(PHP_DIR / "wp_install.php", [title, theme, permalinks], site.root, _cli_env(site, database),
            "WordPress install")


def load_content(site: WordPressFolder, database: MariaDB, spec_file: Path, result_file: Path) -> None:
    """Insert the images and documents of ``spec_file`` (see wordpress_php/wp_content.php); their permalinks and
    rendered content go to ``result_file``."""
    run_php(PHP_DIR / "wp_content.php", [str(spec_file), str(result_file)], site.root, _cli_env(site, database),
            "WordPress content")


def switch_theme(site: WordPressFolder, database: MariaDB, theme: str, theme_mods: str = "{}") -> None:
    """Activate an installed theme and set its theme mods (a JSON object; ``nav_menu_locations`` names menus)."""
    run_php(PHP_DIR / "wp_theme.php", [theme, theme_mods], site.root, _cli_env(site, database), "WordPress theme")


@contextmanager
def serve_wordpress(site: WordPressFolder, database: MariaDB, port: int | None = None) -> Iterator[str]:
    """``php -S`` in front of the WordPress (its database running); yields the base URL, without a trailing slash."""
    port = port or free_port()
    env = {"WP_BENCH_DB_PORT": str(database.port), "WP_BENCH_BASE": f"http://{LOOPBACK}:{port}"}
    with running_php(site.root, PHP_DIR / "wp_router.php", env, port) as base:
        yield base
