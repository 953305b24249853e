#!/usr/bin/env bash
# Starts a single-node SLURM cluster on this machine (loopback only) for tests/test_slurm.py:
# munged, slurmctld and slurmd, without systemd and without accounting (no slurmdbd).
# Needs root; installs munge and SLURM with apt-get if they are missing.
# Idempotent: daemons that already run are left alone. Stop with tests/slurm/stop_cluster.sh.
# Exit codes: 0 = the node is idle and accepts jobs; 77 = this machine cannot run a SLURM
# cluster (not root, no apt-get, or the daemons do not start), with the reason on stderr;
# 1 = another error (for instance a slurm.conf this script did not write).
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/cluster.env"
LOG=/var/log/slurm

cannot() {
    echo "start_cluster.sh: cannot run a SLURM cluster here: $*" >&2
    exit 77
}

fail() {
    echo "start_cluster.sh: $*" >&2
    exit 1
}

# Waits up to $1 seconds for the command in the remaining arguments to succeed.
wait_for() {
    local seconds=$1
    shift
    for _ in $(seq "$seconds"); do
        if "$@" >/dev/null 2>&1; then
            return 0
        fi
        sleep 1
    done
    return 1
}

running() { # pid file
    [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

[[ $(id -u) -eq 0 ]] || cannot "needs root (runs as uid $(id -u))"

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
    || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
    command -v apt-get >/dev/null || cannot "SLURM is not installed and there is no apt-get"
    echo "start_cluster.sh: installing munge and SLURM with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || cannot "apt-get update failed"
    # The packages' scripts must not start the daemons (there is no slurm.conf yet): deny
    # service starts for the install, as Docker images do, unless a policy is in place.
    policy=""
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod +x "$policy"
    fi
    apt-get install -y -qq --no-install-recommends munge slurmctld slurmd slurm-client >&2
    installed=$?
    [[ -z $policy ]] || rm -f "$policy"
    [[ $installed -eq 0 ]] || cannot "apt-get install munge slurmctld slurmd slurm-client failed"
fi

host=$(hostname -s)
if ! getent hosts "$host" >/dev/null; then
    echo "127.0.0.1 $host" >>/etc/hosts
fi

# Runtime directories (no systemd to make them).
mkdir -p /run/munge "$RUN" "$LOG" /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /etc/slurm
chown munge:munge /run/munge
chmod 0755 /run/munge
chown slurm:slurm "$RUN" "$LOG" /var/lib/slurm/slurmctld

# munged: Debian's postinst makes the key; make one if it is missing.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    if [[ ! -s /etc/munge/munge.key ]]; then
        runuser -u munge -- mungekey --create >&2 || cannot "mungekey --create failed"
    fi
    runuser -u munge -- /usr/sbin/munged >&2 || cannot "munged does not start"
    touch "$RUN/costfs-started-munged"
    wait_for 10 bash -c 'munge -n | unmunge' || cannot "munge does not work (munge -n | unmunge)"
fi

if [[ -e $CONF ]] && ! grep -qF "$MARKER" "$CONF"; then
    fail "$CONF exists and was not written by this script; not replacing it"
fi
node=$(slurmd -C | head -1)
[[ $node == NodeName=* ]] || cannot "slurmd -C does not print a NodeName line"
cat >"$CONF.new" <<CONF
$MARKER
ClusterName=local
SlurmctldHost=$host
AuthType=auth/munge
SlurmUser=slurm
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=600
MailProg=/bin/true
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
$node State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
# Keep the file (and a running slurmctld's view of it) unchanged when nothing changed.
if cmp -s "$CONF.new" "$CONF"; then
    rm "$CONF.new"
else
    mv "$CONF.new" "$CONF"
    if running "$RUN/slurmctld.pid"; then
        scontrol reconfigure >&2 || true
    fi
fi

if ! running "$RUN/slurmctld.pid"; then
    # -c: start with a clean state (no jobs left from an earlier run).
    slurmctld -c >&2 || cannot "slurmctld does not start (see $LOG/slurmctld.log)"
fi
wait_for 30 bash -c 'scontrol ping | grep -q UP' \
    || cannot "slurmctld does not answer scontrol ping (see $LOG/slurmctld.log)"

if ! running "$RUN/slurmd.pid"; then
    slurmd >&2 || cannot "slurmd does not start (see $LOG/slurmd.log)"
fi
state() { sinfo -h -o %T 2>/dev/null | head -1; }
for _ in $(seq 30); do
    case $(state) in
    idle | mixed | allocated) break ;;
    down* | drain* | drained*) scontrol update nodename="$host" state=resume >&2 || true ;;
    esac
    sleep 1
done
case $(state) in
idle | mixed | allocated) ;;
*) cannot "the node does not become idle (sinfo says '$(state)'; see $LOG/slurmd.log)" ;;
esac
echo "start_cluster.sh: SLURM node $host is $(state) (partition debug)" >&2
