"""The workflow through a real SLURM cluster (snakemake-executor-plugin-slurm) gives the same
results, byte for byte, as a local run.

A module fixture starts a single-node cluster on this machine with tests/slurm/start_cluster.sh
(as root; it installs munge and SLURM with apt-get if they are missing) and stops it at the end
if it started it. The tests are skipped only when the script says that this machine cannot run
a SLURM cluster at all (exit code 77: not root, no apt-get, or the daemons do not start).

To stay within a few minutes on 2 cores the study is the tiny one made smaller: one replicate,
simulated setting A and the real data set wdbc, the methods auc and pfi, every stage from
simulation to figures. It runs through `snakemake --executor slurm --profile tests/slurm/profile`
(status polled with squeue, no accounting, the small data jobs grouped into one SLURM job) and
locally with --cores 2, each in its own temporary copy of the workflow.
"""

import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.conftest import REPO
from tests.test_workflow import snakemake, write_study

pytestmark = [pytest.mark.slurm, pytest.mark.workflow]

SCRIPTS = REPO / "tests" / "slurm"
PROFILE = SCRIPTS / "profile"
CANNOT_RUN_SLURM = 77
SLURMCTLD_PID = Path("/run/slurm/slurmctld.pid")


def small_study() -> dict:
    tiny = yaml.safe_load((REPO / "config" / "tiny.yaml").read_text())
    return {
        "n_rep": 1,
        "simulation": {**tiny["simulation"], "settings": ["A"]},
        "methods": {"auc": {}, "pfi": tiny["methods"]["pfi"]},
    }


def slurmctld_running() -> bool:
    try:
        os.kill(int(SLURMCTLD_PID.read_text()), 0)
    except (OSError, ValueError):
        return False
    return True


@pytest.fixture(scope="module")
def cluster():
    already_running = slurmctld_running()
    start = subprocess.run(
        ["bash", str(SCRIPTS / "start_cluster.sh")], capture_output=True, text=True, timeout=600
    )
    if start.returncode == CANNOT_RUN_SLURM:
        pytest.skip(start.stderr.strip().splitlines()[-1])
    assert start.returncode == 0, start.stderr[-4000:]
    yield
    if not already_running:
        stop = subprocess.run(
            ["bash", str(SCRIPTS / "stop_cluster.sh")], capture_output=True, text=True, timeout=120
        )
        assert stop.returncode == 0, stop.stderr


@pytest.fixture(scope="module")
def slurm_run(cluster, tmp_path_factory) -> Path:
    directory = write_study(tmp_path_factory.mktemp("slurm"), **small_study())
    result = snakemake(directory, "--executor", "slurm", "--profile", str(PROFILE))
    assert result.returncode == 0, result.stderr[-6000:]
    return directory


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    directory = write_study(tmp_path_factory.mktemp("local"), **small_study())
    result = snakemake(directory, "--cores", "2")
    assert result.returncode == 0, result.stderr[-4000:]
    return directory


def test_slurm_and_local_runs_give_byte_identical_results(slurm_run, local_run):
    for name in ("runs.parquet", "summary.parquet"):
        slurm = (slurm_run / "results" / name).read_bytes()
        assert slurm == (local_run / "results" / name).read_bytes(), name
    runs = pd.read_parquet(slurm_run / "results" / "runs.parquet")
    assert set(runs["problem"]) == {"A", "wdbc"}
    assert set(runs["method"]) == {"auc", "pfi"}


def test_jobs_ran_as_slurm_jobs(slurm_run):
    # The profile keeps the SLURM logs of successful jobs: one directory per rule (or group).
    logs = slurm_run / ".snakemake" / "slurm_logs"
    ran = {path.parent.name for path in logs.rglob("*.log")} | {
        part for path in logs.rglob("*.log") for part in path.relative_to(logs).parts
    }
    for rule in ("rule_simulate_design", "rule_select_features", "rule_aggregate_results"):
        assert rule in ran, sorted(ran)
    assert any(name.startswith("group_") for name in ran), sorted(ran)
    assert (slurm_run / "results" / "figures" / "results.md").exists()
