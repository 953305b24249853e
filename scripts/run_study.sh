#!/usr/bin/env bash
# Installs what the study needs (scripts/install.sh) and runs the workflow.
# Arguments go to snakemake; default: the default study on all cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
if [ "$#" -eq 0 ]; then
    set -- --cores all
fi
exec .venv/bin/snakemake "$@"
