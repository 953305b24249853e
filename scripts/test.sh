#!/usr/bin/env bash
# Installs the project (scripts/install.sh), lints it (ruff, snakefmt, snakemake --lint),
# checks the package's import layers (lint-imports: no layer imports a higher one, no import
# circles), builds the documentation site with warnings as errors, checks the light core
# install and a study from the built wheel, each in a fresh virtual environment, and runs the
# whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# The two install checks build fresh virtual environments (mostly pip, on one core each): they
# run beside the lints and the documentation build, and a failing one's log is shown.
checks=$(mktemp -d)
declare -A running
for check in core_install wheel; do
    # A process group of its own: a failing lint stops the check with its pip and Snakemake.
    setsid bash "scripts/check_$check.sh" >"$checks/$check.log" 2>&1 &
    running[$check]=$!
done
stop_checks() {
    for group in "${running[@]}"; do
        kill -- "-$group" 2>/dev/null || true
    done
    rm -rf "$checks"
}
trap stop_checks EXIT
.venv/bin/ruff check src tests scripts benchmarks examples
.venv/bin/ruff format --check src tests scripts benchmarks examples
.venv/bin/snakefmt --check Snakefile workflow/
.venv/bin/snakemake --lint --cores 1 >/dev/null
.venv/bin/lint-imports --no-cache >/dev/null
site=$(mktemp -d)
# Not --quiet: it hides the warnings from --strict, which then passes a broken link.
.venv/bin/mkdocs build --strict --site-dir "$site" >"$site.log" 2>&1 || { cat "$site.log"; exit 1; }
rm -rf "$site" "$site.log"
for check in core_install wheel; do
    if ! wait "${running[$check]}"; then
        echo "scripts/check_$check.sh failed:" >&2
        cat "$checks/$check.log" >&2
        exit 1
    fi
    tail -n 2 "$checks/$check.log"
done
trap - EXIT
rm -rf "$checks"
# One pytest worker per core (pytest-xdist); a file's tests stay on one worker, so its module
# fixtures (a workflow run, a SLURM cluster) are made once.
exec .venv/bin/python -m pytest -n "${TEST_WORKERS:-auto}" --dist loadfile "$@"
