"""The package's wings keep their order (command line > study > methods > engine > core) and
no modules of a wing import each other in a circle: import-linter's contracts in
pyproject.toml, checked on the package and on copies with a planted violation."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
def test_a_stage_job_of_a_method_starts_without_scikit_learn_pandas_or_jsonschema(method):
    """A method's jobs load its class alone, not its scikit-learn selector: scikit-learn (with
    scipy.stats) and pandas take most of a small job's time to import, and a method's code
    imports them where it runs them; the config's schema check is the planning's, not
    theirs."""
    parsers = (
        "import costfs.cli as cli; cli.parser('prepare-method'), cli.parser('select-features'), "
        "cli.parser('evaluate')"
    )
    assert not loaded_at_start(parsers, method, {"jsonschema", "sklearn", "scipy.stats", "pandas"})


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


@pytest.mark.parametrize("command", ["simulate-data", "split-data", "draw-costs"])
def test_a_data_split_or_cost_draw_job_starts_without_pandas_or_scikit_learn(command):
    """A simulation, a split and a draw of uniform costs work on arrays and load no method:
    only reading a data set's or a costs file's table needs pandas, and only a method's
    selector scikit-learn, each of which would take most of such a job's start."""
    assert not loaded_at_start(
        f"import costfs.cli as cli; cli.parser({command!r})", None, {"pandas", "sklearn"}
    )


def test_the_package_and_its_method_contract_load_without_scikit_learn():
    """`import costfs` and the methods' package (their names, the contract) stay light; a
    method's selector (`costfs.AUCFilter`, ...) loads scikit-learn when it is first used."""
    assert not loaded_at_start("import costfs, costfs.methods", None, {"sklearn", "pandas"})


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
    assert listed == packages | folders | {"costfs.envs"}
    assert setuptools["package-dir"]["costfs.envs"] == "envs"
    data = setuptools["package-data"]
    # The rules' conda environment, `../../envs/` from workflow/rules, is costfs/envs installed.
    conda_env = (workflow / "rules" / "../../envs/costfs.yaml").resolve()
    assert (
        conda_env.is_file()
        and f"{conda_env.parent.name}/" in (REPO / "workflow" / "rules" / "common.smk").read_text()
    )
    assert any(fnmatch.fnmatch(conda_env.name, pattern) for pattern in data["costfs.envs"])
    for path in workflow.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".py":
            package = ".".join(("costfs", "workflow", *path.parent.relative_to(workflow).parts))
            assert any(fnmatch.fnmatch(path.name, pattern) for pattern in data.get(package, [])), (
                f"{path.relative_to(REPO)} is not package data"
            )
