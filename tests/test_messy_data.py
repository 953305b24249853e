"""Real data as it comes (tests.conftest.write_messy_clinic): missing values, a text column, a
free feature and a group whose shared cost only the costs file gives, through every selector
and `costfs select`; the workflow runs it in tests/test_workflow.py."""

import json
import re

import numpy as np
import pandas as pd
import pytest
import yaml

from costfs import cli
from costfs.cli import storage
from costfs.methods import method_names
from costfs.study.plan import Study
from tests.conftest import MESSY_BLOOD_COST, small_selector, true_cost, write_messy_clinic
from tests.test_study import with_defaults

BUDGETS = [0.5, 1.5, 3.0]


@pytest.fixture(scope="module")
def clinic(tmp_path_factory) -> dict:
    return write_messy_clinic(tmp_path_factory.mktemp("clinic"))


@pytest.mark.parametrize("method", method_names())
def test_every_selector_takes_the_clinic_as_it_comes(clinic, method):
    frame = pd.read_csv(clinic["data"], na_values=["?"])
    X, y = frame.drop(columns="target"), frame["target"]
    assert X.isna().any().sum() == 4 and not pd.api.types.is_numeric_dtype(X["grade"])
    table = pd.read_csv(clinic["costs"], keep_default_na=False)
    rows = table[table["feature"] != ""]
    own = dict(zip(rows["feature"], rows["cost"], strict=True))
    groups = {f: g for f, g in zip(rows["feature"], rows["group"], strict=True) if g}
    for budget in BUDGETS:
        selector = small_selector(
            method,
            feature_costs=own,
            feature_groups=groups,
            group_costs={"blood": MESSY_BLOOD_COST},
            budget=budget,
            random_state=0,
        ).fit(X, y)
        names = list(selector.get_feature_names_out())
        assert set(names) <= set(X.columns)
        assert selector.total_cost_ == pytest.approx(
            true_cost(clinic["own"], clinic["blood"], names)
        )
        assert selector.total_cost_ <= budget + 1e-9


def test_costfs_select_takes_the_clinic_files_as_they_come(clinic, tmp_path):
    """No --group-costs: the costs file gives blood's shared cost; `?` is a missing value."""
    out = tmp_path / "selection.json"
    arguments = [
        "select",
        str(clinic["data"]),
        "--costs",
        str(clinic["costs"]),
        "--missing-values",
        "?",
        "--budget",
        *map(str, BUDGETS),
        "--n-trees",
        "50",
        "--splits",
        "3",
        "--metric",
        "auc",
        "--out",
        str(out),
    ]
    assert cli.main(arguments) == 0
    results = json.loads(out.read_text())["results"]
    assert [result["budget"] for result in results] == BUDGETS
    for result in results:
        cost = true_cost(clinic["own"], clinic["blood"], result["features"])
        assert result["cost"] == pytest.approx(cost) and cost <= result["budget"] + 1e-9
        # The held-out estimate repeats the selection (categorical levels encoded on each
        # split's training rows) and gives every metric an interval.
        held_out = result["held_out"]
        assert held_out["n_splits"] == 3
        # The recommended set's own error is over the splits that chose it, if any did.
        assert 0 <= result["chosen_by_splits"] <= 3
        own = result["held_out_this_set"]["mmce"]
        assert (own is None) == (result["chosen_by_splits"] == 0)
        for metric in ("mmce", "auc"):
            assert held_out[f"{metric}_low"] <= held_out[metric] <= held_out[f"{metric}_high"]
    # The free feature fits the smallest budget; a larger one buys into the blood draw.
    assert any(clinic["blood"] & set(result["features"]) for result in results)


def test_init_study_carries_the_missing_value_marks_into_the_config(
    clinic, tmp_path, capsys, caplog
):
    arguments = ["init-study", str(clinic["data"]), "--costs", str(clinic["costs"])]
    assert cli.main([*arguments, "--missing-values", "?"]) == 0
    config = yaml.safe_load(capsys.readouterr().out)
    dataset = config["real_data"]["datasets"]["clinic"]
    assert dataset["missing_values"] == ["?"] and "group_costs" not in dataset
    study = Study(with_defaults(config), working_directory=tmp_path)
    assert list(study.problems) == ["clinic"]
    # Without the mark, `?` is text among numbers: an error that names the way out.
    assert cli.main(arguments) == 2
    assert "'?' marks a missing value, list it in the data set's missing_values" in caplog.text


@pytest.fixture
def european(tmp_path) -> dict:
    """A clinic export as a European spreadsheet writes it: semicolons, decimal commas and an
    `Id` column of row numbers."""
    rng = np.random.default_rng(2)
    glucose = rng.normal(100, 20, size=40)
    frame = pd.DataFrame(
        {
            "Id": np.arange(1, 41),
            "glucose": glucose.round(1),
            "bmi": rng.normal(25, 4, size=40).round(2),
            "target": (glucose + rng.normal(0, 10, size=40) > 100).astype(int),
        }
    )
    data = tmp_path / "visits.csv"
    frame.to_csv(data, sep=";", decimal=",", index=False)
    costs = tmp_path / "costs.csv"
    costs.write_text("feature,cost\nglucose,10\nbmi,1\n")
    return {"data": data, "costs": costs, "frame": frame}


def test_a_semicolon_csv_with_decimal_commas_and_an_id_reads_as_written(european, tmp_path, caplog):
    out = tmp_path / "selection.json"
    common = [str(european["data"]), "--costs", str(european["costs"]), "--splits", "0"]
    assert cli.main(["select", *common, "--budget", "11", "--n-trees", "20"]) == 2
    assert "no cost for the data's column(s) ['Id']" in caplog.text
    assert "--drop Id" in caplog.text
    caplog.clear()
    arguments = ["select", *common, "--budget", "11", "--drop", "Id", "--out", str(out)]
    assert cli.main([*arguments, "--n-trees", "20"]) == 0
    assert "columns separated by ';', decimal mark ','" in caplog.text
    (result,) = json.loads(out.read_text())["results"]
    assert result["features"] == ["glucose", "bmi"] and result["cost"] == 11
    # The loader reads the same numbers as pandas told the file's dialect.
    source = {"path": str(european["data"]), "drop": ["Id"]}
    loaded = tmp_path / "visits.npz"
    assert (
        cli.main(
            [
                "load-dataset",
                "--name",
                "visits",
                "--source",
                json.dumps(source),
                "--out",
                str(loaded),
            ]
        )
        == 0
    )
    expected = european["frame"][["glucose", "bmi"]].to_numpy()
    np.testing.assert_array_equal(storage.read_arrays(loaded)["X"], expected)


def select_with_an_id_cost(european, *arguments: str) -> int:
    """`costfs select` on the export with a costs file that prices its Id column."""
    european["costs"].write_text("feature,cost\nId,0\nglucose,10\nbmi,1\n")
    common = [str(european["data"]), "--costs", str(european["costs"]), "--splits", "0"]
    return cli.main(["select", *common, "--budget", "1", "--n-trees", "20", *arguments])


def test_an_identifier_column_is_flagged_with_the_option_to_drop_it(european, caplog):
    assert select_with_an_id_cost(european) == 0
    assert "column 'Id' has a different whole number or label in every row" in caplog.text
    assert "--drop Id" in caplog.text
    assert "column 'glucose'" not in caplog.text  # distinct, but not whole numbers


@pytest.mark.parametrize(
    ("written", "arguments", "message"),
    [
        ("a b target\n1 2 0\n2 3 1\n", [], r"reads as one column \('a b target'\).*--sep"),
        ("a;b;target\n1;2;0\n2;3;1\n", ["--sep", ","], "reads as one column"),
        ("a,b,target\n1,2,0\n2,3,1\n", ["--drop", "c"], r"cannot drop \['c'\]: no such column"),
        ("a,b,target\n1,2,0\n2,3,1\n", ["--drop", "target"], "'target' is the target"),
    ],
)
def test_a_file_read_wrongly_is_an_error_that_names_the_option(
    tmp_path, caplog, written, arguments, message
):
    (tmp_path / "data.csv").write_text(written)
    (tmp_path / "costs.csv").write_text("feature,cost\na,1\nb,1\n")
    common = [str(tmp_path / "data.csv"), "--costs", str(tmp_path / "costs.csv")]
    assert cli.main(["select", *common, "--budget", "1", "--splits", "0", *arguments]) == 2
    assert re.search(message, caplog.text), caplog.text


def test_init_study_carries_drop_and_the_dialect_into_a_config_the_study_accepts(
    european, tmp_path, capsys
):
    arguments = ["init-study", str(european["data"]), "--costs", str(european["costs"])]
    assert cli.main([*arguments, "--drop", "Id", "--sep", ";", "--decimal", ","]) == 0
    config = yaml.safe_load(capsys.readouterr().out)
    dataset = config["real_data"]["datasets"]["visits"]
    assert (dataset["drop"], dataset["sep"], dataset["decimal"]) == (["Id"], ";", ",")
    study = Study(with_defaults(config), working_directory=tmp_path)
    assert list(study.problems) == ["visits"]


@pytest.mark.parametrize(
    ("written", "arguments", "message"),
    [
        # Mac line ends (CR only): the header is still found, and so are decimal commas.
        ("a;b;target\r1,5;2;0\r2,5;3;1\r3,5;1;0\r", [], None),
        # A separator given: the decimal mark is still detected with it.
        ("a;b;target\n1,5;2;0\n2,5;3;1\n3,5;1;0\n", ["--sep", ";"], None),
        # A quoted header name holding a comma is not a comma separator.
        ('"weight, kg";b;target\n1,5;2;0\n2,5;3;1\n3,5;1;0\n', [], None),
        # Decimal commas the detection cannot see are named, not taken for categories.
        ("a;b;target\n1,5;2;0\n2,5;3;1\n3,5;1;0\n", ["--decimal", "."], "decimal commas"),
    ],
)
def test_decimal_commas_are_read_as_numbers_or_named(tmp_path, caplog, written, arguments, message):
    data = tmp_path / "data.csv"
    data.write_bytes(written.encode())
    first = written.replace("\r", "\n").split("\n")[0].split(";")[0].strip('"')
    (tmp_path / "costs.csv").write_text(f'feature,cost\n"{first}",1\nb,1\n')
    out = tmp_path / "out.json"
    common = [str(data), "--costs", str(tmp_path / "costs.csv"), "--splits", "0"]
    code = cli.main(
        ["select", *common, "--budget", "2", "--n-trees", "10", "--out", str(out), *arguments]
    )
    if message:
        assert code == 2 and message in caplog.text
    else:
        assert code == 0, caplog.text
        assert "decimal mark ','" in caplog.text


def test_a_bz2_comma_csv_reads_as_before(tmp_path, european):
    frame = european["frame"]
    frame.to_csv(tmp_path / "plain.csv.bz2", index=False)
    from costfs.cli.stages.realdata import read_table_file

    pd.testing.assert_frame_equal(read_table_file(str(tmp_path / "plain.csv.bz2")), frame)


def test_a_costs_row_for_a_dropped_column_is_named(european, caplog):
    assert select_with_an_id_cost(european, "--drop", "Id") == 2
    assert "costs for ['Id'], which are not features of the data" in caplog.text
    assert "--drop" in caplog.text
