"""Inputs that used to give silently stale or wrong results: each is now refused with an
error naming the file, column or key, or handled so that the result stays right."""

import json
import logging
import os
import re
import stat

import numpy as np
import pandas as pd
import pytest

import costfs
from costfs import cli
from costfs.cli import storage
from costfs.core.costs import FeatureCosts
from costfs.core.errors import DataError
from costfs.study.evaluation import check_selection
from costfs.study.plan import Study, StudyError
from tests.test_study import tiny


def load(tmp_path, frame_text: str, name: str = "clinic"):
    """`costfs load-dataset` on a CSV with the given text: exit status and log."""
    path = tmp_path / f"{name}.csv"
    path.write_text(frame_text)
    source = json.dumps({"path": str(path)})
    out = tmp_path / "out.npz"
    return cli.main(["load-dataset", "--name", name, "--source", source, "--out", str(out)]), out


@pytest.mark.parametrize("name", ["independent", "correlated"])
def test_a_data_set_named_like_the_simulated_training_data_is_refused(name):
    config = tiny()
    config["real_data"]["datasets"][name] = config["real_data"]["datasets"]["wdbc"]
    with pytest.raises(StudyError, match=f"real_data.datasets.{name}: '{name}' is the name"):
        Study(config)


def test_a_data_set_named_like_a_setting_is_refused():
    config = tiny()
    config["real_data"]["datasets"]["A"] = config["real_data"]["datasets"]["wdbc"]
    with pytest.raises(StudyError, match="its problem 'A' has the name of simulated setting"):
        Study(config)


def test_two_data_sets_with_the_same_problem_name_are_refused():
    config = tiny()
    datasets = config["real_data"]["datasets"]
    datasets["wdbc"]["n_cost_vectors"] = 2  # problems wdbc_c1 and wdbc_c2
    datasets["wdbc_c1"] = {"budgets": [1]}
    with pytest.raises(StudyError, match="'wdbc_c1' is also a problem of data set 'wdbc'"):
        Study(config)


def test_a_duplicated_header_name_is_refused_not_renamed(tmp_path, caplog):
    code, out = load(tmp_path, "a,target,b,target\n1,0,2,0\n2,1,3,1\n3,0,1,1\n")
    assert code == 2 and not out.exists()
    assert "column name(s) ['target'] appear more than once in the header" in caplog.text


def test_a_feature_equal_to_the_target_is_refused(tmp_path, caplog):
    code, _ = load(tmp_path, "a,target,leak\n1,0,0\n2,1,1\n3,0,0\n4,1,1\n")
    assert code == 2
    assert "column(s) ['leak'] equal the target column 'target'" in caplog.text


def test_the_loading_does_not_depend_on_budgets_or_costs():
    """Only the loading keys reach the loading job: a new budget or shared cost reruns the
    selections, not the data."""
    config = tiny()
    wdbc = config["real_data"]["datasets"]["wdbc"]
    before = Study(config).dataset_source("wdbc")
    wdbc["budgets"] = [1, 2, 4]
    wdbc["group_costs"] = {"draw": 1.0}
    assert Study(config).dataset_source("wdbc") == before
    wdbc["positive_class"] = 1
    assert Study(config).dataset_source("wdbc") != before


def test_the_data_file_is_the_loading_jobs_input():
    study = Study(tiny())
    assert study.dataset_file("wdbc").endswith(("wdbc.csv.gz", "wdbc.csv"))


COSTS = FeatureCosts.grouped(np.array([0.5, 0.7, 1.0]), ["lab", "lab", None], {"lab": 0.8})


@pytest.mark.parametrize(
    ("features", "budget", "message"),
    [
        ([0, 1], 1.2, r"sel.parquet: the set \[0, 1\] costs 2, over its budget 1.2"),
        ([0, 3], 9.0, r"names column\(s\) \[3\], but the data has 3 columns"),
        ([2, 2], 9.0, "names a column twice"),
    ],
)
def test_a_selection_that_breaks_its_budget_or_the_columns_is_not_evaluated(
    features, budget, message
):
    selection = pd.DataFrame({"features": [[0], features], "budget": [1.5, budget]})
    with pytest.raises(DataError, match=message):
        check_selection(selection, COSTS, "sel.parquet")
    check_selection(selection.iloc[:1], COSTS, "sel.parquet")


def test_a_corrupt_intermediate_is_named(tmp_path):
    arrays, table = tmp_path / "data.npz", tmp_path / "runs.parquet"
    storage.write_arrays(arrays, {"X": np.ones((3, 2))})
    storage.write_table(table, pd.DataFrame({"a": [1, 2]}))
    for path in (arrays, table):
        content = bytearray(path.read_bytes())
        path.write_bytes(bytes(content[: len(content) // 2]))
    with pytest.raises(DataError, match=f"{arrays}: cannot be read .*--forcerun"):
        storage.read_arrays(arrays)
    with pytest.raises(DataError, match=f"{table}: cannot be read"):
        storage.read_table(table)


def test_an_output_through_a_link_replaces_the_file_and_gets_a_normal_mode(tmp_path):
    target, link = tmp_path / "real.txt", tmp_path / "link.txt"
    target.write_text("old")
    link.symlink_to(target)
    previous = os.umask(0o027)
    try:
        storage.write_text(link, "new")
    finally:
        os.umask(previous)
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


# Tracebacks that became one-line errors.


@pytest.fixture
def own_data(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(target=(X[:, 0] > 0).astype(int))
    frame.to_csv(tmp_path / "data.csv", index=False)
    pd.DataFrame({"feature": ["a", "b", "c"], "cost": [1.0, 1.0, 2.0]}).to_csv(
        tmp_path / "costs.csv", index=False
    )
    return tmp_path


def select(directory, *arguments: str) -> int:
    common = [str(directory / "data.csv"), "--costs", str(directory / "costs.csv")]
    return cli.main(
        ["select", "--splits", "0", *common, "--method", "auc", "--n-trees", "20", *arguments]
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--budget", "nan"], "budgets: must be a number >= 0, got nan"),
        (["--budget", "1", "1"], r"budgets: budget\(s\) \[1.0\] given more than once"),
        (["--budget", "-1"], "budgets: must be a number >= 0, got -1.0"),
        (["--budget", "1", "--xi", "nan"], "auc: parameter xi: nan is not a finite number"),
        (["--budget", "1", "--xi", "-1"], "auc: parameter xi: -1.0 is less than the minimum"),
    ],
)
def test_bad_budgets_and_xi_on_the_command_line_are_named(own_data, caplog, arguments, message):
    assert select(own_data, *arguments) == 2
    assert re.search(message, caplog.text)


@pytest.mark.parametrize(
    ("budget", "warned", "features"),
    [
        (
            "0.5",
            "budget 0.5 buys no feature: its model always predicts the most frequent class; "
            "the cheapest priced feature, a, costs 1",
            [],
        ),
        ("0", None, ["b"]),
        (
            "0.9",
            "budget 0.9 buys free features only (cost 0); the cheapest priced feature, a, costs 1",
            ["b"],
        ),
        ("1", None, ["a", "b"]),
    ],
)
def test_a_budget_that_buys_nothing_or_free_features_only_says_so(
    own_data, caplog, tmp_path, budget, warned, features
):
    """Budget 0 asks what the free features give, and is answered without a warning."""
    out = tmp_path / "selection.json"
    if features:
        pd.DataFrame({"feature": ["a", "b", "c"], "cost": [1.0, 0.0, 2.0]}).to_csv(
            own_data / "costs.csv", index=False
        )
    assert select(own_data, "--budget", budget, "--out", str(out)) == 0
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ([warned] if warned else [])
    (result,) = json.loads(out.read_text())["results"]
    assert sorted(result["features"]) == features


def test_zero_trees_are_refused_before_any_work(own_data, capsys):
    with pytest.raises(SystemExit):
        select(own_data, "--budget", "1", "--n-trees", "0")
    assert "invalid positive_integer value: '0'" in capsys.readouterr().err


def test_an_unwritable_out_path_loses_no_result(own_data, caplog, capsys):
    assert select(own_data, "--budget", "1", "--out", str(own_data / "no" / "x" / "y.json")) == 0
    # the directory is created; a path under a file cannot be
    (own_data / "file").write_text("")
    assert select(own_data, "--budget", "1", "--out", str(own_data / "file" / "y.json")) == 2
    assert "total cost" in capsys.readouterr().out
    assert f"--out {own_data / 'file' / 'y.json'}: cannot be written" in caplog.text


def test_a_truncated_gzip_file_is_named(own_data, caplog):
    compressed = own_data / "data.csv.gz"
    pd.read_csv(own_data / "data.csv").to_csv(compressed, index=False)
    compressed.write_bytes(compressed.read_bytes()[:-20])
    common = [str(compressed), "--costs", str(own_data / "costs.csv"), "--budget", "1"]
    assert cli.main(["select", *common]) == 2
    assert f"{compressed}: cannot be read as a table" in caplog.text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a,b,target\n", r"has no data rows \(only a header\)"),
        ("a,,target\n1,2,0\n3,4,1\n", r"the header has no name for column\(s\) \[2\]"),
        (
            "a,b,target\n1,2,0\n?,3,1\n4,5,0\n",
            "column 'a' mixes numbers and text .*'\\?'.*missing_values",
        ),
    ],
)
def test_a_header_only_file_and_a_question_mark_are_named(tmp_path, caplog, text, message):
    code, _ = load(tmp_path, text)
    assert code == 2 and re.search(message, caplog.text)


def test_duplicate_or_integer_column_names_in_python_are_named():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(DataError, match=r"X: column name\(s\) \['a'\] appear more than once"):
        costfs.AUCFilter(budget=1).fit(pd.DataFrame(X, columns=["a", "a", "b"]), y)
    numbered = pd.DataFrame(X, columns=[0, 1, 2])
    with pytest.raises(DataError, match="keyed by column name, but X's column names"):
        costfs.AUCFilter(budget=1, feature_costs={0: 1, 1: 1, 2: 1}).fit(numbered, y)
    assert costfs.AUCFilter(budget=1, feature_costs=[1, 1, 1]).fit(numbered, y).total_cost_ == 1


def test_a_folder_given_as_the_data_is_named_as_a_folder(own_data, caplog):
    common = [str(own_data), "--costs", str(own_data / "costs.csv"), "--budget", "1"]
    assert cli.main(["select", *common]) == 2
    assert f"{own_data}: is a folder; give the data file in it" in caplog.text


def test_a_constant_column_is_named_when_read_and_when_bought(own_data, caplog):
    frame = pd.read_csv(own_data / "data.csv").assign(a=1.0)
    frame.to_csv(own_data / "data.csv", index=False)
    pd.DataFrame({"feature": ["a", "b", "c"], "cost": [0.1, 5.0, 5.0]}).to_csv(
        own_data / "costs.csv", index=False
    )
    assert select(own_data, "--budget", "1") == 0
    assert "column 'a' is constant (kept as a feature)" in caplog.text
    assert "budget 1 buys constant column(s) ['a']" in caplog.text
