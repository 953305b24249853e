import json
import shlex
import sys
from pathlib import Path

from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

import yaml

from costfs.config import ConfigError, check_config
from costfs.methods import load_method
from costfs.provenance import code_version as package_code_version
from costfs.simulate import SETTINGS

SCHEMA = Path(workflow.basedir) / "workflow" / "schemas" / "config.schema.yaml"
SOURCE = Path(workflow.basedir) / "src" / "costfs"
try:
    check_config(config, yaml.safe_load(SCHEMA.read_text()))
except ConfigError as error:
    raise WorkflowError(f"invalid config: {error}") from None
# Fills in the schema's defaults.
validate(config, str(SCHEMA))

CONDA_ENV = "../../envs/costfs.yaml"
# Jobs run the `costfs` command of the Python environment that runs Snakemake.
shell.prefix(f"export PATH={shlex.quote(str(Path(sys.executable).parent))}:\"$PATH\"; ")
SIMULATION = config["simulation"]
REAL = config["real_data"]
METHODS = list(config["methods"])
REPS = list(range(1, config["n_rep"] + 1))


def check_study(config):
    """What the schema cannot say: relations between keys."""
    if SIMULATION["n_informative"] > SIMULATION["n_features"]:
        raise WorkflowError(
            f"simulation.n_informative={SIMULATION['n_informative']} exceeds "
            f"simulation.n_features={SIMULATION['n_features']}"
        )
    if SIMULATION["n_features"] % SIMULATION["n_blocks"]:
        raise WorkflowError(
            f"simulation.n_features={SIMULATION['n_features']} is not a multiple of "
            f"simulation.n_blocks={SIMULATION['n_blocks']}"
        )
    if SIMULATION["cost_min"] > SIMULATION["cost_max"]:
        raise WorkflowError("simulation.cost_min must not exceed simulation.cost_max")
    for strategy, value in (("agnostic", 0), ("simple", 1)):
        if strategy in config["strategies"] and value not in config["xi_grid"]:
            raise WorkflowError(
                f"strategies contains {strategy!r}, which needs xi={value} in xi_grid "
                f"(xi_grid is {config['xi_grid']})"
            )
    data_dir = REAL["data_dir"]
    if REAL["datasets"] and data_dir and not Path(data_dir).is_dir():
        raise WorkflowError(
            f"config key real_data.data_dir: directory {data_dir!r} does not exist "
            f"(relative to the working directory {Path.cwd()})"
        )
    for name, dataset in REAL["datasets"].items():
        has_csv = data_dir and any(
            (Path(data_dir) / f"{name}{suffix}").exists() for suffix in (".csv", ".csv.gz")
        )
        if not (has_csv or dataset.get("sklearn_loader") or dataset.get("openml_id")):
            raise WorkflowError(
                f"config key real_data.datasets.{name}: no {name}.csv or {name}.csv.gz in "
                f"real_data.data_dir ({data_dir!r}) and no openml_id or sklearn_loader"
            )
    if not SIMULATION["settings"] and not REAL["datasets"]:
        raise WorkflowError("no problems: simulation.settings and real_data.datasets are empty")


check_study(config)


def real_problems(dataset):
    vectors = REAL["datasets"][dataset]["n_cost_vectors"]
    return [dataset] if vectors == 1 else [f"{dataset}_c{k}" for k in range(1, vectors + 1)]


PROBLEMS = {setting: {"kind": "simulated", "dataset": SETTINGS[setting][0],
                      "cost_type": SETTINGS[setting][1], "budgets": SIMULATION["budgets"]}
            for setting in SIMULATION["settings"]}
for name, dataset in REAL["datasets"].items():
    for problem in real_problems(name):
        PROBLEMS[problem] = {"kind": "real", "dataset": name, "budgets": dataset["budgets"]}
DATASETS = sorted({problem["dataset"] for problem in PROBLEMS.values()})


def alternatives(names):
    return "|".join(sorted(names, key=len, reverse=True)) or "(?!)"


wildcard_constraints:
    problem=alternatives(PROBLEMS),
    dataset=alternatives(DATASETS),
    data_type="independent|correlated",
    method=alternatives(METHODS),
    rep=r"\d+",


def code_version(*modules):
    """Hash of the package modules a rule runs (and what they import), read from this
    workflow's own source tree: a param of every rule, so that editing a module reruns the
    jobs that run it and nothing else (Snakemake does not follow Python imports)."""
    return package_code_version(*modules, root=SOURCE)


def method_code(method):
    return code_version(f"methods/{method}.py")


def has_preparation(method):
    return hasattr(load_method(method), "prepare")


def method_grid(method):
    """The values of the method's hyperparameter: the shared xi grid for the BCR methods,
    `methods.<m>.<name>_grid` for another hyperparameter, none for a method without one."""
    name = load_method(method).HYPERPARAMETER
    if name is None:
        return []
    if name == "xi":
        return config["xi_grid"]
    return config["methods"][method][f"{name}_grid"]


def method_parameters(method):
    """The method's own parameters: its config without the grid (passed on its own) and
    without the problems it runs on."""
    name = load_method(method).HYPERPARAMETER
    return {key: value for key, value in config["methods"][method].items()
            if key not in (f"{name}_grid", "problems")}


def method_problems(method):
    return config["methods"][method].get("problems", list(PROBLEMS))


def selection_threads(wildcards):
    return 2 if getattr(load_method(wildcards.method), "PARALLEL_SELECTION", False) else 1


def check_method_problems():
    for method in METHODS:
        unknown = sorted(set(method_problems(method)) - set(PROBLEMS))
        if unknown:
            raise WorkflowError(
                f"config key methods.{method}.problems: unknown problem(s) "
                f"{', '.join(unknown)}; the study's problems are {', '.join(PROBLEMS)}"
            )


check_method_problems()


def as_json(value):
    return json.dumps(value, sort_keys=True)


def training_path(dataset, rep):
    kind = "simulated" if dataset in ("independent", "correlated") else "real"
    return f"results/data/{kind}/{dataset}/rep~{rep}/train.npz"


def test_path(problem, rep):
    dataset = PROBLEMS[problem]["dataset"]
    if PROBLEMS[problem]["kind"] == "simulated":
        return f"results/data/simulated/{dataset}/test.npz"
    return f"results/data/real/{dataset}/rep~{rep}/test.npz"


def cost_source(wildcards):
    problem = PROBLEMS[wildcards.problem]
    if problem["kind"] == "simulated":
        return "results/design/simulation.npz"
    return f"results/data/real/{problem['dataset']}/full.npz"


def cost_arguments(wildcards, input):
    problem = PROBLEMS[wildcards.problem]
    if problem["kind"] == "simulated":
        return f"--design {input} --cost-type {problem['cost_type']}"
    low, high = REAL["cost_range"]
    return f"--dataset {input} --cost-range {low} {high}"


def selection_inputs(wildcards):
    dataset = PROBLEMS[wildcards.problem]["dataset"]
    inputs = {
        "training_data": training_path(dataset, wildcards.rep),
        "costs": f"results/costs/{wildcards.problem}.npz",
    }
    if has_preparation(wildcards.method):
        inputs["prepared"] = f"results/prepared/{wildcards.method}/{dataset}/rep~{wildcards.rep}.npz"
    return inputs


def runs(method):
    return [(problem, rep) for problem in method_problems(method) for rep in REPS]


FINDING_TABLES = ("tuning", "tuning_by_budget", "methods", "methods_by_budget",
                  "common_methods", "common_methods_by_budget", "stage_costs")


def common_methods():
    """Methods that run on every problem of the study."""
    return [method for method in METHODS if "problems" not in config["methods"][method]]


def schedule_methods():
    """Methods whose selection keeps a model schedule (a cost-accuracy curve) to write out."""
    return [method for method in METHODS if hasattr(load_method(method), "schedule_from_arrays")]


def evaluations():
    return [f"results/evaluation/{method}/{problem}/rep~{rep}.parquet"
            for method in METHODS for problem, rep in runs(method)]


def benchmarks():
    """Time and memory records of the jobs that compute: cost-free preparation, selection and
    evaluation (the data jobs take seconds in all)."""
    prepared = sorted({(method, PROBLEMS[problem]["dataset"], rep)
                       for method in METHODS if has_preparation(method)
                       for problem, rep in runs(method)})
    return ([f"benchmarks/prepare_method/{method}/{dataset}/rep~{rep}.tsv"
             for method, dataset, rep in prepared]
            + [f"benchmarks/{rule}/{method}/{problem}/rep~{rep}.tsv"
               for rule in ("select_features", "evaluate_selection")
               for method in METHODS for problem, rep in runs(method)])


# Which figures a study has depends on its problems: xi curves and violins need simulated
# settings, per-problem comparisons and mean ranks need real data sets, correlations either.
SIMULATED_PROBLEMS = [name for name, p in PROBLEMS.items() if p["kind"] == "simulated"]
REAL_PROBLEMS = [name for name, p in PROBLEMS.items() if p["kind"] == "real"]
CORRELATED_SETTINGS = [
    name for name in SIMULATED_PROBLEMS if PROBLEMS[name]["dataset"] == "correlated"
]


def figure_inputs():
    inputs = {
        "runs": "results/runs.parquet",
        "summary": "results/summary.parquet",
        "real_data": [f"results/data/real/{name}/full.npz" for name in sorted(REAL["datasets"])],
    }
    if CORRELATED_SETTINGS:
        inputs["design"] = "results/design/simulation.npz"
    if "msb" in METHODS:
        inputs["schedules"] = "results/schedules/msb.parquet"
    return inputs


def figure(path, caption, subcategory, **options):
    return report(path, caption=f"../report/{caption}.rst", category="Figures",
                  subcategory=subcategory, **options)


def figure_outputs():
    """Output name -> path; the name is also the `costfs figures --out-<name>` flag."""
    outputs = {
        "table": report("results/figures/results.md", caption="../report/results_table.rst",
                        category="Results table"),
        "cost_accuracy": figure("results/figures/cost_accuracy.png", "cost_accuracy",
                                "Cost-accuracy curves"),
    }
    if SIMULATED_PROBLEMS:
        outputs["xi_curves"] = figure(
            directory("results/figures/xi_curves"), "xi_curves", "Simulation: strategies over xi",
            patterns=["{problem}_budget~{budget}.png"],
            labels={"setting": "{problem}", "budget": "{budget}"})
        outputs["method_violins"] = figure(
            directory("results/figures/method_violins"), "method_violins", "Simulation: methods",
            patterns=["{problem}.png"], labels={"setting": "{problem}"})
    if REAL_PROBLEMS:
        outputs["real_comparison"] = figure(
            directory("results/figures/real_comparison"), "real_comparison", "Real data: methods",
            patterns=["{problem}.png"], labels={"problem": "{problem}"})
        outputs["mean_ranks"] = figure("results/figures/mean_ranks.png", "mean_ranks",
                                       "Real data: methods", labels={"problem": "all (mean rank)"})
    if REAL_PROBLEMS or CORRELATED_SETTINGS:
        outputs["correlations"] = figure("results/figures/feature_correlations.png",
                                         "feature_correlations", "Data")
    return outputs


def figure_arguments(wildcards, input, output):
    arguments = ["--runs", input.runs, "--summary", input.summary]
    if input.real_data:
        arguments += ["--real-data", *input.real_data]
    if input.get("design"):
        arguments += ["--design", input.design]
    if input.get("schedules"):
        arguments += ["--schedules", input.schedules]
    for name, path in output.items():
        arguments += [f"--out-{name.replace('_', '-')}", path]
    return shlex.join(arguments)


def final_outputs():
    # Plain paths: the flags (directory, report) belong to the rule's outputs only.
    return ["results/runs.parquet", "results/summary.parquet", "results/timings.parquet",
            *(str(path) for path in figure_outputs().values()),
            *(f"results/findings/{name}.csv" for name in FINDING_TABLES),
            *(f"results/schedules/{method}.parquet" for method in schedule_methods())]
