import numpy as np
import pandas as pd
import pytest

from costfs.aggregation import choose_strategies
from costfs.costs import FeatureCosts
from costfs.findings import (
    compare_methods,
    describe_problem,
    per_setting,
    stage_costs,
    tuning_gains,
)


def run(problem, rep, method, value, budget, oob, test, hyperparameter="xi"):
    dataset = {"A": "independent", "C": "correlated"}.get(problem, problem)
    kind = "real" if problem == "wdbc" else "simulated"
    return dict(
        problem=problem, kind=kind, dataset=dataset, rep=rep, method=method,
        hyperparameter=hyperparameter, hyperparameter_value=value, budget=budget,
        oob_mmce=oob, test_mmce=test, cost=budget / 2, n_selected=1,
    )  # fmt: skip


@pytest.fixture
def chosen():
    rows = []
    for problem in ("A", "C", "wdbc"):
        for rep in (1, 2, 3):
            noise = 0.01 * rep
            for budget in (1, 2):
                # xi = 2 has the lowest OOB error, so `tuned` picks it
                for value, test in ((0.0, 0.30), (1.0, 0.20), (2.0, 0.10)):
                    rows.append(run(problem, rep, "m1", value, budget, test, test + noise))
                rows.append(run(problem, rep, "m2", np.nan, budget, 0.15, 0.15, ""))
            if problem == "C":  # m3 runs on C only
                rows += [run("C", rep, "m3", np.nan, b, 0.05, 0.05, "") for b in (1, 2)]
    return choose_strategies(pd.DataFrame(rows), ["agnostic", "simple", "tuned"])


def test_tuning_gain_is_the_paired_difference_with_a_replicate_interval(chosen):
    gains = tuning_gains(chosen).set_index(["group", "method", "baseline"])
    assert list(gains.index.get_level_values("group").unique()) == [
        "independent",
        "correlated",
        "real",
    ]
    assert gains.loc[("real", "m1", "agnostic"), "mean"] == pytest.approx(0.2)
    assert gains.loc[("real", "m1", "simple"), "mean"] == pytest.approx(0.1)
    # the noise is shared by the strategies of a replicate: paired differences have no spread
    assert gains["ci_high"].sub(gains["ci_low"]).max() == pytest.approx(0.0)
    assert (gains["tuned_better"] == 1.0).all() and (gains["n_reps"] == 3).all()
    by_budget = tuning_gains(chosen, by_budget=True)
    assert len(by_budget) == 2 * len(gains)


def test_methods_are_ranked_on_the_cells_where_all_ran(chosen):
    table = compare_methods(chosen).set_index(["group", "method"])
    assert table.loc[("independent", "m1"), "mean_rank"] == 1.0
    assert table.loc[("independent", "m2"), "mean_rank"] == 2.0
    # on C, m3 (0.05) beats m1 (0.10 + noise) and m2 (0.15)
    assert table.loc[("correlated", "m3"), "mean_rank"] == 1.0
    assert table.loc[("correlated", "m2"), "mean_rank"] == 3.0
    assert table.loc[("independent", "m1"), "mean"] == pytest.approx(0.12)
    assert (
        table.loc[("independent", "m1"), "ci_low"]
        < 0.12
        < table.loc[("independent", "m1"), "ci_high"]
    )
    common = compare_methods(chosen, ["m1", "m2"]).set_index(["group", "method"])
    assert ("correlated", "m3") not in common.index
    assert common.loc[("correlated", "m2"), "mean_rank"] == 2.0


def test_stage_costs_sum_the_benchmark_records_per_rule_and_method():
    timings = pd.DataFrame(
        {
            "job": [
                "benchmarks/prepare_method/sts/independent/rep~1",
                "benchmarks/select_features/sts/A/rep~1",
                "benchmarks/select_features/sts/A/rep~2",
                "benchmarks/select_features/auc/A/rep~1",
            ],
            "s": [3600.0, 1800.0, 5400.0, 36.0],
            "cpu_time": [7200.0, 1800.0, 3600.0, 36.0],
            "max_rss": [100.0, 300.0, 200.0, 50.0],
        }
    )
    table = stage_costs(timings, n_rep=2).set_index(["rule", "method"])
    assert list(table.index) == [
        ("prepare_method", "sts"),
        ("select_features", "auc"),
        ("select_features", "sts"),
    ]
    sts = table.loc[("select_features", "sts")]
    assert sts["jobs"] == 2 and sts["wall_hours"] == pytest.approx(2.0)
    assert sts["wall_hours_per_rep"] == pytest.approx(1.0)
    assert sts["cpu_hours"] == pytest.approx(1.5)
    assert sts["max_job_seconds"] == 5400.0 and sts["max_rss_mb"] == 300.0
    assert table.loc[("prepare_method", "sts"), "cpu_hours"] == pytest.approx(2.0)
    assert stage_costs(pd.DataFrame(), n_rep=2).empty


def test_per_setting_rows_have_a_t_interval_over_the_replicates(chosen):
    table = per_setting(chosen).set_index(["problem", "budget", "method", "strategy"]).sort_index()
    tuned = table.loc[("A", 1, "m1", "tuned")]
    # test MMCE 0.10 + 0.01 * rep over reps 1..3
    assert tuned["n_reps"] == 3 and tuned["mean"] == pytest.approx(0.12)
    se = np.std([0.11, 0.12, 0.13], ddof=1) / np.sqrt(3)
    assert tuned["se"] == pytest.approx(se)
    assert tuned["ci_high"] == pytest.approx(0.12 + 4.302653 * se)  # t(0.975, 2)
    assert len(table.loc[("C", 2, "m3")]) == 1  # m3 ran on C only, with its one strategy
    assert len(table) == len(chosen.groupby(["problem", "budget", "method", "strategy"]))


def test_a_problem_is_described_by_its_data_and_costs():
    rng = np.random.default_rng(0)
    base = rng.normal(size=400)
    X = np.column_stack([base, base + 0.01 * rng.normal(size=400), rng.normal(size=400)])
    X = np.column_stack([X, np.ones(400)])  # a constant column has no correlation
    y = np.r_[np.zeros(300, dtype=int), np.ones(100, dtype=int)]
    costs = FeatureCosts.grouped([0.5, 0.2, 1.0, 0.3], ["blood", "blood", None, None], {"blood": 2})
    row = describe_problem(X, y, costs)
    assert (row["rows"], row["features"], row["classes"]) == (400, 4, 2)
    assert row["smallest_class_share"] == 0.25
    # pairs (0, 1) ~ 1, (0, 2) and (1, 2) ~ 0
    assert row["mean_abs_correlation"] == pytest.approx(1 / 3, abs=0.05)
    assert (row["cost_min"], row["cost_max"]) == (0.3, 2.5)
    assert row["cost_all"] == pytest.approx(4.0) and row["cost_groups"] == 1
