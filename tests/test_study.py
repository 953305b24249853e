"""The study model a config describes (costfs.study.plan), which the workflow plans from."""

import pytest
import yaml
from snakemake.utils import validate

from costfs.methods import load_method
from costfs.study.plan import Study, StudyError
from costfs.study.provenance import module_closure, study_identity
from tests.conftest import DATA, REPO

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def with_defaults(config: dict) -> dict:
    """The config with the schema's defaults, as the workflow fills them in."""
    validate(config, str(SCHEMA))
    return config


def tiny(**changes) -> dict:
    config = yaml.safe_load((REPO / "config" / "tiny.yaml").read_text())
    config["real_data"]["data_dir"] = str(DATA)
    config.update(changes)
    return with_defaults(config)


def test_problems_datasets_and_runs_of_the_tiny_study():
    study = Study(tiny())
    assert list(study.problems) == ["A", "B", "C", "D", "wdbc"]
    assert study.problems["B"].dataset == "independent"
    assert study.problems["B"].cost_type == "correlated"
    assert study.datasets == ["correlated", "independent", "wdbc"]
    assert study.correlated_settings == ["C", "D"]
    assert study.runs("fs") == [("A", 1), ("A", 2), ("wdbc", 1), ("wdbc", 2)]
    assert study.test_path("C", 2) == "results/data/simulated/correlated/test.npz"
    assert study.test_path("wdbc", 2) == "results/data/real/wdbc/rep~2/test.npz"
    assert "auc" in study.common_methods() and "fs" not in study.common_methods()
    assert study.schedule_methods() == ["msb"]
    # cost-free work is shared by the settings of one data set
    assert ("auc", "independent", "1-2") in study.preparation_jobs()
    assert not any(
        method in ("fs", "budget_rf", "random_fill") for method, *_ in study.preparation_jobs()
    )
    assert study.prepared_path("auc", "wdbc", 2) == "results/prepared/auc/wdbc/reps~1-2/rep~2.npz"


def test_a_method_cuts_its_own_blocks_of_replicates():
    config = tiny(n_rep=3, selection_replicates_per_job=2)
    config["methods"]["sts"]["replicates_per_job"] = 1
    study = Study(config)
    assert study.selection_blocks["sts"] == {"1-1": [1], "2-2": [2], "3-3": [3]}
    assert study.selection_blocks["auc"] == {"1-2": [1, 2], "3-3": [3]}
    assert study.selection_path("sts", "A", 2) == "results/selection/sts/A/reps~2-2/rep~2.parquet"
    assert study.selection_path("auc", "A", 2) == "results/selection/auc/A/reps~1-2/rep~2.parquet"
    assert study.prepared_path("sts", "independent", 3) == (
        "results/prepared/sts/independent/reps~3-3/rep~3.npz"
    )
    assert "results/evaluation/sts/A/reps~2-2.parquet" in study.evaluations()
    assert "results/evaluation/auc/A/reps~2-2.parquet" not in study.evaluations()
    assert ("sts", "independent", "3-3") in study.preparation_jobs()
    assert ("auc", "independent", "3-3") in study.preparation_jobs()
    assert ("auc", "independent", "2-2") not in study.preparation_jobs()
    assert "benchmarks/select_features/sts/A/reps~1-1.tsv" in study.benchmarks()
    assert "benchmarks/prepare_method/sts/independent/reps~2-2.tsv" in study.benchmarks()
    # how a method's jobs are cut is not what its replicates compute
    assert study_identity(config) == study_identity(tiny(n_rep=3))


def test_grids_and_parameters_come_from_the_declarations():
    study = Study(tiny())
    assert study.method_grid("sts") == [0, 1, 2]
    assert study.method_grid("budget_rf") == [0, 4]
    assert study.method_grid("msb") == []
    assert study.method_grid("fs") == [0, 1, 2]
    # a method's own xi grid replaces the study's for that method only
    own = Study(tiny(methods={"fs": {"xi_grid": [0, 1]}, "auc": {}}))
    assert own.method_grid("fs") == [0, 1]
    assert own.method_grid("auc") == [0, 1, 2]
    # the prepare job gets the preparation parameters only, the select job the others
    assert study.method_parameters("sts", "prepare") == {"depths": [1, 2, 3], "trees_per_depth": 30}
    assert study.method_parameters("sts", "select") == {
        "positive_delta": "multiply",
        "depth_bound": "none",
    }
    assert set(study.method_parameters("featboost", "prepare")) == {
        "n_estimators",
        "max_depth",
        "learning_rate",
        "max_bin",
    }
    assert "n_estimators" in study.method_parameters("featboost", "select")


def test_cost_vectors_make_problems():
    config = tiny(methods={"auc": {}})
    config["real_data"]["datasets"]["wdbc"]["n_cost_vectors"] = 2
    assert [name for name in Study(config).problems if name.startswith("wdbc")] == [
        "wdbc_c1",
        "wdbc_c2",
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"xi_grid": [0.5, 2]}, "needs xi=0 in xi_grid"),
        ({"methods": {"fs": {"xi_grid": [0, 2]}}}, r"needs xi=1 in methods\.fs\.xi_grid"),
        ({"simulation": {"n_features": 10, "n_informative": 20}}, "n_informative=20 exceeds"),
        ({"simulation": {"n_features": 10, "n_blocks": 3}}, "not a multiple of"),
        ({"methods": {"auc": {"problems": ["E"]}}}, "methods.auc.problems: unknown problem"),
        (
            {"real_data": {"data_dir": "no/such/dir", "datasets": {"x": {"budgets": [1]}}}},
            "does not exist",
        ),
        ({"simulation": {"settings": []}, "real_data": {"datasets": {}}}, "no problems"),
    ],
)
def test_keys_that_do_not_fit_together_are_named(change, message):
    config = yaml.safe_load((REPO / "config" / "tiny.yaml").read_text())
    config["real_data"]["data_dir"] = str(DATA)
    for key, value in change.items():
        config[key] = {**config[key], **value} if isinstance(value, dict) else value
    with pytest.raises(StudyError, match=message):
        Study(with_defaults(config))


def test_own_data_keys_are_checked(tmp_path):
    (tmp_path / "costs.csv").write_text("feature,cost\n")
    config = tiny()
    wdbc = config["real_data"]["datasets"]["wdbc"]
    wdbc["path"] = "missing.csv"
    with pytest.raises(StudyError, match=r"wdbc.path: file 'missing.csv' does not exist"):
        Study(config, working_directory=tmp_path)
    del wdbc["path"]
    wdbc["costs"] = "costs.csv"
    assert list(Study(config, working_directory=tmp_path).real_problems("wdbc")) == ["wdbc"]
    wdbc["n_cost_vectors"] = 2
    with pytest.raises(StudyError, match="n_cost_vectors draws random costs, but costs gives"):
        Study(config, working_directory=tmp_path)


def test_a_commands_code_covers_the_command_line_layer_and_storage():
    closure = module_closure(["cli/__init__.py", "cli/stages/realdata.py"])
    assert {
        "__init__.py",
        "cli/__init__.py",
        "cli/arguments.py",
        "cli/stages/__init__.py",
        "cli/stages/realdata.py",
        "cli/storage.py",
        "core/__init__.py",
    } <= set(closure)
    assert "study/realdata.py" in closure
    # a command's code is its own: another stage's modules are not in it
    assert not {"cli/stages/figures.py", "study/plots.py", "study/simulate.py"} & set(closure)
    methods = module_closure(["cli/__init__.py", "cli/stages/selection.py", "methods/auc.py"])
    assert "methods/auc.py" in methods and "methods/sts.py" not in methods


def test_figure_outputs_follow_the_problem_kinds_and_resolve():
    from costfs.study import figures
    from costfs.study.figure_outputs import FIGURE_OUTPUTS

    several_real = tiny()
    for name in ("tokyo1", "qsar-biodeg"):
        several_real["real_data"]["datasets"][name] = {"budgets": [1, 2]}
    everything = [output.name for output in Study(several_real).figure_outputs()]
    assert everything == [output.name for output in FIGURE_OUTPUTS]
    # one real problem: no comparison across problems
    assert "mean_ranks" not in [output.name for output in Study(tiny()).figure_outputs()]
    real_only = tiny(simulation={**tiny()["simulation"], "settings": []})
    for options in real_only["methods"].values():
        if "problems" in options:
            options["problems"] = ["wdbc"]
    assert [output.name for output in Study(real_only).figure_outputs()] == [
        "table",
        "answer",
        "table_html",
        "cost_accuracy",
        "stability",
        "real_comparison",
        "correlations",
    ]
    for output in FIGURE_OUTPUTS:
        assert callable(getattr(figures, output.draw))
        if output.caption is not None:
            assert (REPO / "workflow" / "report" / f"{output.caption}.rst").is_file()


def test_a_figure_split_into_cells_has_a_job_per_setting_its_methods_run_on():
    from costfs.study.figure_outputs import FIGURE_OUTPUTS

    outputs = {output.name: output for output in FIGURE_OUTPUTS}
    study = Study(tiny())
    assert study.figure_cells(outputs["xi_curves"]) == [{"setting": s} for s in "ABCD"]
    assert study.figure_cells(outputs["cost_accuracy"]) == [
        {"problem": p} for p in ["A", "B", "C", "D", "wdbc"]
    ]
    assert study.figure_cells(outputs["table"]) == [{}]
    # Only the methods with hyperparameter xi make a cell of the xi curves.
    config = tiny()
    for name, options in config["methods"].items():
        hyperparameter = load_method(name).hyperparameter
        if hyperparameter is not None and hyperparameter.name == "xi":
            options["problems"] = ["A", "wdbc"]
    assert Study(config).figure_cells(outputs["xi_curves"]) == [{"setting": "A"}]


def test_a_data_dir_holding_a_csv_and_a_gzipped_csv_of_one_name_is_refused(tmp_path):
    """Which of the two is current is the user's to say: neither wins without a word."""
    from costfs.core.errors import DataError
    from costfs.study.realdata import choose_source

    data = (DATA / "wdbc.csv.gz").read_bytes()
    (tmp_path / "wdbc.csv.gz").write_bytes(data)
    (tmp_path / "wdbc.csv").write_text("x,target\n1,0\n2,1\n")
    config = tiny()
    config["real_data"]["data_dir"] = str(tmp_path)
    with pytest.raises(StudyError, match=r"holds both .*wdbc\.csv\.gz and .*wdbc\.csv;.*\.path"):
        Study(config)
    with pytest.raises(DataError, match=r"holds both .*wdbc\.csv\.gz and .*wdbc\.csv"):
        choose_source("wdbc", {}, str(tmp_path))
    (tmp_path / "wdbc.csv").unlink()
    assert choose_source("wdbc", {}, str(tmp_path)).location == str(tmp_path / "wdbc.csv.gz")
