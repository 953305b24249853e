#!/usr/bin/env bash
# Installs the project (scripts/install.sh), lints it and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/ruff check src tests scripts
.venv/bin/ruff format --check src tests scripts
.venv/bin/snakemake --lint --cores 1 >/dev/null
exec .venv/bin/python -m pytest "$@"
