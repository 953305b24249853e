import functools
import json
import shlex
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger
from snakemake.utils import validate

import yaml

import costfs
from costfs.methods import load_method, method_names
from costfs.study.config import ConfigError, check_config
from costfs.study.findings import TABLES as FINDING_TABLES
from costfs.study.plan import Study, StudyError, workflow_threads
from costfs.study.provenance import code_version, package_code_version, study_identity

# workflow.current_basedir is this file's directory (`workflow/rules/`), whichever Snakefile
# includes it (the top-level one or `workflow/Snakefile`).
SCHEMA = Path(workflow.current_basedir).parent / "schemas" / "config.schema.yaml"
# The jobs run the `costfs` this Python imports (the same interpreter and environment, see
# shell.prefix below), so the code hashes are taken of that package: with a non-editable
# install, editing the workflow's own src/ changes nothing that runs and reruns nothing.
SOURCE = Path(costfs.__file__).resolve().parent
WORKFLOW_SOURCE = Path(workflow.current_basedir).parents[1] / "src" / "costfs"
if WORKFLOW_SOURCE.is_dir() and WORKFLOW_SOURCE.resolve() != SOURCE:
    logger.warning(
        f"The jobs run costfs from {SOURCE}, not this workflow's {WORKFLOW_SOURCE}: edits "
        "there take effect (and rerun jobs) only once installed; `pip install -e .` makes the "
        "workflow's source the one that runs."
    )
try:
    check_config(config, yaml.safe_load(SCHEMA.read_text()))
except ConfigError as error:
    raise WorkflowError(f"invalid config: {error}") from None
# Fills in the schema's defaults.
validate(config, str(SCHEMA))
try:
    STUDY = Study(config)
except StudyError as error:
    raise WorkflowError(str(error)) from None

# A param of record_provenance: the results of a batch run with other code are another
# study's to `costfs combine-batches`.
PACKAGE_CODE = package_code_version(SOURCE)
CONDA_ENV = "../../envs/costfs.yaml"
# Jobs run the `costfs` command of the Python environment that runs Snakemake.
shell.prefix(f'export PATH={shlex.quote(str(Path(sys.executable).parent))}:"$PATH"; ')
PROBLEMS = STUDY.problems
SIMULATION = config["simulation"]
REAL = config["real_data"]
REPS = STUDY.reps


def alternatives(names):
    return "|".join(sorted(names, key=len, reverse=True)) or "(?!)"


wildcard_constraints:
    problem=alternatives(PROBLEMS),
    dataset=alternatives(STUDY.datasets),
    data_type="independent|correlated",
    method=alternatives(STUDY.methods),
    rep=r"\d+",
    block=r"\d+-\d+",
    setting=alternatives(STUDY.problem_names("simulated")),


@functools.cache
def stage_code(stage, *methods):
    """Hash of the code a rule's command runs: the command-line entry point, the stage's module
    `costfs/cli/stages/<stage>.py`, the `methods` it calls by name and every package module
    they import, read from the package the jobs run (`SOURCE`). A param of every rule, so that
    editing a module reruns the jobs that run it and nothing else (Snakemake does not follow
    Python imports). Cached: the sources do not change while Snakemake plans, and parsing them
    again for each of thousands of jobs took most of a large study's planning."""
    return code_version(
        "cli/__init__.py",
        f"cli/stages/{stage}.py",
        *(f"methods/{method}.py" for method in methods),
        root=SOURCE,
    )


def as_json(value):
    return json.dumps(value, sort_keys=True)


def cost_sources(wildcards):
    problem = PROBLEMS[wildcards.problem]
    if problem.kind == "simulated":
        return {"design": "results/design/simulation.npz"}
    sources = {"dataset": f"results/data/real/{problem.dataset}/full.npz"}
    costs_file = REAL["datasets"][problem.dataset].get("costs")
    if costs_file:
        sources["costs_file"] = costs_file
    return sources


def cost_arguments(wildcards):
    """draw-costs' arguments, from the config and the wildcards only: Snakemake does not
    compare a parameter that reads the input, so a changed cost_range or group_costs would
    not rerun the job."""
    problem = PROBLEMS[wildcards.problem]
    sources = cost_sources(wildcards)
    if problem.kind == "simulated":
        return f"--design {sources['design']} --cost-type {problem.cost_type}"
    if sources.get("costs_file"):
        arguments = ["--dataset", sources["dataset"], "--costs-file", sources["costs_file"]]
        group_costs = REAL["datasets"][problem.dataset].get("group_costs")
        if group_costs:
            arguments += ["--group-costs", as_json(group_costs)]
        return shlex.join(arguments)
    low, high = REAL["cost_range"]
    return f"--dataset {sources['dataset']} --cost-range {low} {high}"


def block_reps(wildcards):
    """The replicates of the job's block of its method."""
    return STUDY.selection_blocks[wildcards.method][wildcards.block]


def prepared_paths(wildcards):
    """The method's cost-free part for the data set of each replicate of the block (none for
    a method without one)."""
    if not load_method(wildcards.method).has_preparation:
        return []
    dataset = PROBLEMS[wildcards.problem].dataset
    return [STUDY.prepared_path(wildcards.method, dataset, rep) for rep in block_reps(wildcards)]


def selection_inputs(wildcards):
    dataset = PROBLEMS[wildcards.problem].dataset
    inputs = {
        "training_data": [STUDY.training_path(dataset, rep) for rep in block_reps(wildcards)],
        "costs": f"results/costs/{wildcards.problem}.npz",
    }
    if load_method(wildcards.method).has_preparation:
        # The folder of the preparation job of the same block (the files in it are arguments).
        inputs["prepared"] = STUDY.prepared_folder(wildcards.method, dataset, wildcards.block)
    return inputs


def provenance_inputs(wildcards):
    """What a study's replicates are computed from besides its config: each real data set as
    loaded, each problem's costs and the simulation's design."""
    inputs = {f"costs/{name}": f"results/costs/{name}.npz" for name in PROBLEMS}
    inputs |= {f"data/{name}": f"results/data/real/{name}/full.npz" for name in REAL["datasets"]}
    if any(problem.kind == "simulated" for problem in PROBLEMS.values()):
        inputs["design"] = "results/design/simulation.npz"
    return inputs


def problem_descriptions(wildcards):
    """Per problem: its data (a real data set whole, a simulated setting's first training
    sample) and its costs."""
    inputs = {}
    for name, problem in PROBLEMS.items():
        inputs[f"{name}_data"] = (
            f"results/data/real/{problem.dataset}/full.npz"
            if problem.kind == "real"
            else STUDY.training_path(problem.dataset, REPS[0])
        )
        inputs[f"{name}_costs"] = f"results/costs/{name}.npz"
    return inputs


def problem_arguments(wildcards, input):
    """`--problem NAME KIND DATA COSTS` of every problem, from `problem_descriptions`."""
    return " ".join(
        shlex.join(
            [
                "--problem",
                name,
                problem.kind,
                input[f"{name}_data"],
                input[f"{name}_costs"],
            ]
        )
        for name, problem in PROBLEMS.items()
    )


def findings_inputs(wildcards):
    """The runs and timings, and with simulated settings their design (what the selected
    features are made of)."""
    inputs = {"runs": "results/runs.parquet", "timings": "results/timings.parquet"}
    if any(problem.kind == "simulated" for problem in PROBLEMS.values()):
        inputs["design"] = "results/design/simulation.npz"
    return inputs


def evaluation_inputs(wildcards):
    """The selection job of the block (its folder), and per replicate its data."""
    dataset = PROBLEMS[wildcards.problem].dataset
    reps = block_reps(wildcards)
    return {
        "selections": STUDY.selection_folder(wildcards.method, wildcards.problem, wildcards.block),
        "training_data": [STUDY.training_path(dataset, rep) for rep in reps],
        "test_data": [STUDY.test_path(wildcards.problem, rep) for rep in reps],
    }


def evaluation_parameters(wildcards):
    """The problem, and per replicate of the block its selection and artifacts in the
    selection folder."""
    problem = PROBLEMS[wildcards.problem]
    reps = block_reps(wildcards)
    paths = {
        suffix: " ".join(
            STUDY.selection_path(wildcards.method, wildcards.problem, rep, suffix) for rep in reps
        )
        for suffix in (".parquet", ".artifacts.npz")
    }
    return (
        f"--kind {problem.kind} --dataset {problem.dataset} --reps {' '.join(map(str, reps))}"
        f" --selections {paths['.parquet']} --artifacts {paths['.artifacts.npz']}"
    )


def selection_arguments(wildcards):
    """The run's arguments of `costfs select-features`. Computed from the wildcards only:
    Snakemake ignores changes of params derived from the input files."""
    problem = PROBLEMS[wildcards.problem]
    arguments = [
        "--dataset",
        problem.dataset,
        "--reps",
        *(str(rep) for rep in block_reps(wildcards)),
        "--budgets",
        as_json(problem.budgets),
        "--grid",
        as_json(STUDY.method_grid(wildcards.method)),
        "--params",
        as_json(STUDY.method_parameters(wildcards.method, "select")),
    ]
    prepared = prepared_paths(wildcards)
    if prepared:
        arguments += ["--prepared", *prepared]
    return shlex.join(arguments)


def selection_threads(wildcards):
    return workflow_threads("select_features", wildcards.method)


def preparation_threads(wildcards):
    return workflow_threads("prepare_method", wildcards.method)


def figure_inputs(figure):
    """The study tables `figure` is drawn from (`FigureOutput.reads`): its job waits for
    these only."""
    tables = {
        "runs": "results/runs.parquet",
        "summary": "results/summary.parquet",
        "recommendations": "results/recommendations.csv",
        "schedules": [f"results/schedules/{method}.parquet" for method in STUDY.schedule_methods()],
        "real_data": [f"results/data/real/{name}/full.npz" for name in sorted(REAL["datasets"])],
    }
    if STUDY.correlated_settings:
        tables["design"] = "results/design/simulation.npz"
    return {name: tables[name] for name in figure.reads if name in tables}


def figure_job(figure):
    """The name of the figure's log and benchmark: `<figure>/<cell>` for a figure split into
    cells (`FigureOutput.cells`), e.g. `xi_curves/{setting}`."""
    return str(Path(figure.name, *(f"{{{name}}}" for name in figure.cells)))


def figure_output(figure):
    """The figure's path, with its report caption (`costfs.study.figure_outputs`); with the
    wildcards of its cells where it is split into cells."""
    path = f"results/figures/{figure.path}"
    options = {"patterns": list(figure.patterns)} if figure.patterns else {}
    if figure.labels:
        options["labels"] = figure.labels
    if figure.subcategory:
        options["subcategory"] = figure.subcategory
    path = directory(path) if figure.is_directory else path
    if figure.caption is None:
        return path
    caption = f"../report/{figure.caption}.rst"
    return report(path, caption=caption, category=figure.category, **options)


def figure_arguments(wildcards, input, output):
    arguments = []
    for name in ("runs", "summary", "recommendations", "design"):
        if input.get(name):
            arguments += [f"--{name}", input[name]]
    for name in ("real_data", "schedules"):
        if input.get(name):
            arguments += [f"--{name.replace('_', '-')}", *input[name]]
    for name, value in wildcards.items():
        arguments += ["--cell", f"{name}={value}"]
    for name, path in output.items():
        arguments += ["--out", f"{name}={path}"]
    return shlex.join(arguments)


def final_outputs():
    # Plain paths: the flags (directory, report) belong to the rule's outputs only.
    return [
        "results/runs.parquet",
        "results/summary.parquet",
        "results/timings.parquet",
        *(
            f"results/figures/{figure.path}".format(**cell)
            for figure in STUDY.figure_outputs()
            for cell in STUDY.figure_cells(figure)
        ),
        *(f"results/findings/{name}.csv" for name in FINDING_TABLES),
        "results/findings/problems.csv",
        "results/recommendations.csv",
        "results/provenance.json",
        *(f"results/schedules/{method}.parquet" for method in STUDY.schedule_methods()),
    ]
