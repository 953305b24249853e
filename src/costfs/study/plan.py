"""The study a config describes: its problems and data sets, each method's runs, grid and
parameters, the relations between keys the schema cannot check, and where each stage's files
go. The workflow (`workflow/rules/common.smk`) reads everything about the study from here.
"""

from dataclasses import dataclass
from pathlib import Path

from costfs.methods import load_method
from costfs.study.figure_outputs import MIN_RANKED_PROBLEMS, FigureOutput, figure_outputs_for
from costfs.study.realdata import LOADING_KEYS, choose_source
from costfs.study.simulate import SETTINGS


class StudyError(ValueError):
    """A config whose keys do not fit together; the message names the keys."""


@dataclass(frozen=True)
class Problem:
    name: str
    kind: str
    """`simulated` or `real`."""
    dataset: str
    """The data set whose training data the problem uses: `independent` or `correlated` for
    the simulated settings, the real data set's name otherwise."""
    budgets: tuple[float, ...]
    cost_type: str | None = None
    """`independent` or `correlated` costs of a simulated setting."""


PARALLEL_STAGES = {
    "prepare_method": "parallel_preparation",
    "select_features": "parallel_selection",
}
"""The rules whose jobs run on two threads for a method that declares the attribute."""


def workflow_threads(rule: str, method: str) -> int:
    """The threads the workflow gives a job of `rule` for `method` (Snakemake lowers them to
    --cores): two for a method's preparation or selection where it declares that stage
    parallel (`PARALLEL_STAGES`), one otherwise."""
    declared = PARALLEL_STAGES.get(rule)
    return 2 if declared and getattr(load_method(method), declared) else 1


def replicates_per_job(config: dict, method: str) -> int:
    """The replicates one selection job of `method` selects in (one preparation job prepares,
    one evaluation job evaluates) under `config` (its defaults filled in): the method's own
    `replicates_per_job`, else the study's `selection_replicates_per_job`."""
    return config["methods"][method].get(
        "replicates_per_job", config["selection_replicates_per_job"]
    )


class Study:
    """A validated config (defaults filled in) as the workflow's plan."""

    def __init__(self, config: dict, working_directory: Path | None = None):
        self.config = config
        self.simulation = config["simulation"]
        self.real = config["real_data"]
        self.methods = list(config["methods"])
        first = config.get("first_rep", 1)
        self.reps = list(range(first, first + config["n_rep"]))
        # One select_features job, and one prepare_method job, per block of replicates: one
        # start for the block, one job to plan, and a block still fits a cluster job's time.
        # A method may cut its own blocks (methods.<name>.replicates_per_job): a long
        # selection in one-replicate jobs runs side by side instead of one after another.
        self.selection_blocks = {
            method: self._blocks(replicates_per_job(config, method)) for method in self.methods
        }
        """Per method: each selection or preparation job's block name `first-last` -> its
        replicates."""
        self._block_of = {
            method: {rep: name for name, reps in blocks.items() for rep in reps}
            for method, blocks in self.selection_blocks.items()
        }
        self.problems: dict[str, Problem] = {
            setting: Problem(
                setting,
                "simulated",
                SETTINGS[setting][0],
                tuple(self.simulation["budgets"]),
                SETTINGS[setting][1],
            )
            for setting in self.simulation["settings"]
        }
        simulated_datasets = {kind for kind, _ in SETTINGS.values()}
        for name, dataset in self.real["datasets"].items():
            if name in simulated_datasets:
                raise StudyError(
                    f"config key real_data.datasets.{name}: {name!r} is the name of the "
                    "simulated settings' training data; rename the data set"
                )
            for problem in self.real_problems(name):
                if problem in SETTINGS:
                    raise StudyError(
                        f"config key real_data.datasets.{name}: its problem {problem!r} has "
                        f"the name of simulated setting {problem!r}; rename the data set"
                    )
                if problem in self.problems:
                    raise StudyError(
                        f"config key real_data.datasets.{name}: its problem {problem!r} is also "
                        f"a problem of data set {self.problems[problem].dataset!r}; rename one"
                    )
                self.problems[problem] = Problem(problem, "real", name, tuple(dataset["budgets"]))
        self.datasets = sorted({problem.dataset for problem in self.problems.values()})
        self._check(Path.cwd() if working_directory is None else working_directory)

    # Checks of what the schema cannot say.

    def _check(self, working_directory: Path) -> None:
        simulation = self.simulation
        if simulation["n_informative"] > simulation["n_features"]:
            raise StudyError(
                f"simulation.n_informative={simulation['n_informative']} exceeds "
                f"simulation.n_features={simulation['n_features']}"
            )
        if simulation["n_features"] % simulation["n_blocks"]:
            raise StudyError(
                f"simulation.n_features={simulation['n_features']} is not a multiple of "
                f"simulation.n_blocks={simulation['n_blocks']}"
            )
        if simulation["cost_min"] > simulation["cost_max"]:
            raise StudyError("simulation.cost_min must not exceed simulation.cost_max")
        xi_grids = {"xi_grid": self.config["xi_grid"]} | {
            f"methods.{method}.xi_grid": settings["xi_grid"]
            for method, settings in self.config["methods"].items()
            if "xi_grid" in settings
        }
        for strategy, value in (("agnostic", 0), ("simple", 1)):
            for key, grid in xi_grids.items():
                if strategy in self.config["strategies"] and value not in grid:
                    raise StudyError(
                        f"strategies contains {strategy!r}, which needs xi={value} in {key} "
                        f"({key} is {grid})"
                    )
        data_dir = self.real["data_dir"]
        directory = working_directory / data_dir if data_dir else None
        if self.real["datasets"] and directory and not directory.is_dir():
            raise StudyError(
                f"config key real_data.data_dir: directory {data_dir!r} does not exist "
                f"(relative to the working directory {working_directory})"
            )
        for name, dataset in self.real["datasets"].items():
            key = f"config key real_data.datasets.{name}"
            for file_key in ("path", "costs"):
                if dataset.get(file_key) and not (working_directory / dataset[file_key]).is_file():
                    raise StudyError(
                        f"{key}.{file_key}: file {dataset[file_key]!r} does not exist (relative "
                        f"to the working directory {working_directory})"
                    )
            if dataset.get("costs") and "n_cost_vectors" in dataset:
                raise StudyError(
                    f"{key}: n_cost_vectors draws random costs, but costs gives the costs; "
                    "remove one of the two"
                )
            if dataset.get("path"):
                continue
            files = [
                directory / f"{name}{suffix}"
                for suffix in (".csv.gz", ".csv")
                if directory and (directory / f"{name}{suffix}").exists()
            ]
            if len(files) > 1:
                raise StudyError(
                    f"config key real_data.datasets.{name}: real_data.data_dir holds both "
                    f"{files[0]} and {files[1]}; remove the one that is not current, or name the "
                    f"file with real_data.datasets.{name}.path"
                )
            if not (files or dataset.get("sklearn_loader") or dataset.get("openml_id")):
                raise StudyError(
                    f"config key real_data.datasets.{name}: no {name}.csv or {name}.csv.gz in "
                    f"real_data.data_dir ({data_dir!r}) and no openml_id or sklearn_loader"
                )
        if not self.problems:
            raise StudyError("no problems: simulation.settings and real_data.datasets are empty")
        for method in self.methods:
            unknown = sorted(set(self.method_problems(method)) - set(self.problems))
            if unknown:
                raise StudyError(
                    f"config key methods.{method}.problems: unknown problem(s) "
                    f"{', '.join(unknown)}; the study's problems are {', '.join(self.problems)}"
                )

    # Problems and data.

    def dataset_source(self, dataset: str) -> dict:
        """How the real data set `dataset` is loaded: its loading keys and the OpenML cache."""
        settings = self.real["datasets"][dataset]
        return {key: settings[key] for key in LOADING_KEYS if key in settings} | {
            "openml_cache": self.real["openml_cache"]
        }

    def dataset_file(self, dataset: str) -> str | None:
        """The local file the real data set `dataset` is read from, or None (a scikit-learn
        loader, OpenML)."""
        source = choose_source(dataset, self.dataset_source(dataset), self.real["data_dir"])
        return source.location if source.kind == "file" else None

    def real_problems(self, dataset: str) -> list[str]:
        vectors = self.real["datasets"][dataset].get("n_cost_vectors", 1)
        return [dataset] if vectors == 1 else [f"{dataset}_c{k}" for k in range(1, vectors + 1)]

    def problem_names(self, kind: str) -> list[str]:
        return [name for name, problem in self.problems.items() if problem.kind == kind]

    @property
    def correlated_settings(self) -> list[str]:
        return [
            name
            for name in self.problem_names("simulated")
            if self.problems[name].dataset == "correlated"
        ]

    def figure_outputs(self) -> list[FigureOutput]:
        kinds = {problem.kind for problem in self.problems.values()}
        if self.correlated_settings:
            kinds.add("correlated")
        if len(self.problem_names("real")) >= MIN_RANKED_PROBLEMS:
            kinds.add("several_real")
        return figure_outputs_for(kinds)

    def figure_cells(self, figure: FigureOutput) -> list[dict[str, str]]:
        """The wildcards of each job of `figure` (`FigureOutput.cells`): the problems, or the
        simulated settings, a method it draws runs on; one job without wildcards for a figure
        without cells."""
        if not figure.cells:
            return [{}]
        (cell,) = figure.cells
        drawn = [
            method
            for method in self.methods
            if figure.methods_with is None
            or getattr(load_method(method).hyperparameter, "name", None) == figure.methods_with
        ]
        names = self.problem_names("simulated") if cell == "setting" else list(self.problems)
        return [
            {cell: name}
            for name in names
            if any(name in self.method_problems(method) for method in drawn)
        ]

    @staticmethod
    def training_path(dataset: str, rep) -> str:
        kind = "simulated" if dataset in ("independent", "correlated") else "real"
        return f"results/data/{kind}/{dataset}/rep~{rep}/train.npz"

    def test_path(self, problem: str, rep) -> str:
        dataset = self.problems[problem].dataset
        if self.problems[problem].kind == "simulated":
            return f"results/data/simulated/{dataset}/test.npz"
        return f"results/data/real/{dataset}/rep~{rep}/test.npz"

    # Methods.

    def _blocks(self, size: int) -> dict[str, list[int]]:
        """The study's replicates cut into consecutive blocks of `size` (the last may be
        shorter), each named `first-last`."""
        blocks = [self.reps[start : start + size] for start in range(0, len(self.reps), size)]
        return {f"{reps[0]}-{reps[-1]}": reps for reps in blocks}

    def block_of(self, method: str, rep: int) -> str:
        """The name of the block of replicates whose job selects (and prepares) `rep` for
        `method`."""
        return self._block_of[method][rep]

    def method_problems(self, method: str) -> list[str]:
        return self.config["methods"][method].get("problems", list(self.problems))

    def runs(self, method: str) -> list[tuple[str, int]]:
        """(problem, rep) of every run of `method`."""
        return [(problem, rep) for problem in self.method_problems(method) for rep in self.reps]

    def selection_path(self, method: str, problem: str, rep: int, suffix: str = ".parquet") -> str:
        """A run's selection (`.parquet`) or its artifacts (`.artifacts.npz`), in the folder of
        its selection job (`selection_folder`)."""
        folder = self.selection_folder(method, problem, self.block_of(method, rep))
        return f"{folder}/rep~{rep}{suffix}"

    @staticmethod
    def selection_folder(method: str, problem: str, block: str) -> str:
        return f"results/selection/{method}/{problem}/reps~{block}"

    def method_grid(self, method: str) -> list:
        """The values of the method's hyperparameter: its `<name>_grid` if the config gives
        one, else the study's `xi_grid` for xi and the declared default grid for any other;
        none without a hyperparameter."""
        hyperparameter = load_method(method).hyperparameter
        if hyperparameter is None:
            return []
        default = self.config["xi_grid"] if hyperparameter.name == "xi" else hyperparameter.grid
        return list(self.config["methods"][method].get(hyperparameter.grid_key, default))

    def method_parameters(self, method: str, stage: str) -> dict:
        """The method's declared parameters of `stage` (`prepare` or `select`): the config's
        values, defaults for the keys it does not give."""
        return load_method(method).stage_parameters(self.config["methods"][method], stage)

    def common_methods(self) -> list[str]:
        """Methods that run on every problem of the study."""
        return [
            method for method in self.methods if "problems" not in self.config["methods"][method]
        ]

    def preparation_jobs(self) -> list[tuple[str, str, str]]:
        """(method, data set, block) of every cost-free preparation job: once per data set,
        shared by the problems (settings, cost vectors) that use it."""
        return sorted(
            {
                (method, self.problems[problem].dataset, self.block_of(method, rep))
                for method in self.methods
                if load_method(method).has_preparation
                for problem, rep in self.runs(method)
            }
        )

    @staticmethod
    def prepared_folder(method: str, dataset: str, block: str) -> str:
        return f"results/prepared/{method}/{dataset}/reps~{block}"

    def prepared_path(self, method: str, dataset: str, rep: int) -> str:
        """A replicate's cost-free part, in the folder of its preparation job."""
        return f"{self.prepared_folder(method, dataset, self.block_of(method, rep))}/rep~{rep}.npz"

    def schedule_methods(self) -> list[str]:
        return [method for method in self.methods if load_method(method).has_schedule]

    def evaluations(self) -> list[str]:
        """One table per (method, problem, block of replicates): the evaluation of one
        selection job."""
        return [
            f"results/evaluation/{method}/{problem}/reps~{block}.parquet"
            for method in self.methods
            for problem in self.method_problems(method)
            for block in self.selection_blocks[method]
        ]

    def benchmarks(self) -> list[str]:
        """Time and memory records of the jobs that compute: cost-free preparation, selection
        and evaluation (the data jobs take seconds in all)."""
        return (
            [
                f"benchmarks/prepare_method/{method}/{dataset}/reps~{block}.tsv"
                for method, dataset, block in self.preparation_jobs()
            ]
            + [
                f"benchmarks/select_features/{method}/{problem}/reps~{block}.tsv"
                for method in self.methods
                for problem in self.method_problems(method)
                for block in self.selection_blocks[method]
            ]
            + [
                f"benchmarks/evaluate_selection/{method}/{problem}/reps~{block}.tsv"
                for method in self.methods
                for problem in self.method_problems(method)
                for block in self.selection_blocks[method]
            ]
        )
