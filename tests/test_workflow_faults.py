"""A failing job in the workflow: it leaves no output and a readable log, the other jobs run on
(--keep-going), and the rerun does only what failed. A module of its own, so that its study runs
on another pytest worker than test_workflow.py's."""

import os
import subprocess

import numpy as np
import pandas as pd
import pytest

from tests.test_workflow import (
    RESULT_FIGURES,
    TINY,
    figure_jobs,
    planned_jobs,
    snakemake,
    study_command,
    write_study,
)

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def faulty_study(tmp_path_factory) -> dict:
    """A small study whose relieff selections raise, run with --keep-going, then rerun.

    Its budgets are one below every feature's cost (0.05 < cost_min) and one above the total.
    """
    directory = write_study(
        tmp_path_factory.mktemp("faulty"),
        simulation={**TINY["simulation"], "settings": ["A"], "budgets": [0.05, 100]},
        real_data={**TINY["real_data"], "datasets": {}},
        methods={"auc": {}, "sts": TINY["methods"]["sts"], "relieff": {}},
    )
    # The fault comes from outside the code (as a crash or a full disk would), so the code
    # hashes do not change and the rerun has exactly the failed jobs to redo.
    fault = tmp_path_factory.mktemp("fault")
    (fault / "sitecustomize.py").write_text(
        "import costfs.methods.relieff\n\n\n"
        "def select(*args, **kwargs):\n    raise RuntimeError('injected fault')\n\n\n"
        "costfs.methods.relieff.ReliefFSelector.select = select\n"
    )
    failed = subprocess.run(
        study_command(directory, "--cores", "2", "--keep-going"),
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PYTHONPATH": f"{fault}{os.pathsep}{directory / 'src'}"},
    )
    observed = {
        "failed": failed,
        "after_failure": sorted(
            p.relative_to(directory).as_posix() for p in (directory / "results").rglob("*")
        ),
        "logs": {
            p.relative_to(directory).as_posix(): p.read_text()
            for p in (directory / "logs" / "select_features").rglob("*.log")
        },
    }
    observed["planned"] = planned_jobs(directory)
    repaired = snakemake(directory, "--cores", "2")
    assert repaired.returncode == 0, repaired.stderr[-3000:]
    observed["results"] = directory / "results"
    return observed


def test_a_failing_job_leaves_no_output_and_a_readable_log(faulty_study):
    assert faulty_study["failed"].returncode != 0
    files = faulty_study["after_failure"]
    assert not [f for f in files if f.startswith("results/selection/relieff/")]
    # No temporary file is left (Snakemake marks each finished folder output with its own
    # .snakemake_timestamp).
    leftovers = [f for f in files if f.endswith(".tmp") or "/." in f]
    assert not [f for f in leftovers if not f.endswith("/.snakemake_timestamp")]
    relieff_logs = [text for name, text in faulty_study["logs"].items() if "RuntimeError" in text]
    assert relieff_logs and all("RuntimeError: injected fault" in t for t in relieff_logs)
    # --keep-going: every other method's work was done
    for method in ("auc", "sts"):
        assert f"results/evaluation/{method}/A/reps~1-2.parquet" in files


def test_the_rerun_after_a_fault_does_only_what_failed(faulty_study):
    # relieff's cost-free prepare succeeded; its selection job (A's 2 replicates) failed, and
    # with it its evaluation of A
    assert faulty_study["planned"] == {
        "select_features": 1,
        "evaluate_selection": 1,
        "aggregate_results": 1,
        "recommend_features": 1,
        "tabulate_findings": 1,
        # The tiny study's figures without real data or a correlated setting.
        **figure_jobs(
            [name for name in RESULT_FIGURES if name != "real_comparison"], settings=1, problems=1
        ),
        "all": 1,
    }


def test_edge_budgets_are_valid_rows(faulty_study):
    results = faulty_study["results"]
    runs = pd.read_parquet(results / "runs.parquet")
    assert set(runs["budget"]) == {0.05, 100}
    below = runs[runs["budget"] == 0.05]
    assert (below["n_selected"] == 0).all() and (below["cost"] == 0).all()
    for rep, rows in below.groupby("rep"):
        train = np.load(results / "data/simulated/independent" / f"rep~{rep}" / "train.npz")
        test = np.load(results / "data/simulated/independent/test.npz")
        majority = int(train["y"].mean() > 0.5)
        assert np.allclose(rows["test_mmce"], np.mean(test["y"] != majority))
    above = runs[runs["budget"] == 100]
    assert (above["n_selected"] > 0).all()
    summary = pd.read_parquet(results / "summary.parquet")
    assert set(summary["budget"]) == {0.05, 100} and summary["mmce_mean"].notna().all()
