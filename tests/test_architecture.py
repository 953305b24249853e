"""The package's wings keep their order (command line > study > methods > engine > core) and
no modules of a wing import each other in a circle: import-linter's contracts in
pyproject.toml, checked on the package and on copies with a planted violation."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn.datasets

from costfs.cli import storage
from costfs.methods import method_names
from tests.conftest import REPO

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def lint_imports(source: Path) -> subprocess.CompletedProcess:
    """lint-imports with the project's contracts on the package under `source`."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=REPO,
        env={"PYTHONPATH": str(source), "PATH": str(Path(sys.executable).parent)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def planted_copy(tmp_path: Path, module: str, line: str) -> Path:
    """A copy of the package with `line` added to `module` (a path under costfs/)."""
    source = tmp_path / "src"
    shutil.copytree(REPO / "src" / "costfs", source / "costfs")
    path = source / "costfs" / module
    path.write_text(path.read_text() + f"\n{line}\n")
    return source


def test_the_package_keeps_its_layers_and_has_no_import_circles():
    result = lint_imports(REPO / "src")
    assert result.returncode == 0, result.stdout
    assert "2 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # the trees' compiled kernels importing the trees that call them
        ("engine/cart.py", "from costfs.engine.trees import GrownTree", "No cycles are allowed"),
        # the feature costs importing the checks that use them
        ("core/costs.py", "from costfs.core.validation import check_costs", "No cycles"),
        # the engine reaching up into the methods
        ("engine/forest.py", "from costfs.methods import load_method", "costfs.engine.forest"),
    ],
)
def test_a_planted_circle_or_upward_import_fails_the_check(tmp_path, module, line, broken):
    result = lint_imports(planted_copy(tmp_path, module, line))
    assert result.returncode != 0
    assert "1 kept, 1 broken" in result.stdout and broken in result.stdout


def loaded_at_start(imports: str, method: str | None, modules: set[str]) -> set[str]:
    """Which of `modules` a fresh Python has loaded after `imports` and the method's module
    (none for None)."""
    program = f"import sys\n{imports}\n"
    if method:
        program += f"from costfs.methods import load_method\nload_method({method!r})\n"
    program += f"print(sorted({sorted(modules)!r} & sys.modules.keys()))\n"
    loaded = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=120
    )
    return set(ast.literal_eval(loaded.stdout.strip()))


@pytest.mark.parametrize("method", method_names())
def test_a_stage_job_of_a_method_starts_without_scikit_learn_or_scipy_stats(method):
    """Job start-up: scikit-learn and scipy.stats take about a second to import, which every
    job of a study would pay; the stage modules and the method's module leave them to the
    code that uses them (a selector, scikit-learn's forests, AUC ranks)."""
    stages = "import costfs.cli.stages.selection, costfs.cli.stages.evaluate"
    assert not loaded_at_start(stages, method, {"sklearn", "scipy.stats"})


def test_an_auc_preparation_ranks_without_scipy_stats():
    """AUC's whole preparation is ranking the columns: scipy.stats, 0.6-0.8 s to import, would
    be most of its job."""
    ranking = (
        "import numpy as np; from costfs.engine.importance import auc_scores\n"
        "auc_scores(np.arange(12.0).reshape(6, 2), np.array([0, 1, 0, 1, 1, 0]))"
    )
    assert not loaded_at_start(ranking, "auc", {"scipy.stats"})


LOADED_BY_THE_METHOD = {"sts_features": {"joblib"}}
"""What a method's own module loads at its start: the STS variant its thread pool. Its jobs
take seconds to minutes, where the start matters little."""


@pytest.mark.parametrize("method", method_names())
def test_a_stage_job_of_a_method_starts_without_pandas_jsonschema_or_joblib(method):
    """Job start-up: pandas alone takes 0.3-0.4 s to import, jsonschema and joblib about
    0.05 s each; a preparation writes arrays only, a selection and an evaluation pass tables
    on with pyarrow, so none pays them at its start, but for what the method itself needs."""
    parsers = (
        "import costfs.cli as cli; cli.parser('prepare-method'), cli.parser('select-features'), "
        "cli.parser('evaluate')"
    )
    loaded = loaded_at_start(parsers, method, {"pandas", "jsonschema", "joblib"})
    assert loaded <= LOADED_BY_THE_METHOD.get(method, set())


def test_a_selection_and_its_evaluation_run_without_pandas(tmp_path):
    """pandas takes 0.3-0.4 s to import; the selection and evaluation jobs only pass tables
    on, so they read and write them with pyarrow (about 0.05 s) from start to end."""
    X, y = sklearn.datasets.make_classification(n_samples=90, n_features=5, random_state=0)
    train, test, costs = tmp_path / "train.npz", tmp_path / "test.npz", tmp_path / "costs.npz"
    names = np.array([f"x{j}" for j in range(5)])
    storage.write_arrays(train, {"X": X[:60], "y": y[:60], "feature_names": names})
    storage.write_arrays(test, {"X": X[60:], "y": y[60:], "feature_names": names})
    storage.write_arrays(costs, {"costs": np.linspace(0.2, 1.0, 5)})
    common = ["--study-seed", "1", "--method", "auc", "--dataset", "toy", "--reps", "1"]
    jobs = [
        ["prepare-method", *common, "--data", train, "--out", tmp_path / "prepared"],
        [
            "select-features",
            *common,
            "--data",
            train,
            "--prepared",
            tmp_path / "prepared" / "rep~1.npz",
        ]
        + [
            "--costs",
            costs,
            "--budgets",
            "[1, 2]",
            "--grid",
            "[0, 1]",
            "--out",
            tmp_path / "selected",
        ],
        ["evaluate", *common, "--problem", "toy", "--kind", "real", "--costs", costs]
        + [
            "--selections",
            tmp_path / "selected" / "rep~1.parquet",
            "--train",
            train,
            "--test",
            test,
        ]
        + ["--artifacts", tmp_path / "selected" / "rep~1.artifacts.npz", "--n-trees", "10"]
        + ["--out", tmp_path / "runs.parquet"],
    ]
    program = "import sys, costfs.cli as cli\n"
    program += "".join(f"assert cli.main({[str(part) for part in job]!r}) == 0\n" for job in jobs)
    program += "print('pandas' in sys.modules)"
    run = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=300
    )
    assert run.stdout.strip() == "False"
    assert len(storage.read_table(tmp_path / "runs.parquet")) == 4


@pytest.mark.parametrize("method", method_names())
def test_a_method_loads_without_numba(method):
    """numba takes 0.2-0.9 s to import. A job that grows trees loads it with its kernels
    (the engine's, BudgetRF's, the penalised forest's, FeatBoost's k-NN); a job that only
    loads the method (a FeatBoost preparation, XGBoost's ranking; an aggregation; the
    workflow's planning, which loads every method of the config) never."""
    parsers = (
        "import costfs.cli as cli; cli.parser('prepare-method'), cli.parser('select-features'), "
        "cli.parser('aggregate')"
    )
    assert not loaded_at_start(parsers, method, {"numba"})


@pytest.mark.parametrize("command", ["split-data", "draw-costs"])
def test_a_split_or_cost_draw_job_starts_without_pandas(command):
    """A split and a draw of uniform costs work on arrays: only reading a data set's or a
    costs file's table needs pandas, which takes most of a job's start."""
    assert not loaded_at_start(
        f"import costfs.cli as cli; cli.parser({command!r})", None, {"pandas"}
    )


def test_the_package_list_ships_every_package_and_the_whole_workflow():
    """pyproject.toml lists the packages by hand (the workflow is mapped into the package as
    costfs.workflow): every package of src/costfs and every folder of workflow/ is listed, and
    every file of workflow/ is package data."""
    import fnmatch
    import tomllib

    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    source = REPO / "src"
    packages = {
        ".".join(path.parent.relative_to(source).parts)
        for path in source.glob("costfs/**/__init__.py")
    }
    workflow = REPO / "workflow"
    folders = {
        ".".join(("costfs", "workflow", *path.relative_to(workflow).parts))
        for path in [workflow, *workflow.rglob("*")]
        if path.is_dir() and path.name != "__pycache__" and any(p.is_file() for p in path.iterdir())
    }
    assert listed == packages | folders
    data = setuptools["package-data"]
    for path in workflow.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".py":
            package = ".".join(("costfs", "workflow", *path.parent.relative_to(workflow).parts))
            assert any(fnmatch.fnmatch(path.name, pattern) for pattern in data.get(package, [])), (
                f"{path.relative_to(REPO)} is not package data"
            )
