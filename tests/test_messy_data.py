"""Real data as it comes (tests.conftest.write_messy_clinic): missing values, a text column, a
free feature and a group whose shared cost only the costs file gives, through every selector
and `costfs select`; the workflow runs it in tests/test_workflow.py."""

import json

import pandas as pd
import pytest
import yaml

from costfs import cli
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
