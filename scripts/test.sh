#!/usr/bin/env bash
# Installs the project (scripts/install.sh), lints it (ruff, snakefmt, snakemake --lint),
# checks the light core install in a fresh virtual environment and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/ruff check src tests scripts
.venv/bin/ruff format --check src tests scripts
.venv/bin/snakefmt --check workflow/
.venv/bin/snakemake --lint --cores 1 >/dev/null
bash scripts/check_core_install.sh
exec .venv/bin/python -m pytest "$@"
