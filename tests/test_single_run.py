"""One data set without a study: `costfs select`, `costfs init-study` and costs files."""

import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml
from sklearn.datasets import load_wine

import costfs
from costfs import cli
from costfs.core.costs import FeatureCosts
from costfs.core.validation import DataError
from costfs.methods import load_method, load_selector
from costfs.study.budgets import budget_breakpoints
from costfs.study.plan import Study
from costfs.study.realdata import costs_from_table
from tests.conftest import REPO
from tests.test_study import with_defaults


@pytest.fixture
def own_data(tmp_path, data_sets):
    """wdbc as a researcher's CSV, with a costs file keyed by column name (shuffled rows)."""
    frame = pd.read_csv(data_sets / "wdbc.csv.gz")
    data = tmp_path / "wdbc.csv"
    frame.to_csv(data, index=False)
    names = [column for column in frame.columns if column != "target"]
    rng = np.random.default_rng(5)
    costs = pd.DataFrame({"feature": names, "cost": np.round(rng.uniform(0.1, 1.0, len(names)), 2)})
    costs_file = tmp_path / "costs.csv"
    costs.sample(frac=1, random_state=1).to_csv(costs_file, index=False)
    return frame, data, costs.set_index("feature")["cost"], costs_file


def without_estimate(data, costs_file, *budgets: str) -> list[str]:
    """`costfs select` on the data for the budgets, without the held-out estimate (its own
    test checks it; the others check the selection)."""
    return ["select", "--splits", "0", str(data), "--costs", str(costs_file), "--budget", *budgets]


@pytest.mark.parametrize("method", ["auc", "sts"])
def test_select_command_equals_the_python_selector(own_data, tmp_path, method, capsys):
    frame, data, costs, costs_file = own_data
    out = tmp_path / "result.json"
    arguments = without_estimate(data, costs_file, "2.5")
    arguments += ["--method", method, "--xi", "1", "--seed", "3", "--out", str(out)]
    assert cli.main(arguments) == 0
    (result,) = json.loads(out.read_text())["results"]
    X = frame.drop(columns="target")
    selector_class = getattr(costfs, type(load_method(method)).__name__)
    options = {"trees_per_depth": 500} if method == "sts" else {}
    selector = selector_class(
        feature_costs=costs.to_dict(), budget=2.5, xi=1.0, random_state=3, **options
    ).fit(X, frame["target"])
    assert result["features"] == list(selector.get_feature_names_out())
    assert result["cost"] == pytest.approx(selector.total_cost_)
    assert result["cost"] == pytest.approx(costs[result["features"]].sum())
    assert result["xi"] == 1.0 and 0 <= result["oob_mmce"] <= 0.5
    assert "OOB error of a refit" in capsys.readouterr().out


def test_select_command_reports_a_held_out_estimate_with_intervals(own_data, tmp_path, capsys):
    _, data, _, costs_file = own_data
    arguments = ["select", str(data), "--costs", str(costs_file), "--budget", "2.5"]
    arguments += ["--method", "auc", "--splits", "4", "--metric", "auc", "specificity"]
    assert cli.main([*arguments, "--n-trees", "50"]) == 0
    shown = capsys.readouterr().out
    assert "held-out estimate over 4 splits" in shown
    assert re.search(r"this very set was chosen by \d of 4 held-out splits", shown)
    for name in ("error rate (MMCE)", "AUC", "specificity of '1'"):
        assert re.search(rf"  {re.escape(name)} [0-9.]+ \[[-0-9.]+, [0-9.]+\]", shown)
    assert "OOB" not in shown


def test_select_names_the_positive_class_and_takes_it_by_label(own_data, tmp_path, capsys, caplog):
    """Labels healthy/disease: by sort order healthy is class 1, which a reader would not
    guess; the output says so, and --positive-class disease swaps sensitivity and
    specificity."""
    frame, _, _, costs_file = own_data
    data = tmp_path / "labelled.csv"
    frame.assign(target=frame["target"].map({0: "healthy", 1: "disease"})).to_csv(data, index=False)
    found = {}
    for positive in (None, "disease"):
        out = tmp_path / f"{positive}.json"
        arguments = ["select", str(data), "--costs", str(costs_file), "--budget", "2.5"]
        arguments += ["--method", "auc", "--xi", "0", "--splits", "3", "--n-trees", "50"]
        arguments += ["--metric", "sensitivity", "specificity", "--out", str(out)]
        arguments += ["--positive-class", positive] if positive else []
        assert cli.main(arguments) == 0
        found[positive] = json.loads(out.read_text()), capsys.readouterr().out
    (default, shown), (flipped, shown_flipped) = found[None], found["disease"]
    assert "positive class 'healthy' (the larger label; --positive-class LABEL sets it)" in (
        caplog.text
    )
    assert default["classes"] == ["disease", "healthy"] and default["positive_class"] == "healthy"
    assert flipped["classes"] == ["not disease", "disease"]
    assert flipped["positive_class"] == "disease"
    assert default["metrics"]["sensitivity"] == "true positive rate, positive class 'healthy'"
    assert re.search(r"  sensitivity of 'healthy' [0-9.]+ \[", shown)
    assert re.search(r"  sensitivity of 'disease' [0-9.]+ \[", shown_flipped)
    (before,), (after,) = default["results"], flipped["results"]
    assert before["features"] == after["features"]
    # The splits' selections may differ with the coding, so the rates are close, not equal:
    # each is nearer its swapped counterpart than its namesake.
    swapped, kept = before["held_out"], after["held_out"]
    for metric, other in (("sensitivity", "specificity"), ("specificity", "sensitivity")):
        assert abs(kept[metric] - swapped[other]) < abs(kept[metric] - swapped[metric])


def test_select_says_how_metrics_average_over_three_classes(tmp_path, capsys):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(
        target=np.array(["low", "mid", "high"])[np.digitize(X[:, 0], [-0.4, 0.4])]
    )
    frame.to_csv(tmp_path / "three.csv", index=False)
    (tmp_path / "costs.csv").write_text("feature,cost\na,1\nb,1\nc,1\n")
    out = tmp_path / "out.json"
    arguments = ["select", str(tmp_path / "three.csv"), "--costs", str(tmp_path / "costs.csv")]
    arguments += ["--budget", "1", "--method", "auc", "--splits", "3", "--n-trees", "30"]
    assert cli.main([*arguments, "--metric", "sensitivity", "auc", "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    assert re.search(r"  sensitivity \(macro average\) [0-9.]+ \[", shown)
    assert re.search(r"  AUC \(macro average\) [0-9.]+ \[", shown)
    document = json.loads(out.read_text())
    assert document["positive_class"] is None and document["classes"] == ["high", "low", "mid"]
    assert document["metrics"]["sensitivity"].startswith("macro average over the 3 classes")


@pytest.mark.parametrize("method", ["auc", "budget_rf"])
def test_select_command_keeps_three_classes_as_the_python_selector(tmp_path, method):
    """wine's three classes: the command and the selector select the same features;
    `--positive-class` maps one label against the rest instead."""
    frame = load_wine(as_frame=True).frame
    frame.to_csv(tmp_path / "wine.csv", index=False)
    costs = pd.Series(np.linspace(0.5, 1.5, 13), index=frame.columns[:-1])
    costs.rename_axis("feature").rename("cost").reset_index().to_csv(
        tmp_path / "costs.csv", index=False
    )
    selector_class = getattr(costfs, type(load_method(method)).__name__)
    hyperparameter = load_method(method).hyperparameter.name
    results = {}
    for mapping in ([], ["--positive-class", "2"]):
        out = tmp_path / "result.json"
        arguments = without_estimate(tmp_path / "wine.csv", tmp_path / "costs.csv", "3")
        arguments += ["--method", method, "--seed", "3", "--out", str(out)]
        assert cli.main(arguments + mapping) == 0
        (results[bool(mapping)],) = json.loads(out.read_text())["results"]
    y = frame["target"]
    for binary, target in ((False, y), (True, y == 2)):
        selector = selector_class(feature_costs=costs.to_dict(), budget=3, random_state=3)
        selector.set_params(**{hyperparameter: results[binary][hyperparameter]})
        selector.fit(frame.drop(columns="target"), target)
        assert results[binary]["features"] == list(selector.get_feature_names_out())
    assert results[False]["oob_mmce"] < 1 - y.value_counts(normalize=True).max()


def test_select_command_shows_progress_bars_on_stderr_and_the_selector_stays_quiet(tmp_path, capfd):
    frame = load_wine(as_frame=True).frame
    frame.to_csv(tmp_path / "wine.csv", index=False)
    names = frame.columns[:-1]
    pd.DataFrame({"feature": names, "cost": 1.0}).to_csv(tmp_path / "costs.csv", index=False)
    arguments = without_estimate(tmp_path / "wine.csv", tmp_path / "costs.csv", "2", "3")
    arguments += ["--method", "fs", "--n-trees", "20"]
    assert cli.main(arguments) == 0
    captured = capfd.readouterr()
    # tuning over the default xi grid: every (xi, budget) path, then the refits of their sets
    assert re.search(r"forward selection: 100%.* 8/8 ", captured.err)
    assert re.search(r"Random Forest refits: 100%.*forest", captured.err)
    assert "forward selection" not in captured.out
    costfs.ForwardSelector(budget=2, n_trees=20).fit(frame[names], frame["target"])
    assert capfd.readouterr().err == ""


def test_select_command_with_a_shared_cost_group_equals_the_python_selector(own_data, tmp_path):
    frame, data, costs, _ = own_data
    blood = ["mean radius", "worst radius", "mean texture"]
    table = costs.rename_axis("feature").rename("cost").reset_index()
    table["group"] = ["blood" if name in blood else "" for name in table["feature"]]
    table.to_csv(tmp_path / "grouped.csv", index=False)
    out = tmp_path / "result.json"
    arguments = ["select", "--splits", "0", str(data), "--costs", str(tmp_path / "grouped.csv")]
    arguments += ["--group-costs", "blood=2.1", "--budget", "4", "--method", "pfi", "--xi", "0"]
    assert cli.main([*arguments, "--seed", "2", "--out", str(out)]) == 0
    (result,) = json.loads(out.read_text())["results"]
    selector = costfs.PermutationImportanceFilter(
        feature_costs=costs.to_dict(),
        feature_groups=dict.fromkeys(blood, "blood"),
        group_costs={"blood": 2.1},
        budget=4.0,
        xi=0.0,
        random_state=2,
    ).fit(frame.drop(columns="target"), frame["target"])
    assert result["features"] == list(selector.get_feature_names_out())
    shared = 2.1 if set(blood) & set(result["features"]) else 0.0
    assert result["cost"] == pytest.approx(costs[result["features"]].sum() + shared)
    assert result["cost"] == pytest.approx(selector.total_cost_)


def test_select_command_tunes_xi_over_several_budgets(own_data, tmp_path, capsys):
    _, data, costs, costs_file = own_data
    out = tmp_path / "result.json"
    arguments = without_estimate(data, costs_file, "1", "4")
    assert cli.main([*arguments, "--method", "auc", "--out", str(out)]) == 0
    results = json.loads(out.read_text())["results"]
    assert [r["budget"] for r in results] == [1.0, 4.0]
    for result in results:
        assert result["xi"] in (0, 0.5, 1, 2)
        assert result["cost"] <= result["budget"] + 1e-9
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["budget", "xi", "cost", "oob_mmce", "features", "to", "buy"]
    assert len(table) == 3


def test_init_study_writes_a_config_the_study_accepts(own_data, tmp_path, capsys):
    _, data, costs, costs_file = own_data
    assert cli.main(["init-study", str(data), "--costs", str(costs_file)]) == 0
    config = yaml.safe_load(capsys.readouterr().out)
    dataset = config["real_data"]["datasets"]["wdbc"]
    assert dataset["path"] == str(data) and dataset["costs"] == str(costs_file)
    assert max(dataset["budgets"]) < costs.sum() and min(dataset["budgets"]) >= costs.min()
    study = Study(with_defaults(config), working_directory=tmp_path)
    assert list(study.problems) == ["wdbc"]
    assert "fs" in study.methods  # 30 features: forward selection is affordable


def test_init_study_names_a_data_set_the_study_accepts_or_refuses_name(
    own_data, tmp_path, capsys, caplog
):
    frame, _, _, costs_file = own_data
    data = tmp_path / "2020 visits.csv"
    frame.to_csv(data, index=False)
    assert cli.main(["init-study", str(data), "--costs", str(costs_file)]) == 0
    config = yaml.safe_load(capsys.readouterr().out)
    assert list(config["real_data"]["datasets"]) == ["d2020_visits"]
    Study(with_defaults(config), working_directory=tmp_path)
    arguments = ["init-study", str(data), "--costs", str(costs_file), "--name", "bad name"]
    assert cli.main(arguments) == 2
    assert "--name 'bad name': a data set name starts with a letter" in caplog.text


def test_the_data_set_name_rule_is_the_config_schema_s():
    from costfs.study.realdata import DATASET_NAME

    schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    datasets = schema["properties"]["real_data"]["properties"]["datasets"]
    assert datasets["propertyNames"]["pattern"] == f"^{DATASET_NAME.pattern}$"


@pytest.mark.parametrize("command", ["select", "init-study"])
@pytest.mark.parametrize("target", ["data", "costs"])
def test_no_command_writes_over_a_file_it_reads(own_data, caplog, command, target):
    _, data, _, costs_file = own_data
    victim = data if target == "data" else costs_file
    before = victim.read_bytes()
    arguments = [command, str(data), "--costs", str(costs_file), "--out", str(victim)]
    arguments += ["--budget", "1", "--splits", "0"] if command == "select" else []
    assert cli.main(arguments) == 2
    assert victim.read_bytes() == before
    assert f"--out {victim} is" in caplog.text and "file this command reads" in caplog.text


def test_init_study_replaces_an_existing_config_only_with_force(own_data, tmp_path, caplog):
    _, data, _, costs_file = own_data
    study = tmp_path / "study.yaml"
    arguments = ["init-study", str(data), "--costs", str(costs_file), "--out", str(study)]
    assert cli.main(arguments) == 0
    study.write_text(study.read_text().replace("n_rep: 10", "n_rep: 25"))
    edited = study.read_text()
    assert cli.main(arguments) == 2
    assert study.read_text() == edited and "--force to replace it" in caplog.text
    assert cli.main([*arguments, "--force"]) == 0
    assert "n_rep: 10" in study.read_text()


def test_one_split_gives_no_interval_and_strict_json(own_data, tmp_path, capsys):
    _, data, _, costs_file = own_data
    out = tmp_path / "selection.json"
    arguments = ["select", str(data), "--costs", str(costs_file), "--budget", "1"]
    assert cli.main([*arguments, "--method", "auc", "--splits", "1", "--out", str(out)]) == 0
    assert "[no interval from one split]" in capsys.readouterr().out
    (result,) = json.loads(out.read_text(), parse_constant=pytest.fail)["results"]
    held_out = result["held_out"]
    assert held_out["mmce_low"] is None and 0 <= held_out["mmce"] <= 1


def test_init_study_quotes_names_from_the_data_and_keeps_them_out_of_comments(tmp_path, capsys):
    """A column name with a line break (a CSV may quote one into its header) cannot end a
    comment of the config and set a key: the config loads as written, every key in place."""
    rng = np.random.default_rng(0)
    hostile = "a\nn_rep: 1\nseed: 99"
    data = pd.DataFrame(rng.normal(size=(40, 3)), columns=[hostile, "b", "c"])
    data["target"] = (data["b"] > 0).astype(int)
    data.to_csv(tmp_path / "visits.csv", index=False)
    costs = pd.DataFrame({"feature": [hostile, "b", "c"], "cost": [9.0, 1.0, 2.0]})
    costs.to_csv(tmp_path / "costs.csv", index=False)
    arguments = ["init-study", str(tmp_path / "visits.csv"), "--costs", str(tmp_path / "costs.csv")]
    assert cli.main(arguments) == 0
    text = capsys.readouterr().out
    config = yaml.safe_load(text)
    assert config["n_rep"] == 10 and config["seed"] == 1
    assert set(config) >= {"real_data", "methods", "evaluation", "xi_grid", "strategies"}
    assert list(config["real_data"]["datasets"]) == ["visits"]
    assert "a\\nn_rep: 1" in text  # the name, escaped, in the budgets' comment


@pytest.mark.parametrize(
    ("rows", "group_costs", "message"),
    [
        ({"feature": ["a", "b"], "price": [1, 2]}, None, "needs the columns feature and cost"),
        ({"feature": ["a", "b"], "cost": [1, 2], "note": ["x", "y"]}, None, "unexpected columns"),
        ({"feature": ["a", "a", "b"], "cost": [1, 1, 2]}, None, "listed more than once: ['a']"),
        ({"feature": ["a", "b"], "cost": [1, -1]}, None, "feature 'b' has cost -1"),
        ({"feature": ["a", "b"], "cost": [1, "cheap"]}, None, "feature 'b' has cost 'cheap'"),
        ({"feature": ["a", "b"], "cost": [1, None]}, None, "feature 'b' has cost"),
        ({"feature": ["a"], "cost": [1]}, None, "no cost for the data's column(s) ['b']"),
        (
            {"feature": ["a", "b", "z"], "cost": [1, 2, 3]},
            None,
            "costs for ['z'], which are not features of the data",
        ),
        (
            {"feature": ["a", "b"], "cost": [1, 2], "group": ["blood", None]},
            {"urine": 1.0},
            "no shared cost for group(s) ['blood']",
        ),
        (
            {"feature": ["a", "b"], "cost": [1, 2], "group": ["blood", None]},
            {"blood": -2.0},
            "shared cost of group 'blood' is -2.0",
        ),
        ({"feature": ["a", "b"], "cost": [1, 2]}, {"blood": 2.0}, "has no group column"),
    ],
)
def test_costs_file_errors_name_the_file_feature_and_value(rows, group_costs, message):
    with pytest.raises(DataError, match="^costs.csv.*: .*" + re.escape(message)):
        costs_from_table(pd.DataFrame(rows), ["a", "b"], "costs.csv", group_costs)


def test_costs_file_with_a_shared_cost_group():
    table = pd.DataFrame(
        {"feature": ["b", "a", "c"], "cost": [2.0, 0.5, 1.0], "group": ["lab", "lab", ""]}
    )
    costs = costs_from_table(table, ["a", "b", "c"], "costs.csv", {"lab": 3.0})
    assert costs.own.tolist() == [0.5, 2.0, 1.0]
    assert costs.total([0, 1]) == 5.5 and costs.total([2]) == 1.0


def test_a_groups_shared_cost_in_the_costs_file():
    """A row with a group and a cost but no feature gives the group's shared cost: no flag or
    config key is needed; where both give it, they must agree."""
    table = pd.DataFrame(
        {
            "feature": ["b", "a", "c", None],
            "cost": [2.0, 0.5, 1.0, 3.0],
            "group": ["lab", "lab", "", "lab"],
        }
    )
    costs = costs_from_table(table, ["a", "b", "c"], "costs.csv")
    assert costs.total([0, 1]) == 5.5 and costs.total([2]) == 1.0
    assert costs_from_table(table, ["a", "b", "c"], "costs.csv", {"lab": 3.0}).total([0]) == 3.5
    with pytest.raises(DataError, match="group 'lab' has the shared cost 3 in the file and 2.5"):
        costs_from_table(table, ["a", "b", "c"], "costs.csv", {"lab": 2.5})


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            {"feature": ["a", "b"], "cost": [1, 2], "group": ["blood", None]},
            "no shared cost for group(s) ['blood']; give each one as a row with an empty feature "
            "(`,COST,blood`) in the costs file, or with --group-costs blood=COST",
        ),
        (
            {"feature": ["a", "b", None], "cost": [1, 2, 1], "group": ["blood", None, None]},
            "a row without a feature must name the group",
        ),
        (
            {"feature": ["a", "b", None], "cost": [1, 2, -1], "group": ["blood", None, "blood"]},
            "group 'blood' has cost -1",
        ),
        (
            {
                "feature": ["a", "b", None, None],
                "cost": [1, 2, 1, 1],
                "group": ["x", None, "x", "x"],
            },
            "groups listed more than once: ['x']",
        ),
    ],
)
def test_shared_cost_rows_errors_name_the_group(rows, message):
    with pytest.raises(DataError, match="^costs.csv: " + re.escape(message)):
        costs_from_table(pd.DataFrame(rows), ["a", "b"], "costs.csv")


def test_costs_file_in_column_order():
    table = pd.DataFrame({"feature": ["b", "a"], "cost": [2.0, 0.5]})
    assert costs_from_table(table, ["a", "b"], "costs.csv").own.tolist() == [0.5, 2.0]


def test_select_command_names_a_missing_file(tmp_path, caplog):
    arguments = ["select", str(tmp_path / "nope.csv"), "--costs", "c.csv", "--budget", "1"]
    assert cli.main(arguments) == 2
    assert "nope.csv: no such file" in caplog.text


def test_suggested_budgets_are_positive_with_free_features():
    free = FeatureCosts.ungrouped(np.array([0.0, 0.0, 2.0, 4.0]))
    assert budget_breakpoints(free, list("abcd")) == [(2.0, "the cheapest item, c, costs 2")]
    assert budget_breakpoints(FeatureCosts.ungrouped(np.zeros(3)), list("abc")) == [
        (1.0, "every feature is free")
    ]


def test_suggested_budgets_follow_the_questionnaire_the_blood_draw_and_the_scan():
    """Six one-minute questionnaire items, three blood tests (5 each) sharing a draw (20) and
    a scan (300): the cheapest 1, 2, 3 and 5 items, the whole draw, the scan alone."""
    names = [f"q{k}" for k in range(6)] + ["glucose", "insulin", "lipids", "mri"]
    costs = FeatureCosts.grouped(
        np.array([1.0] * 6 + [5.0, 5.0, 5.0, 300.0]),
        [None] * 6 + ["blood"] * 3 + [None],
        {"blood": 20.0},
    )
    breakpoints = dict(budget_breakpoints(costs, names))
    assert list(breakpoints) == [1.0, 2.0, 3.0, 5.0, 25.0, 35.0, 300.0]
    assert breakpoints[35.0] == "group blood whole (glucose, insulin, lipids) costs 35"
    assert breakpoints[25.0].startswith("glucose alone costs 25 (5 + blood's shared 20); insulin")
    assert breakpoints[300.0] == "mri alone costs 300"
    assert breakpoints[5.0] == "the 5 cheapest items (up to q4) cost 5"


def test_init_study_offers_glucose_alone_with_its_blood_draw(tmp_path, capsys):
    """Pima's costs (Turney 1995): six one-unit items, glucose 17.61 and insulin 22.78 from
    one blood draw (2.10). A clinician asks what glucose alone gives: 19.71, the test with its
    draw; each comment states a price that the named set has."""
    names = ["preg", "glucose", "bp", "skin", "insulin", "bmi", "pedigree", "age"]
    own = [1, 17.61, 1, 1, 22.78, 1, 1, 1]
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(40, 8)), columns=names).assign(target=[0, 1] * 20)
    frame.to_csv(tmp_path / "pima.csv", index=False)
    groups = ["blood" if name in ("glucose", "insulin") else "" for name in names]
    rows = [f"{n},{c},{g}" for n, c, g in zip(names, own, groups, strict=True)]
    (tmp_path / "costs.csv").write_text("\n".join(["feature,cost,group", *rows, ",2.10,blood"]))
    arguments = ["init-study", str(tmp_path / "pima.csv"), "--costs", str(tmp_path / "costs.csv")]
    assert cli.main(arguments) == 0
    written = capsys.readouterr().out
    budgets = yaml.safe_load(written)["real_data"]["datasets"]["pima"]["budgets"]
    assert {19.71, 24.88, 42.49} <= set(budgets)
    comments = dict(re.findall(r"#\s+([\d.]+): (.*)", written))
    assert comments["19.71"] == "glucose alone costs 19.71 (17.61 + blood's shared 2.1)"
    assert comments["42.49"] == "group blood whole (glucose, insulin) costs 42.49"
    costs = FeatureCosts.grouped(
        np.array(own, dtype=float), [g or None for g in groups], {"blood": 2.10}
    )
    for budget, comment in comments.items():
        stated = float(re.search(r"costs? ([\d.]+)", comment).group(1))
        named = re.match(r"(\w+) alone", comment)
        if named:
            assert costs.total([names.index(named.group(1))]) == pytest.approx(stated)
        assert stated <= float(budget)


def test_suggested_budgets_are_five_to_eight_below_the_total(rng):
    own = np.round(rng.uniform(0.1, 1.0, 30), 2)
    costs = FeatureCosts.ungrouped(own)
    budgets = [budget for budget, _ in budget_breakpoints(costs, [f"f{j}" for j in range(30)])]
    assert 5 <= len(budgets) <= 8 and budgets == sorted(set(budgets))
    assert budgets[-1] < own.sum() and budgets[0] >= own.min()
    cheapest = np.sort(own)
    assert np.isclose(budgets[0], cheapest[0]) and budgets[1] >= cheapest[:2].sum()


@pytest.mark.parametrize(
    ("method", "parameters"),
    [("auc", {}), ("sts", {"trees_per_depth": 20}), ("budget_rf", {"n_trees_max": 5})],
)
def test_a_tuned_selector_picks_what_costfs_select_picks(data_sets, method, parameters):
    from costfs.study.single_run import select_once

    frame = pd.read_csv(data_sets / "wdbc.csv.gz").sample(250, random_state=2)
    X = frame.drop(columns="target").to_numpy()
    y = frame["target"].to_numpy()
    costs = np.random.default_rng(4).uniform(0.1, 1.0, X.shape[1])
    name = load_method(method).hyperparameter.name
    expected = select_once(
        X, y, costs, [1.5], method=method, value="tuned", seed=3, n_trees=500, **parameters
    ).iloc[0]
    selector = load_selector(method)(
        feature_costs=costs, budget=1.5, random_state=3, **{name: "tuned"}, **parameters
    )
    selector.fit(X, y)
    assert list(selector.selected_features_) == list(expected["features"])
    assert getattr(selector, f"{name}_") == expected["value"]
    # a number stays as it was, and is reported the same way
    selector_class = load_selector(method)
    fixed = selector_class(feature_costs=costs, budget=1.5, random_state=3, **parameters).fit(X, y)
    assert getattr(fixed, f"{name}_") == load_method(method).hyperparameter.default


@pytest.mark.parametrize(
    ("verbosity", "most_lines", "shown", "hidden"),
    [
        ([], 6, ["forward selection: 100%", "held-out splits: 100%"], ["FS step", "INFO"]),
        (["--quiet"], 0, [], ["forward selection", "held-out splits"]),
        (["--verbose"], None, ["FS step", "forward selection"], []),
    ],
)
def test_select_tells_one_line_per_stage_unless_asked_for_more_or_less(
    own_data, verbosity, most_lines, shown, hidden
):
    """Forward selection with a held-out estimate drew a bar per split and path, nested, and
    logged each step: hundreds of lines. By default a line per stage (a bar's last state);
    --quiet nothing but warnings; --verbose all of it."""
    _, data, _, costs_file = own_data
    ran = subprocess.run(
        [sys.executable, "-m", "costfs.cli", "select", str(data), "--costs", str(costs_file)]
        + ["--budget", "1", "2", "--method", "fs", "--splits", "3", "--n-trees", "30"]
        + verbosity,
        capture_output=True,
        timeout=600,
    )
    # Bytes: text mode would read a bar's carriage returns as line ends.
    stderr = ran.stderr.decode()
    assert ran.returncode == 0, stderr
    assert "features" in ran.stdout.decode()
    lines = [line.split("\r")[-1] for line in stderr.split("\n") if line.strip()]
    if most_lines is not None:
        assert len(lines) <= most_lines, lines
    for text in shown:
        assert text in stderr
    for text in hidden:
        assert text not in stderr
