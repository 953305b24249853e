"""The Snakemake workflow end to end on config/tiny.yaml (a few minutes on 2 cores)."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.conftest import REPO, SHARED_DATA

pytestmark = pytest.mark.workflow


def write_study(directory: Path, **changes) -> Path:
    config = yaml.safe_load((REPO / "config" / "tiny.yaml").read_text())
    config["real_data"]["data_dir"] = str(SHARED_DATA)
    config.update(changes)
    (directory / "config").mkdir(parents=True, exist_ok=True)
    (directory / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    return directory


def snakemake(directory: Path, *arguments: str) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(directory),
        *arguments,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=1800)


def run_study(directory: Path, cores: int) -> Path:
    result = snakemake(directory, "--cores", str(cores))
    assert result.returncode == 0, result.stderr[-4000:]
    return directory / "results"


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    return run_study(write_study(tmp_path_factory.mktemp("two_cores")), cores=2)


def test_runs_table_has_one_row_per_problem_rep_method_xi_budget(study):
    runs = pd.read_parquet(study / "runs.parquet")
    assert len(runs) == 5 * 2 * 2 * 3 * 2
    expected = {
        "problem",
        "kind",
        "dataset",
        "rep",
        "method",
        "hyperparameter",
        "hyperparameter_value",
        "budget",
        "features",
        "n_selected",
        "cost",
        "oob_mmce",
        "test_mmce",
        "engine",
    }
    assert expected <= set(runs.columns)
    assert set(runs["problem"]) == {"A", "B", "C", "D", "wdbc"}
    assert (runs["cost"] <= runs["budget"] + 1e-9).all()
    assert (runs["n_selected"] == runs["features"].map(len)).all()
    assert runs["test_mmce"].between(0, 1).all() and runs["oob_mmce"].between(0, 1).all()
    assert runs["engine"].nunique() == 1


def test_settings_share_their_training_data_and_cost_free_work(study):
    prepared = sorted(
        p.relative_to(study / "prepared").as_posix() for p in (study / "prepared").rglob("*.npz")
    )
    assert prepared == [
        f"{m}/{d}/rep~{r}.npz"
        for m in ("auc", "pfi")
        for d in ("correlated", "independent", "wdbc")
        for r in (1, 2)
    ]
    runs = pd.read_parquet(study / "runs.parquet")
    # A set's refit is seeded by the data set, replicate and set: whichever method selected it,
    # the same set on the same data gets the same numbers.
    runs["key"] = runs["features"].map(tuple)
    outcomes = runs.groupby(["dataset", "rep", "key"])["test_mmce"].agg(["nunique", "size"])
    assert (outcomes["nunique"] == 1).all()
    assert (outcomes["size"] > 1).any()


def test_summary_has_strategies_intervals_and_real_data_ranks(study):
    summary = pd.read_parquet(study / "summary.parquet")
    assert set(summary["strategy"]) == {"agnostic", "simple", "tuned"}
    assert len(summary) == (4 * 2 + 2) * 2 * 3
    assert (summary["n_runs"] == 2).all()
    assert (summary["ci_low"] <= summary["mmce_mean"]).all()
    assert (summary["mmce_mean"] <= summary["ci_high"]).all()
    real = summary[summary["kind"] == "real"]
    assert real["rank"].notna().all() and real["mean_rank"].notna().all()
    assert summary.loc[summary["kind"] == "simulated", "rank"].isna().all()


def test_nothing_left_to_do_after_a_run(study):
    result = snakemake(study.parent, "-n", "--cores", "1")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Nothing to be done" in result.stdout + result.stderr


def test_one_and_two_cores_give_byte_identical_results(study, tmp_path):
    other = run_study(write_study(tmp_path), cores=1)
    for name in ("runs.parquet", "summary.parquet"):
        assert (other / name).read_bytes() == (study / name).read_bytes(), name


def test_config_errors_name_the_key(tmp_path):
    write_study(tmp_path, xi_grid=[0.5, 2])
    result = snakemake(tmp_path, "-n", "--cores", "1")
    assert result.returncode != 0
    assert "xi=0 in xi_grid" in result.stdout + result.stderr
    write_study(tmp_path, n_reps=3)
    result = snakemake(tmp_path, "-n", "--cores", "1")
    assert result.returncode != 0 and "n_reps" in result.stdout + result.stderr
