#!/usr/bin/env bash
# Stops the cluster of tests/slurm/start_cluster.sh by the daemons' PID files: slurmd,
# slurmctld, and munged if start_cluster.sh started it; then removes the slurm.conf that
# start_cluster.sh wrote. Safe to run when nothing runs.
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/cluster.env"

stop() { # name, pid file
    local pid
    [[ -s $2 ]] || return 0
    pid=$(cat "$2")
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        for _ in $(seq 20); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        if kill -0 "$pid" 2>/dev/null; then
            kill -9 "$pid" 2>/dev/null || true
        fi
        echo "stop_cluster.sh: stopped $1 (pid $pid)" >&2
    fi
    rm -f "$2"
}

stop slurmd "$RUN/slurmd.pid"
stop slurmctld "$RUN/slurmctld.pid"
if [[ -e $RUN/costfs-started-munged ]]; then
    stop munged /run/munge/munged.pid
    rm -f "$RUN/costfs-started-munged"
fi
# With a slurm.conf but no slurmctld, `scontrol` waits 10 s for the controller, and the SLURM
# executor plugin calls it whenever snakemake starts (for its --help text): every later
# snakemake run on this machine would start 9 s late. Without the file it fails at once.
if [[ -e $CONF ]] && grep -qF "$MARKER" "$CONF"; then
    rm -f "$CONF"
fi
exit 0
