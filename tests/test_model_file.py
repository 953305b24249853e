"""`costfs select --path`, `--save-model` and `costfs predict` on data as it comes (missing
values, a text column, a shared-cost group)."""

import fractions
import json
import re

import numpy as np
import pandas as pd
import pytest
import skops.io

from costfs import cli
from costfs.cli.model import load_model
from tests.conftest import DATA, true_cost, write_messy_clinic


@pytest.fixture(scope="module")
def clinic(tmp_path_factory) -> dict:
    return write_messy_clinic(tmp_path_factory.mktemp("clinic"))


def clinic_select(clinic, *arguments: str) -> int:
    return cli.main(
        [
            "select",
            str(clinic["data"]),
            "--costs",
            str(clinic["costs"]),
            "--missing-values",
            "?",
            "--n-trees",
            "60",
            "--method",
            "auc",
            "--xi",
            "1",
            "-q",
            *arguments,
        ]
    )


@pytest.fixture(scope="module")
def saved(clinic, tmp_path_factory) -> dict:
    """A model at budget 3.5 fit on the first 400 rows, the other rows to predict."""
    directory = tmp_path_factory.mktemp("model")
    frame = pd.read_csv(clinic["data"], dtype=str, keep_default_na=False)
    training, new = directory / "training.csv", directory / "new.csv"
    frame.iloc[:400].to_csv(training, index=False)
    # New rows come with their columns in another order, an Id and without the target.
    rows = frame.iloc[400:].drop(columns="target")
    rows = rows[rows.columns[::-1]].assign(patient=[f"p{i}" for i in range(len(rows))])
    rows.to_csv(new, index=False)
    model = directory / "model.skops"
    training_clinic = {**clinic, "data": training}
    assert (
        clinic_select(
            training_clinic, "--budget", "3.5", "--splits", "0", "--save-model", str(model)
        )
        == 0
    )
    return {
        "model": model,
        "new": new,
        "truth": frame.iloc[400:]["target"].astype(int).to_numpy(),
        "directory": directory,
    }


def predict(saved, data, *arguments: str) -> tuple[int, pd.DataFrame | None]:
    out = saved["directory"] / "predictions.csv"
    out.unlink(missing_ok=True)
    code = cli.main(["predict", str(saved["model"]), str(data), "--out", str(out), *arguments])
    return code, pd.read_csv(out) if out.exists() else None


def test_a_saved_model_predicts_new_rows_with_missing_values_and_text(saved, clinic):
    document = load_model(str(saved["model"]))
    features = document["features"]
    assert "grade" in features and "grade" in document["categorical"]
    assert clinic["blood"] & set(features), "the model reads columns that miss values"
    assert document["cost"] == pytest.approx(true_cost(clinic["own"], clinic["blood"], features))
    assert document["cost"] <= 3.5
    code, predictions = predict(saved, saved["new"], "--keep", "patient", "--missing-values", "")
    assert code == 0
    assert list(predictions.columns) == [
        "patient",
        "predicted_target",
        "probability_0",
        "probability_1",
    ]
    assert predictions["patient"].tolist() == [f"p{i}" for i in range(len(saved["truth"]))]
    shares = predictions[["probability_0", "probability_1"]].to_numpy()
    np.testing.assert_allclose(shares.sum(axis=1), 1, atol=1e-3)
    assert (predictions["predicted_target"].to_numpy() == shares.argmax(axis=1)).all()
    # wdbc's classes are well separated: a model that misread the columns would not be right
    # on nine rows in ten of rows it never saw.
    assert (predictions["predicted_target"].to_numpy() == saved["truth"]).mean() > 0.9
    # The same file, predicted again, gives the same predictions.
    assert predict(saved, saved["new"])[1]["predicted_target"].equals(
        predictions["predicted_target"]
    )


def test_predict_refuses_a_file_without_the_model_s_columns(saved, caplog):
    rows = pd.read_csv(saved["new"], dtype=str, keep_default_na=False)
    short = saved["directory"] / "short.csv"
    rows.drop(columns="grade").to_csv(short, index=False)
    code, predictions = predict(saved, short)
    assert code == 2 and predictions is None
    assert str(short) in caplog.text and "'grade'" in caplog.text
    # The file's few columns are listed whole, without a mark of more.
    assert f"its {len(rows.columns) - 1} columns:" in caplog.text and "..." not in caplog.text


def test_predict_refuses_text_in_a_column_the_model_read_as_numbers(saved, caplog):
    rows = pd.read_csv(saved["new"], dtype=str, keep_default_na=False)
    document = load_model(str(saved["model"]))
    number = next(name for name in document["features"] if name not in document["categorical"])
    rows.loc[3, number] = "unknown"
    rows.loc[5, number] = "n.k."
    wrong = saved["directory"] / "wrong.csv"
    rows.to_csv(wrong, index=False)
    assert predict(saved, wrong)[0] == 2
    assert repr(number) in caplog.text and "2 value(s)" in caplog.text
    assert "'unknown' in row 4" in caplog.text and "'n.k.' in row 6" in caplog.text
    assert "--decimal" in caplog.text
    # Listed as a missing value, the mark is read as one.
    assert predict(saved, wrong, "--missing-values", "unknown", "n.k.")[0] == 0


def test_predict_refuses_a_model_file_that_names_other_types(saved, caplog):
    foreign = saved["directory"] / "foreign.skops"
    foreign.write_bytes(skops.io.dumps({"format": "costfs-model", "x": fractions.Fraction(1, 3)}))
    code, _ = predict({**saved, "model": foreign}, saved["new"])
    assert code == 2 and "fractions.Fraction" in caplog.text


def test_save_model_takes_one_budget(clinic, tmp_path, caplog):
    model = tmp_path / "model.skops"
    code = clinic_select(clinic, "--budget", "1", "2", "--save-model", str(model))
    assert code == 2 and "exactly one --budget" in caplog.text
    assert not model.exists()
    # Without any budget the message names the one thing that helps: --path cannot.
    caplog.clear()
    assert clinic_select(clinic, "--save-model", str(model)) == 2
    assert "exactly one --budget" in caplog.text and "--path" not in caplog.text


def test_select_path_prints_every_step_with_its_held_out_error(clinic, tmp_path, capsys):
    out = tmp_path / "path.json"
    assert clinic_select(clinic, "--path", "--splits", "3", "--out", str(out)) == 0
    document = json.loads(out.read_text())
    steps = document["path"]
    assert document["path_exact"] is True
    # The path runs from the free feature alone to every feature, each step a new set.
    assert steps[0]["budget"] == 0 and steps[0]["features"] == ["age"]
    assert sorted(steps[-1]["features"]) == sorted(clinic["own"].index)
    bought = []
    for step in steps:
        assert step["cost"] == pytest.approx(
            true_cost(clinic["own"], clinic["blood"], step["features"])
        )
        assert step["cost"] <= step["budget"] + 1e-9
        bought = [name for name in bought if name not in step["dropped"]] + step["added"]
        assert sorted(bought) == sorted(step["features"])
        held_out = step["held_out"]
        assert held_out["mmce_low"] <= held_out["mmce"] <= held_out["mmce_high"]
    printed = capsys.readouterr().out.splitlines()
    header = re.split(r"\s{2,}", printed[0])
    assert header[:5] == ["from budget", "cost", "n", "buy", "drop"]
    # The held-out columns say whose error each is: the set's own where splits chose it, the
    # procedure's at that budget.
    assert header[5:8] == [
        "chosen by splits",
        "this set's error rate (MMCE) where chosen",
        "procedure's error rate (MMCE) [95% interval]",
    ]
    assert header[-1] == "on the front"
    for line, step in zip(printed[1:], steps, strict=True):
        own = step["held_out_this_set"]["mmce"]
        assert (f"{own:.3f}" if step["chosen_by_splits"] else "undefined") in line
        assert line.endswith("yes" if step["held_out"]["on_pareto_front"] else "no")
    assert document["settings"]["splits"] == 3 and document["settings"]["xi"] == 1.0
    assert len(printed) == len(steps) + 1
    assert re.split(r"\s{2,}", printed[1])[3] == "+age"
    # The columns line up: each step's cost stands under the header's.
    column = printed[0].index("cost")
    for line, step in zip(printed[1:], steps, strict=True):
        assert line[column:].split()[0] == f"{step['cost']:.4g}"
    assert all(type(step["held_out"]["n_splits"]) is int for step in steps)
    assert all(type(step["held_out"]["on_pareto_front"]) is bool for step in steps)
    # Each step is what `--budget` at its budget selects.
    middle = steps[len(steps) // 2]
    single = tmp_path / "single.json"
    assert (
        clinic_select(
            clinic, "--budget", str(middle["budget"]), "--splits", "0", "--out", str(single)
        )
        == 0
    )
    assert json.loads(single.read_text())["results"][0]["features"] == middle["features"]


def test_predict_warns_of_a_level_the_model_never_saw(saved, caplog):
    rows = pd.read_csv(saved["new"], dtype=str, keep_default_na=False)
    rows.loc[0, "grade"] = "extreme"
    unseen = saved["directory"] / "unseen.csv"
    rows.to_csv(unseen, index=False)
    code, predictions = predict(saved, unseen)
    assert code == 0 and len(predictions) == len(rows)
    assert "'grade'" in caplog.text and "['extreme']" in caplog.text


def test_a_path_past_the_total_cost_ends_at_it(clinic, tmp_path, caplog):
    out = tmp_path / "path.json"
    everything = true_cost(clinic["own"], clinic["blood"], clinic["own"].index)
    arguments = ("--path", "--budget", str(10 * everything), "--splits", "0", "--out", str(out))
    assert clinic_select(clinic, *arguments) == 0
    steps = json.loads(out.read_text())["path"]
    assert steps[-1]["budget"] == pytest.approx(everything)
    assert "the path ends there" in caplog.text


def test_names_that_hold_commas_are_quoted_in_the_tables(tmp_path, capsys):
    frame = pd.read_csv(DATA / "wdbc.csv.gz").iloc[:, [0, 1, 2, -1]]
    frame.columns = ["radius, mean", "texture", " area", "target"]
    data, costs = tmp_path / "odd.csv", tmp_path / "odd_costs.csv"
    frame.to_csv(data, index=False)
    pd.DataFrame({"feature": frame.columns[:3], "cost": [1.0, 1.0, 1.0]}).to_csv(costs, index=False)
    arguments = ["select", str(data), "--costs", str(costs), "--n-trees", "30", "-q"]
    assert cli.main([*arguments, "--method", "auc", "--budget", "1", "3", "--splits", "0"]) == 0
    printed = capsys.readouterr().out
    assert '"radius, mean", texture, " area"' in printed
