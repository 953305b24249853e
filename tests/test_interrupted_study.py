"""`costfs run-study` owns its Snakemake: stopped at a random moment (kill -9 of its process
group, kill -9 of run-study alone, Ctrl-C), the same command resumes the study, and the results
are byte for byte those of a run that was never stopped."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

COSTFS = Path(sys.executable).parent / "costfs"

pytestmark = pytest.mark.workflow


def write_study(folder: Path) -> Path:
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 5))
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(5)])
    frame["target"] = (X[:, 0] + X[:, 1] + rng.normal(scale=0.5, size=150) > 0).astype(int)
    frame.to_csv(folder / "data.csv", index=False)
    costs = pd.DataFrame({"feature": frame.columns[:5], "cost": [1.0, 0.5, 0.2, 0.8, 0.3]})
    costs.to_csv(folder / "costs.csv", index=False)
    made = costfs(folder, "init-study", "data.csv", "--costs", "costs.csv", "--out", "study.yaml")
    assert made.returncode == 0, made.stderr
    config = yaml.safe_load((folder / "study.yaml").read_text())
    config["n_rep"] = 2
    config["methods"] = {"auc": {}, "random_fill": {}, "sts": {"trees_per_depth": 50}}
    config["evaluation"]["n_trees"] = 100
    (folder / "study.yaml").write_text(yaml.safe_dump(config))
    return folder


def costfs(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(COSTFS), *arguments], cwd=folder, capture_output=True, text=True, timeout=900
    )


def run_study(folder: Path) -> subprocess.CompletedProcess:
    return costfs(folder, "run-study", "study.yaml", "--cores", "2")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    folder = write_study(tmp_path_factory.mktemp("interrupted") / "whole")
    ran = run_study(folder)
    assert ran.returncode == 0, ran.stderr[-3000:]
    return folder / "results"


def snakemake_running(folder: Path) -> bool:
    """Whether a Snakemake process works in `folder`."""
    listed = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return any("snakemake" in line and str(folder) in line for line in listed.splitlines())


def started_study(folder: Path, cores: int, stderr=subprocess.DEVNULL) -> subprocess.Popen:
    """run-study of `folder` in a session of its own, once its first job has written."""
    process = subprocess.Popen(
        [str(COSTFS), "run-study", "study.yaml", "--cores", str(cores)],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while not (folder / "results" / "data").exists():
        assert process.poll() is None and time.monotonic() < deadline, "no job started"
        time.sleep(0.2)
    return process


@pytest.mark.parametrize("stop", ["kill the group", "kill run-study", "ctrl-c"])
def test_a_stopped_study_resumes_with_the_same_command_to_the_same_results(
    uninterrupted, tmp_path, stop
):
    folder = write_study(tmp_path / "stopped")
    started = started_study(folder, cores=2, stderr=subprocess.PIPE)
    # A random moment once the jobs run (seeded per case, so that a failure reproduces).
    time.sleep(random.Random(stop).uniform(1.0, 8.0))
    if stop == "kill the group":
        os.killpg(started.pid, signal.SIGKILL)
    elif stop == "kill run-study":
        started.send_signal(signal.SIGKILL)
    else:
        started.send_signal(signal.SIGINT)
    _, stderr = started.communicate(timeout=300)
    if stop == "ctrl-c" and started.returncode != 0:
        # Snakemake was passed the signal and waited for: nothing of it is left running.
        assert "stopped (Interrupt); the same command resumes it" in stderr, stderr[-2000:]
        assert not snakemake_running(folder)
    resumed = run_study(folder)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    for name in ("runs.parquet", "summary.parquet"):
        assert (folder / "results" / name).read_bytes() == (uninterrupted / name).read_bytes()
    again = run_study(folder)
    assert again.returncode == 0 and "Nothing to be done" in again.stderr


def test_a_second_run_study_of_a_running_study_is_refused_naming_the_first(tmp_path):
    folder = write_study(tmp_path / "twice")
    first = started_study(folder, cores=1)
    try:
        second = run_study(folder)
        assert second.returncode == 2
        assert f"another run-study (process {first.pid}) runs this study" in second.stderr
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(timeout=300)
