#!/usr/bin/env bash
# Installs the project (scripts/install.sh), lints it (ruff, snakefmt, snakemake --lint),
# checks the package's import layers (lint-imports: no layer imports a higher one, no import
# circles), builds the documentation site with warnings as errors, checks the light core
# install and a study from the built wheel, each in a fresh virtual environment, and runs the
# whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/ruff check src tests scripts benchmarks examples
.venv/bin/ruff format --check src tests scripts benchmarks examples
.venv/bin/snakefmt --check Snakefile workflow/
.venv/bin/snakemake --lint --cores 1 >/dev/null
.venv/bin/lint-imports --no-cache >/dev/null
site=$(mktemp -d)
# Not --quiet: it hides the warnings from --strict, which then passes a broken link.
.venv/bin/mkdocs build --strict --site-dir "$site" >"$site.log" 2>&1 || { cat "$site.log"; exit 1; }
rm -rf "$site" "$site.log"
bash scripts/check_core_install.sh
bash scripts/check_wheel.sh
# One pytest worker per core (pytest-xdist); a file's tests stay on one worker, so its module
# fixtures (a workflow run, a SLURM cluster) are made once.
exec .venv/bin/python -m pytest -n "${TEST_WORKERS:-auto}" --dist loadfile "$@"
