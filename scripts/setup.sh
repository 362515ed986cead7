#!/usr/bin/env bash
# Installs everything corpus_pipeline needs on a Debian machine with Python 3.11:
# system tools (Tesseract with English and French, poppler; PostgreSQL and Redis,
# which the cluster tests start on loopback themselves; WordPress with its classic and block themes, MariaDB and
# PHP, which the WordPress test runs on loopback) and a virtual environment in
# .venv with the package and the extras the scripts use (test, demo, bench, lint, docs). Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

SYSTEM_PACKAGES=(tesseract-ocr tesseract-ocr-eng tesseract-ocr-fra poppler-utils postgresql redis-server
                 wordpress wordpress-theme-twentytwentyone wordpress-theme-twentytwentythree mariadb-server
                 mariadb-client php-cli php-mysql)
PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

missing=()
for package in "${SYSTEM_PACKAGES[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> Installing system packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Fail loudly (never skip) when a tool the pipeline needs is still absent.
for tool in tesseract pdftoppm pdfinfo; do
  command -v "$tool" >/dev/null 2>&1 || { echo "ERROR: $tool is not installed" >&2; exit 1; }
done
command -v redis-server >/dev/null 2>&1 || { echo "ERROR: redis-server is not installed" >&2; exit 1; }
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1 \
  || { echo "ERROR: PostgreSQL (pg_ctl) is not installed" >&2; exit 1; }
for tool in mariadbd mariadb-install-db php; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || { echo "ERROR: $tool is not installed" >&2; exit 1; }
done
for theme in twentytwentyone twentytwentythree; do
  [ -f "/usr/share/wordpress/wp-content/themes/$theme/style.css" ] \
    || { echo "ERROR: the WordPress theme $theme is not installed" >&2; exit 1; }
done
for lang in eng fra; do
  tesseract --list-langs 2>/dev/null | grep -qx "$lang" || { echo "ERROR: Tesseract language '$lang' missing" >&2; exit 1; }
done

# VENV=.venv-newest NEWEST=1 (scripts/test.sh under CI): another environment, on the newest releases pyproject.toml
# allows instead of scripts/tested-versions.txt's, installed afresh every time.
VENV=${VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  echo "==> Creating $VENV with $PYTHON"
  "$PYTHON" -m venv "$VENV"
fi
versions=(--constraint scripts/tested-versions.txt)
[ "${NEWEST:-}" = 1 ] && versions=(--upgrade --upgrade-strategy eager)
# Re-install only when pyproject.toml or the tested versions changed since the last install.
stamp=$VENV/.corpus_pipeline-installed
checksum=$(cat pyproject.toml scripts/tested-versions.txt | sha256sum | cut -d' ' -f1)
if [ "${NEWEST:-}" = 1 ] || [ "$(cat "$stamp" 2>/dev/null)" != "$checksum" ]; then
  echo "==> Installing corpus_pipeline with its test, demo, bench, lint and docs extras into $VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet "${versions[@]}" -e '.[test,demo,bench,lint,docs]'
  echo "$checksum" > "$stamp"
fi
echo "==> Setup complete"
