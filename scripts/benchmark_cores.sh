#!/usr/bin/env bash
# Wall time of one study with --cores 1 and with --cores 2, each from scratch in its own copy of
# the committed code (git HEAD when the script starts), so that edits to the working tree
# cannot change what is timed.
# Usage: scripts/benchmark_cores.sh [config file, default config/config.yaml]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
config=${1:-config/config.yaml}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
commit=$(git -C "$repo" rev-parse HEAD)
echo "commit $commit, config $config"
declare -A seconds
for cores in 1 2; do
    copy="$work/cores$cores"
    mkdir "$copy"
    git -C "$repo" archive "$commit" | tar -x -C "$copy"
    start=$(date +%s.%N)
    PYTHONPATH="$copy/src" "$repo/.venv/bin/snakemake" --snakefile "$copy/workflow/Snakefile" \
        --directory "$copy" --configfile "$copy/$config" --cores "$cores" --quiet all \
        >"$work/cores$cores.log" 2>&1 || { cat "$work/cores$cores.log"; exit 1; }
    seconds[$cores]=$(python3 -c "print($(date +%s.%N) - $start)")
    jobs=$(find "$copy/logs" -name '*.log' | wc -l)
    printf 'cores %s: %7.1f s wall, %s job logs\n' "$cores" "${seconds[$cores]}" "$jobs"
done
printf 'speed-up with 2 cores: %.2fx\n' "$(python3 -c "print(${seconds[1]} / ${seconds[2]})")"
