#!/usr/bin/env bash
# Installs what the study needs (scripts/install.sh) and runs the workflow.
# Arguments go to snakemake (through costfs.cli.run_snakemake, which spares local runs
# snakemake's job rate limit); default: the default study on all cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
if [ "$#" -eq 0 ]; then
    set -- --cores all
fi
exec .venv/bin/python -m costfs.cli.run_snakemake "$@"
