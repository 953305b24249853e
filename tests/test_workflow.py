"""The Snakemake workflow end to end on config/tiny.yaml (a few minutes on 2 cores)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from costfs.cli.reproduction import BatchStore
from costfs.cli.run_snakemake import snakemake_command
from costfs.methods import load_method
from costfs.study.findings import PAPER_METHODS
from costfs.study.simulate import SETTINGS
from tests.conftest import DATA, REPO

pytestmark = pytest.mark.workflow


def write_study(directory: Path, **changes) -> Path:
    """A copy of the workflow (its Snakefile and rules, the package sources it hashes) with the
    tiny study as its default config, so a test may edit the copy's sources."""
    directory.mkdir(parents=True, exist_ok=True)
    for tree in ("workflow", "src", "envs"):
        if not (directory / tree).exists():
            shutil.copytree(
                REPO / tree,
                directory / tree,
                ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
            )
    config = yaml.safe_load((REPO / "config" / "tiny.yaml").read_text())
    # The study's own copy of its data files, which a test may rewrite.
    data = directory / "data"
    data.mkdir(exist_ok=True)
    for name in config["real_data"]["datasets"]:
        shutil.copy2(DATA / f"{name}.csv.gz", data)
    config["real_data"]["data_dir"] = str(data)
    config.update(changes)
    (directory / "config").mkdir(parents=True, exist_ok=True)
    (directory / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    return directory


def study_command(directory: Path, *arguments: str) -> list[str]:
    return snakemake_command(directory / "workflow" / "Snakefile", directory, *arguments)


def copy_environment(directory: Path) -> dict[str, str]:
    """The jobs import the copy's package, not the installed one: a test may edit the copy."""
    return {**os.environ, "PYTHONPATH": str(directory / "src")}


def snakemake(directory: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        study_command(directory, *arguments),
        capture_output=True,
        text=True,
        timeout=1800,
        env=copy_environment(directory),
    )


RESULT_TABLES = ("results/runs.parquet", "results/summary.parquet")
"""The targets of a test that compares results only: no findings, recommendations or figures."""


def run_study(directory: Path, cores: int, *targets: str) -> Path:
    result = snakemake(directory, "--cores", str(cores), *targets)
    assert result.returncode == 0, result.stderr[-4000:]
    return directory / "results"


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    return run_study(write_study(tmp_path_factory.mktemp("two_cores")), cores=2)


TINY = yaml.safe_load((REPO / "config" / "tiny.yaml").read_text())
ALL_PROBLEMS = ["A", "B", "C", "D", "wdbc"]
RESULT_FIGURES = (
    "table",
    "answer",
    "table_html",
    "cost_accuracy",
    "stability",
    "xi_curves",
    "method_violins",
    "real_comparison",
)
"""The figure outputs of the tiny study drawn from its results."""


def figure_jobs(names, settings: int, problems: int) -> dict[str, int]:
    """The jobs of the figure outputs `names` in a study of `problems` problems, `settings` of
    them simulated: one per output, or one per cell (setting or problem) of an output split
    into cells."""
    from costfs.study.figure_outputs import FIGURE_OUTPUTS

    jobs = {(): 1, ("setting",): settings, ("problem",): problems}
    split = {output.name: output.cells for output in FIGURE_OUTPUTS}
    return {f"plot_{name}": jobs[split[name]] for name in names}


def expected_rows(method: str) -> int:
    """Rows of runs.parquet per method in the tiny study: problems x reps x grid x budgets."""
    settings = TINY["methods"][method]
    problems = len(settings.get("problems", ALL_PROBLEMS))
    hyperparameter = load_method(method).hyperparameter
    if hyperparameter is None:
        grid = 1
    else:
        default = TINY["xi_grid"] if hyperparameter.name == "xi" else hyperparameter.grid
        grid = len(settings.get(hyperparameter.grid_key, default))
    return problems * TINY["n_rep"] * grid * 2  # two budgets per problem


def test_runs_table_has_one_row_per_problem_rep_method_xi_budget(study):
    runs = pd.read_parquet(study / "runs.parquet")
    cell = ["problem", "rep", "hyperparameter_value", "budget"]
    assert {
        method: len(rows[cell].drop_duplicates()) for method, rows in runs.groupby("method")
    } == {method: expected_rows(method) for method in TINY["methods"]}
    # one row per cell, but BudgetRF has one per cost exponent
    per_cell = runs.groupby(["method", *cell], dropna=False).size()
    exponents = load_method("budget_rf").defaults()["cost_exponents"]
    assert set(per_cell.drop("budget_rf")) == {1}
    assert set(per_cell["budget_rf"]) == {len(exponents)}
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
        "selection_engine",
    }
    assert expected <= set(runs.columns)
    assert set(runs["problem"]) == {"A", "B", "C", "D", "wdbc"}
    assert (runs["cost"] <= runs["budget"] + 1e-9).all()
    assert (runs["n_selected"] == runs["features"].map(len)).all()
    assert runs["test_mmce"].between(0, 1).all() and runs["oob_mmce"].between(0, 1).all()
    assert runs["engine"].nunique() == 1
    for method, rows in runs.groupby("method"):
        # A selection without forests of its own is labelled with its preparation's engine.
        declared = load_method(method)
        engine = declared.engine_for(TINY["engine"])
        if engine == "none":
            engine = declared.engine_for(TINY["engine"], stage="prepare")
        assert set(rows["selection_engine"]) == {engine}


def test_settings_share_their_training_data_and_cost_free_work(study):
    prepared = sorted(
        p.relative_to(study / "prepared").as_posix() for p in (study / "prepared").rglob("*.npz")
    )
    # One preparation job per method, data set and block of replicates.
    assert [path for path in prepared if path.startswith(("auc/", "pfi/", "sts/"))] == [
        f"{m}/{d}/reps~1-2/rep~{r}.npz"
        for m in ("auc", "pfi", "sts")
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
    strategies = summary.groupby("method")["strategy"].agg(lambda s: set(s)).to_dict()
    assert strategies == {method: set(load_method(method).strategies) for method in TINY["methods"]}
    cells = summary.groupby(["method", "strategy"]).size()
    assert cells[("auc", "tuned")] == 5 * 2 and cells[("fs", "simple")] == 2 * 2
    assert (summary["n_runs"] == 2).all()
    assert (summary["ci_low"] <= summary["mmce_mean"]).all()
    assert (summary["mmce_mean"] <= summary["ci_high"]).all()
    real = summary[summary["kind"] == "real"]
    assert real["rank"].notna().all() and real["mean_rank"].notna().all()
    assert summary.loc[summary["kind"] == "simulated", "rank"].isna().all()


def test_findings_compare_the_papers_entries_per_setting(study):
    findings = study / "findings"
    differences = pd.read_csv(findings / "method_differences.csv")
    fs = differences[(differences["method"] == "fs") & (differences["versus_method"] == "fs")]
    # FS-0 against FS-1 wherever forward selection ran, per budget
    assert set(fs["problem"]) == set(TINY["methods"]["fs"]["problems"])
    assert (differences["ci_low"] <= differences["mean"]).all()
    profile = pd.read_csv(findings / "selected_features.csv")
    assert set(profile["problem"]) == {"A", "B", "C", "D"}
    assert profile["share_informative"].between(0, 1).all()
    ranks = pd.read_csv(findings / "ranks.csv")
    assert set(ranks["ranking"]) == {"paper", "all"}
    curves = pd.read_csv(findings / "xi_curves.csv")
    assert curves.groupby(["problem", "budget", "method"])["is_minimum"].any().all()


def test_stage_costs_cover_every_computing_job(study):
    costs = pd.read_csv(study / "findings" / "stage_costs.csv")
    assert set(costs["rule"]) == {"prepare_method", "select_features", "evaluate_selection"}
    # A selection job per problem (its 2 replicates in one block of up to 10), an evaluation
    # job per problem.
    for rule, jobs_per_problem in (("select_features", 1), ("evaluate_selection", 1)):
        jobs = costs[costs["rule"] == rule].set_index("method")["jobs"].to_dict()
        assert jobs == {
            method: len(settings.get("problems", ALL_PROBLEMS)) * jobs_per_problem
            for method, settings in TINY["methods"].items()
        }
    # A preparation job per data set of the method's problems (both replicates in one block).
    jobs = costs[costs["rule"] == "prepare_method"].set_index("method")["jobs"].to_dict()
    assert jobs == {
        method: len(
            {
                SETTINGS[problem][0] if problem in SETTINGS else problem
                for problem in settings.get("problems", ALL_PROBLEMS)
            }
        )
        for method, settings in TINY["methods"].items()
        if load_method(method).has_preparation
    }
    assert (costs["wall_hours"] > 0).all()
    # Snakemake samples a job's CPU time once a second: a faster job (a small filter's
    # selection) has none, so only the total is sure to be positive.
    assert costs["cpu_hours"].sum() > 0


def test_nothing_left_to_do_after_a_run(study):
    result = snakemake(study.parent, "-n", "--cores", "1")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Nothing to be done" in result.stdout + result.stderr


def test_config_errors_name_the_key(tmp_path):
    write_study(tmp_path, xi_grid=[0.5, 2])
    result = snakemake(tmp_path, "-n", "--cores", "1")
    assert result.returncode != 0
    assert "xi=0 in xi_grid" in result.stdout + result.stderr
    write_study(tmp_path, n_reps=3)
    result = snakemake(tmp_path, "-n", "--cores", "1")
    assert result.returncode != 0 and "n_reps" in result.stdout + result.stderr


def planned_jobs(directory: Path) -> dict[str, int]:
    """Rule -> number of jobs a dry run plans."""
    result = snakemake(directory, "-n", "--quiet", "rules", "--cores", "1")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    counts = {}
    for line in result.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] not in ("job", "total"):
            counts[parts[0]] = int(parts[1])
    return counts


def jobs_after_editing(directory: Path, relative: str) -> dict[str, int]:
    """The jobs a dry run plans while the copy's file `relative` has an edit."""
    module = directory / relative
    original = module.read_text()
    try:
        module.write_text(original + "\n# an edit\n")
        return planned_jobs(directory)
    finally:
        module.write_text(original)


def test_editing_one_method_reruns_only_that_method(study):
    directory = study.parent
    jobs = jobs_after_editing(directory, "src/costfs/methods/auc.py")
    # auc's cost-free scores (3 data sets, both reps in one job), its selections (5 problems,
    # both reps in one job) and evaluations (5 problems), then aggregation and figures, and
    # the provenance record names the new code; no data, no other method.
    assert jobs == {
        "prepare_method": 3,
        "select_features": 5,
        "evaluate_selection": 5,
        "aggregate_results": 1,
        "recommend_features": 1,
        "tabulate_findings": 1,
        # Every figure of results; not the data's correlations, drawn from the data alone.
        **figure_jobs(RESULT_FIGURES, settings=4, problems=5),
        "record_provenance": 1,
        "all": 1,
    }
    os.utime(directory / "src/costfs/methods/auc.py")  # touched, unchanged
    assert planned_jobs(directory) == {}


def test_editing_the_data_loading_command_reruns_the_jobs_that_load_data(study):
    jobs = jobs_after_editing(study.parent, "src/costfs/cli/stages/realdata.py")
    assert jobs["load_real_dataset"] == 1 and jobs["split_real_data"] == 2
    assert not any(rule.startswith("simulate") for rule in jobs)


def test_rewriting_a_data_file_reruns_its_loading_and_what_follows(study):
    data_file = study.parent / "data" / "wdbc.csv.gz"
    original, times = data_file.read_bytes(), data_file.stat()
    frame = pd.read_csv(data_file)
    frame.loc[0, "target"] = 1 - frame.loc[0, "target"]  # a corrected label
    try:
        frame.to_csv(data_file, index=False)
        jobs = planned_jobs(study.parent)
    finally:
        data_file.write_bytes(original)
        os.utime(data_file, ns=(times.st_atime_ns, times.st_mtime_ns))
    assert jobs["load_real_dataset"] == 1 and jobs["split_real_data"] == 2
    assert not any(rule.startswith("simulate") for rule in jobs)
    assert planned_jobs(study.parent) == {}


def test_a_new_budget_reruns_the_selections_but_not_the_data_or_the_cost_free_work(study):
    config_path = study.parent / "config" / "config.yaml"
    original = config_path.read_text()
    config = yaml.safe_load(original)
    config["real_data"]["datasets"]["wdbc"]["budgets"] = [1, 2, 4]
    try:
        config_path.write_text(yaml.safe_dump(config))
        jobs = planned_jobs(study.parent)
    finally:
        config_path.write_text(original)
    assert not {"load_real_dataset", "split_real_data", "draw_costs", "prepare_method"} & set(jobs)
    assert jobs["select_features"] > 0


DATA_STAGES = {"simulate_design", "simulate_data", "load_real_dataset", "split_real_data"}


def edit_config(config: dict, path: str, value) -> None:
    *parents, key = path.split(".")
    for parent in parents:
        config = config[parent]
    config[key] = value


@pytest.mark.parametrize(
    ("path", "value", "reruns", "stays"),
    [
        ("simulation.budgets", [1, 4], "select_features", DATA_STAGES | {"prepare_method"}),
        ("xi_grid", [0, 1], "select_features", DATA_STAGES | {"draw_costs", "prepare_method"}),
        (
            "methods.sts.trees_per_depth",
            40,
            "prepare_method",
            DATA_STAGES | {"draw_costs"},
        ),
        (
            "evaluation.n_trees",
            60,
            "evaluate_selection",
            DATA_STAGES | {"draw_costs", "prepare_method", "select_features"},
        ),
        (
            "strategies",
            ["agnostic", "tuned"],
            "aggregate_results",
            DATA_STAGES | {"draw_costs", "prepare_method", "select_features", "evaluate_selection"},
        ),
        ("real_data.cost_range", [0.2, 1.0], "draw_costs", DATA_STAGES | {"prepare_method"}),
    ],
)
def test_a_key_of_a_later_stage_reruns_no_earlier_stage(study, path, value, reruns, stays):
    """Each stage's jobs see only the keys they use: changing a key of a later stage plans
    that stage's jobs (and what follows) but none of an earlier stage."""
    config_path = study.parent / "config" / "config.yaml"
    original = config_path.read_text()
    config = yaml.safe_load(original)
    edit_config(config, path, value)
    try:
        config_path.write_text(yaml.safe_dump(config))
        jobs = planned_jobs(study.parent)
    finally:
        config_path.write_text(original)
    assert jobs.get(reruns, 0) > 0, jobs
    assert not stays & set(jobs), jobs


def test_the_code_hash_is_that_of_the_installed_costfs_that_runs(study, tmp_path):
    """With a non-editable install, the jobs run the installed package: editing it reruns its
    users; editing the workflow's own src/ (which does not run) reruns nothing."""
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(site),
            str(REPO),
        ],
        check=True,
        timeout=600,
    )
    installed = {**os.environ, "PYTHONPATH": str(site)}

    def planned() -> str:
        """What a dry run with the installed package says."""
        command = study_command(study.parent, "-n", "--quiet", "rules", "--cores", "1")
        result = subprocess.run(command, capture_output=True, text=True, env=installed, timeout=600)
        assert result.returncode == 0, result.stderr[-2000:]
        return result.stdout + result.stderr

    said = planned()
    assert "Nothing to be done" in said
    assert f"The jobs run costfs from {site / 'costfs'}" in said
    workflow_copy = study.parent / "src" / "costfs" / "methods" / "auc.py"
    original = workflow_copy.read_text()
    try:
        workflow_copy.write_text(original + "\n# an edit that does not run\n")
        assert "Nothing to be done" in planned()
    finally:
        workflow_copy.write_text(original)
    with (site / "costfs" / "methods" / "auc.py").open("a") as module:
        module.write("\n# an edit that runs\n")
    assert "select_features" in planned()


def test_a_selection_parameter_reruns_selections_but_not_the_cost_free_work(study):
    directory = study.parent
    config_path = directory / "config" / "config.yaml"
    original = config_path.read_text()
    config = yaml.safe_load(original)
    config["methods"]["sts"]["positive_delta"] = "divide"
    try:
        config_path.write_text(yaml.safe_dump(config))
        jobs = planned_jobs(directory)
    finally:
        config_path.write_text(original)
    assert "prepare_method" not in jobs
    assert jobs["select_features"] == 5  # sts on 5 problems (2 reps a job)


def test_editing_a_shared_module_reruns_its_users_but_not_the_data(study):
    jobs = jobs_after_editing(study.parent, "src/costfs/methods/_bcr.py")
    assert not any(rule.startswith(("simulate", "split", "load", "draw")) for rule in jobs)
    assert jobs["select_features"] >= 10  # at least auc and pfi, which fill by the BCR


def test_a_run_killed_on_two_cores_resumes_on_one_to_identical_results(study, tmp_path):
    """Killed after its first evaluations, the run resumes on one core: all but those jobs run
    single-threaded and one at a time, and the results equal the two-core study's byte for
    byte (resume and thread-count independence in one run of the study)."""
    directory = write_study(tmp_path)
    process = subprocess.Popen(
        study_command(directory, "--cores", "2", *RESULT_TABLES),
        env=copy_environment(directory),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    evaluations = directory / "results" / "evaluation"
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline and len(list(evaluations.rglob("*.parquet"))) < 3:
        time.sleep(0.5)
    # kill -9 of snakemake and of the jobs it runs, as when a node or session dies
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not (directory / "results" / "runs.parquet").exists()
    for partial in (directory / "results").rglob("*.tmp"):
        raise AssertionError(f"a partial file was left: {partial}")
    resume = ("--cores", "1", "--rerun-incomplete", *RESULT_TABLES)
    result = snakemake(directory, *resume)
    if "LockException" in result.stdout + result.stderr or "locked" in result.stdout:
        assert snakemake(directory, "--unlock", "--cores", "1").returncode == 0
        result = snakemake(directory, *resume)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for name in ("runs.parquet", "summary.parquet"):
        assert (directory / "results" / name).read_bytes() == (study / name).read_bytes(), name


def test_job_overhead_splits_each_jobs_wall_time_into_logged_work_and_the_rest(study):
    """benchmarks/job_overhead.py on the tiny study: a row per stage rule and method, each job's
    logged work within its wall time."""
    listed = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "job_overhead.py"),
            "--workdir",
            str(study.parent),
        ],
        capture_output=True,
        text=True,
    )
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    rows = [line.split() for line in lines[1:-1]]
    assert lines[0].split() == ["rule", "method", "jobs", "wall_s", "work_s", "other_s"] + [
        "other_per_job_s"
    ]
    assert {(row[0], row[1]) for row in rows} >= {
        (rule, method)
        for rule in ("select_features", "evaluate_selection")
        for method in TINY["methods"]
    }
    for _, _, _, wall, work, other, _ in rows:
        assert 0 <= float(work) <= float(wall)
        assert float(other) == pytest.approx(float(wall) - float(work), abs=0.02)
    assert lines[-1].startswith("all: ") and "besides the logged work" in lines[-1]


def test_a_study_run_in_batches_of_replicates_equals_one_run_of_them_all(study, tmp_path):
    """Replicate 2 run alone as a batch (first_rep), joined by `costfs combine-batches` with
    replicate 1 of the two-replicate study: that study's runs table and summary, byte for
    byte."""
    second = run_study(
        write_study(tmp_path / "batch2", first_rep=2, n_rep=1),
        2,
        *RESULT_TABLES,
        "results/provenance.json",
        # Reads the batch's first replicate's training sample, not replicate 1's.
        "results/findings/problems.csv",
    )
    assert set(pd.read_parquet(second / "runs.parquet")["rep"]) == {2}
    first = tmp_path / "batch1"
    shutil.copytree(study / "costs", first / "costs")
    runs = pd.read_parquet(study / "runs.parquet")
    runs[runs["rep"] == 1].to_parquet(first / "runs.parquet")
    provenance = json.loads((study / "provenance.json").read_text())
    assert provenance["replicates"] == [[1, 2]]
    provenance["replicates"] = [[1, 1]]
    (first / "provenance.json").write_text(json.dumps(provenance))
    batches = [first, second]
    out = tmp_path / "union"
    combined = subprocess.run(
        [sys.executable, "-m", "costfs.cli", "combine-batches", *map(str, batches)]
        + ["--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert combined.returncode == 0, combined.stderr
    for name in ("runs.parquet", "summary.parquet"):
        assert (out / name).read_bytes() == (study / name).read_bytes(), name
    joined = json.loads((out / "provenance.json").read_text())
    assert joined == {**provenance, "replicates": [[1, 1], [2, 2]]}
    twice = subprocess.run(
        [sys.executable, "-m", "costfs.cli", "combine-batches", str(batches[1])]
        + [str(batches[1]), "--out", str(tmp_path / "twice")],
        capture_output=True,
        text=True,
    )
    assert twice.returncode != 0 and "replicate 2 of auc on A is also in" in twice.stderr


@pytest.mark.parametrize(
    "changed",
    ["seed", "budgets", "method setting", "data", "code", "no record"],
)
def test_combine_batches_refuses_batches_of_other_studies_naming_the_difference(
    study, tmp_path, changed
):
    """Two batches of replicate 1 and 2 from the study's results, the second's provenance
    changed as a batch of another study would have it."""
    batches = []
    runs = pd.read_parquet(study / "runs.parquet")
    provenance = json.loads((study / "provenance.json").read_text())
    for rep in (1, 2):
        batch = tmp_path / f"batch{rep}"
        shutil.copytree(study / "costs", batch / "costs")
        runs[runs["rep"] == rep].to_parquet(batch / "runs.parquet")
        record = {**provenance, "replicates": [[rep, rep]]}
        if rep == 2:
            record = json.loads(json.dumps(record))
            if changed == "seed":
                record["study"]["seed"] += 1
            elif changed == "budgets":
                record["study"]["simulation"]["budgets"] = [0.5, 100]
            elif changed == "method setting":
                record["study"]["methods"]["sts"]["trees_per_depth"] = 7
            elif changed == "data":
                record["inputs"]["data/wdbc"] = "0" * 64
            elif changed == "code":
                record["code"] = "0" * 16
        if changed != "no record" or rep == 1:
            (batch / "provenance.json").write_text(json.dumps(record))
        batches.append(str(batch))
    command = [sys.executable, "-m", "costfs.cli", "combine-batches", *batches]
    refused = subprocess.run(
        [*command, "--out", str(tmp_path / "union")], capture_output=True, text=True
    )
    assert refused.returncode == 2
    assert not (tmp_path / "union").exists()
    expected = {
        "seed": "study.seed: ",
        "budgets": "study.simulation.budgets: [1, 3] against [0.5, 100]",
        "method setting": "study.methods.sts.trees_per_depth: ",
        "data": "inputs.data/wdbc: ",
        "code": "--allow-other-code",
        "no record": "batch2/provenance.json: no provenance record",
    }[changed]
    assert f"{batches[1]}" in refused.stderr and expected in refused.stderr
    if changed == "code":
        allowed = subprocess.run(
            [*command, "--out", str(tmp_path / "union"), "--allow-other-code"],
            capture_output=True,
            text=True,
        )
        assert allowed.returncode == 0, allowed.stderr
        assert len(json.loads((tmp_path / "union" / "provenance.json").read_text())["code"]) == 2


def test_a_reproduction_batch_killed_resumes_and_holds_the_full_runs_replicate(study, tmp_path):
    """The reproduction's `run-batch` on the tiny study's setting A (the paper's entries,
    replicate 1): a second run in the same working directory stops at once; killed with -9
    after its first selection, the batch resumes when run again (past Snakemake's stale lock)
    and keeps the rows the full two-replicate study has for those methods, A and replicate 1."""
    workdir, store = tmp_path / "work", tmp_path / "store"
    config = {**TINY, "simulation": {**TINY["simulation"], "settings": ["A"]}}
    config["real_data"] = {**TINY["real_data"], "datasets": {}}
    config["methods"] = {**TINY["methods"], "fs": {**TINY["methods"]["fs"], "problems": ["A"]}}
    (tmp_path / "batch.yaml").write_text(yaml.safe_dump(config))
    command = [sys.executable, "-m", "costfs.cli.reproduction", "run-batch"]
    command += ["--config", str(tmp_path / "batch.yaml"), "--methods", "paper"]
    command += [
        "--first-rep",
        "1",
        "--n-rep",
        "1",
        "--workdir",
        str(workdir),
        "--store",
        str(store),
    ]
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    selections = workdir / "results" / "selection"
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline and not list(selections.rglob("*.parquet")):
        assert process.poll() is None, "the batch stopped before its first selection"
        time.sleep(0.5)
    second = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert second.returncode != 0 and "another batch runs in" in second.stderr
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert list((workdir / ".snakemake" / "locks").iterdir()), "the kill left no lock to clear"
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    (kept,) = BatchStore(store).unpack(["paper-reps-1-1"], tmp_path / "unpacked")
    kept = pd.read_parquet(kept / "runs.parquet")
    full = pd.read_parquet(study / "runs.parquet")
    full = full[(full["rep"] == 1) & (full["problem"] == "A") & full["method"].isin(PAPER_METHODS)]
    assert set(kept["method"]) == PAPER_METHODS and set(kept["problem"]) == {"A"}
    # The full study's further columns are the other methods' own (and the feature names).
    order = ["problem", "method", "hyperparameter", "hyperparameter_value", "budget"]
    pd.testing.assert_frame_equal(
        kept.sort_values(order).reset_index(drop=True),
        full[kept.columns].sort_values(order).reset_index(drop=True),
    )
