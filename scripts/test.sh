#!/usr/bin/env bash
# Installs the project (scripts/install.sh), lints it (ruff, snakefmt, snakemake --lint),
# builds the documentation site with warnings as errors, checks the light core install in a
# fresh virtual environment and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/ruff check src tests scripts examples
.venv/bin/ruff format --check src tests scripts examples
.venv/bin/snakefmt --check workflow/
.venv/bin/snakemake --lint --cores 1 >/dev/null
site=$(mktemp -d)
.venv/bin/mkdocs build --strict --quiet --site-dir "$site"
rm -rf "$site"
bash scripts/check_core_install.sh
exec .venv/bin/python -m pytest "$@"
