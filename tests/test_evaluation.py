import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from scipy import stats
from scipy.stats import ttest_ind

from costfs.engine.forest import forest_errors, majority_class
from costfs.engine.trees import RefitForests, refit_errors
from costfs.study.aggregation import (
    HELD_OUT_SHARE,
    bounded_interval,
    choose_strategies,
    held_out_shares,
    summarise,
    t_interval,
)
from costfs.study.evaluation import RUN_KEYS, evaluate_feature_sets, refit_feature_sets, run_table


@pytest.fixture
def data(rng):
    X = rng.normal(size=(200, 5))
    y = (X[:, 0] > 0.3).astype(int)
    X_test = rng.normal(size=(300, 5))
    y_test = (X_test[:, 0] > 0.3).astype(int)
    return X, y, X_test, y_test


def test_empty_set_predicts_the_training_majority(data):
    X, y, X_test, y_test = data
    label = majority_class(y)
    assert label == 0  # P(x > 0.3) < 0.5
    oob, test, shares = forest_errors(X[:, []], y, X_test[:, []], y_test, n_trees=10, seed=1)
    assert (shares[:, label] == 1).all()
    assert oob == pytest.approx(np.mean(y != label))
    assert test == pytest.approx(np.mean(y_test != label))


def test_majority_tie_goes_to_class_zero():
    assert majority_class(np.array([0, 1, 1, 0])) == 0


def test_each_distinct_set_is_evaluated_once_and_seeded_by_the_set(data):
    X, y, X_test, y_test = data
    sets = [(0, 1), (), (0, 1), (2,), ()]
    results = evaluate_feature_sets(X, y, X_test, y_test, sets, n_trees=50, seed_parts=(1, "d", 1))
    assert list(results["features"]) == [(), (0, 1), (2,)]
    again = evaluate_feature_sets(
        X, y, X_test, y_test, [(2,), (0, 1)], n_trees=50, seed_parts=(1, "d", 1)
    )
    assert again.set_index("features").loc[[(0, 1), (2,)], "test_mmce"].tolist() == (
        results.set_index("features").loc[[(0, 1), (2,)], "test_mmce"].tolist()
    )
    informative, noise = results.set_index("features").loc[[(0, 1), (2,)], "test_mmce"]
    assert informative < 0.1 < noise


def test_the_runs_table_joins_each_selection_to_its_refit_typed_as_pandas_types_it(data):
    X, y, X_test, y_test = data
    text = pa.large_string()
    selection = pa.table(
        {
            "hyperparameter": pa.array(["xi"] * 3, text),
            "value": [0.0, 1.0, 1.0],
            "budget": [2, 2, 5],
            "features": pa.array([[0, 1], [2], [0, 1]], pa.list_(pa.int64())),
            "unused_budget": pa.array([0.5, None, 1.0], pa.float64()),
            "selection_engine": pa.array(["numba"] * 3, text),
        }
    )
    refits = refit_feature_sets(
        X, y, X_test, y_test, [(0, 1), (2,)], n_trees=20, seed_parts=(1,), metrics=["auc"]
    )
    runs = run_table(
        selection,
        refits,
        np.array([0.5, 1.0, 2.0, 1.0, 1.0]),
        identity={"problem": "p", "kind": "real", "dataset": "d", "rep": 3, "method": "m"},
        engine="sklearn",
        feature_names=list("abcde"),
        extra_columns={"own_mmce": [0.1, 0.2, 0.3]},
    )
    assert runs.column_names[: len(RUN_KEYS)] == RUN_KEYS
    by_set = {refit["features"]: refit for refit in refits}
    rows = runs.to_pylist()
    assert [row["test_mmce"] for row in rows] == [
        by_set[s]["test_mmce"] for s in [(0, 1), (2,), (0, 1)]
    ]
    assert [row["test_auc"] for row in rows] == [
        by_set[s]["test_auc"] for s in [(0, 1), (2,), (0, 1)]
    ]
    errors = {"oob_mmce", "test_mmce", "test_auc"}
    assert {name: value for name, value in rows[1].items() if name not in errors} == {
        "problem": "p",
        "kind": "real",
        "dataset": "d",
        "rep": 3,
        "method": "m",
        "hyperparameter": "xi",
        "hyperparameter_value": 1.0,
        "budget": 2,
        "features": [2],
        "unused_budget": None,
        "own_mmce": 0.2,
        "n_selected": 1,
        "cost": 2.0,
        "engine": "sklearn",
        "selection_engine": "numba",
        "feature_names": ["c"],
    }
    # What aggregate_results reads through pandas and writes again keeps every type.
    round_trip = pa.Table.from_pandas(runs.to_pandas(), preserve_index=False)
    assert round_trip.schema.remove_metadata() == runs.schema


def test_forest_errors_do_not_depend_on_threads(data):
    X, y, X_test, y_test = data
    one, two = (
        forest_errors(X, y, X_test, y_test, n_trees=40, seed=3, n_jobs=n_jobs) for n_jobs in (1, 2)
    )
    assert one[:2] == two[:2]
    np.testing.assert_array_equal(one[2], two[2])


def runs_table():
    rows = []
    for rep, (oob_05, cost_05) in enumerate([(0.10, 1.0), (0.20, 1.5)], start=1):
        for value, oob, cost, test in [
            (0.0, 0.30, 2.0, 0.31),
            (0.5, oob_05, cost_05, 0.12),
            (1.0, 0.10, 0.9, 0.15),
        ]:
            rows.append(
                dict(
                    kind="real",
                    problem="p",
                    rep=rep,
                    method="auc",
                    hyperparameter="xi",
                    hyperparameter_value=value,
                    budget=2.0,
                    oob_mmce=oob,
                    cost=cost,
                    test_mmce=test,
                    n_selected=3,
                )
            )
    return pd.DataFrame(rows)


def test_strategies_pick_xi_zero_one_and_the_lowest_oob_with_ties_to_lower_cost():
    chosen = choose_strategies(runs_table(), ["agnostic", "simple", "tuned"])
    picked = chosen.set_index(["strategy", "rep"])["hyperparameter_value"]
    assert picked[("agnostic", 1)] == 0.0 and picked[("simple", 2)] == 1.0
    assert picked[("tuned", 1)] == 1.0  # oob 0.10 tie with xi=0.5: cost 0.9 < 1.0
    assert picked[("tuned", 2)] == 1.0
    assert len(chosen) == 6


def test_methods_without_grid_get_the_fixed_strategy():
    runs = runs_table().assign(hyperparameter="", hyperparameter_value=np.nan)
    chosen = choose_strategies(runs, ["agnostic", "simple", "tuned"])
    assert set(chosen["strategy"]) == {"fixed"}
    assert len(chosen) == len(runs)


def test_summary_standard_error_interval_and_ranks():
    runs = pd.concat([runs_table(), runs_table().assign(method="pfi", test_mmce=0.5)])
    summary = summarise(choose_strategies(runs, ["agnostic", "tuned"]))
    tuned = summary.query("method == 'auc' and strategy == 'tuned'").iloc[0]
    assert tuned["n_runs"] == 2 and tuned["mmce_mean"] == pytest.approx(0.15)
    assert tuned["mmce_se"] == 0
    agnostic = summary.query("method == 'auc' and strategy == 'agnostic'").iloc[0]
    assert agnostic["ci_high"] - agnostic["ci_low"] == pytest.approx(0)
    assert summary.query("method == 'pfi'")["rank"].tolist() == [3.5, 3.5]
    assert tuned["rank"] == 1 and tuned["mean_rank"] == 1


def test_summary_interval_uses_monte_carlo_se():
    runs = runs_table()
    runs.loc[runs["rep"] == 2, "test_mmce"] += 0.1
    summary = summarise(choose_strategies(runs, ["agnostic"]))
    row = summary.iloc[0]
    se = np.std([0.31, 0.41], ddof=1) / np.sqrt(2)
    assert row["mmce_se"] == pytest.approx(se)
    # Student t with one degree of freedom: 12.71 SEs, not the normal 1.96; below 0 the
    # interval ends at 0, the least error there is
    assert row["ci_high"] == pytest.approx(0.36 + 12.706205 * se)
    assert 0.36 - 12.706205 * se < 0 and row["ci_low"] == 0
    single = summarise(choose_strategies(runs[runs["rep"] == 1], ["agnostic"])).iloc[0]
    assert single["n_runs"] == 1 and np.isnan(single["ci_low"]) and np.isnan(single["ci_high"])


def test_real_data_intervals_are_corrected_for_the_overlapping_splits_of_one_data_set():
    """Replicates of a real data set split its rows anew, so training sets overlap: the SE is
    Nadeau & Bengio's sd · sqrt(1/n + n_test/n_train), not sd / sqrt(n); a simulated setting
    draws fresh data each replicate and keeps sd / sqrt(n)."""
    errors = [0.10, 0.14, 0.12, 0.18, 0.11]
    runs = pd.concat(
        [
            pd.DataFrame(
                {"kind": kind, "problem": problem, "rep": range(5), "method": "auc"}
                | {"hyperparameter": "", "hyperparameter_value": np.nan, "budget": 1.0}
                | {"test_mmce": errors, "oob_mmce": errors, "cost": 1.0, "n_selected": 1}
            )
            for kind, problem in (("real", "wdbc"), ("simulated", "A"))
        ]
    )
    runs[HELD_OUT_SHARE] = held_out_shares(runs["kind"], 2 / 3)
    summary = summarise(choose_strategies(runs, ["tuned"])).set_index("kind")
    sd = np.std(errors, ddof=1)
    assert summary.loc["real", "mmce_se"] == pytest.approx(sd * np.sqrt(1 / 5 + 0.5))
    assert summary.loc["simulated", "mmce_se"] == sd / np.sqrt(5)
    half_width = stats.t.ppf(0.975, 4) * sd * np.sqrt(1 / 5 + 0.5)
    assert summary.loc["real", "ci_high"] == pytest.approx(np.mean(errors) + half_width)


def test_an_interval_of_a_bounded_quantity_stays_in_its_range_and_is_the_t_interval_inside():
    rng = np.random.default_rng(0)
    mean = rng.uniform(0, 1, 500)
    se = rng.uniform(0, 0.3, 500)
    n = rng.integers(2, 30, 500)
    low, high = bounded_interval(mean, se, n)
    t_low, t_high = t_interval(mean, se, n)
    assert (low >= 0).all() and (high <= 1).all() and (low <= mean).all() and (mean <= high).all()
    inside = (t_low >= 0) & (t_high <= 1)
    assert inside.any() and (~inside).any()
    np.testing.assert_array_equal(low[inside], t_low[inside])
    np.testing.assert_array_equal(high[inside], t_high[inside])
    low, high = bounded_interval(0.5, 0.2, 4, bounds=(0.4, 0.55))
    assert (low, high) == (0.4, 0.55)


def test_mean_rank_ranks_only_the_entries_that_ran_on_every_real_cell():
    cells = [("p1", 1.0), ("p1", 2.0), ("p2", 1.0)]
    errors = {"a": [0.2, 0.2, 0.3], "b": [0.3, 0.1, 0.2], "c": [0.1, 0.1, None]}
    summary = pd.DataFrame(
        [
            {
                "kind": "real",
                "problem": problem,
                "budget": budget,
                "method": method,
                "strategy": "fixed",
                "n_runs": 1,
                "test_mmce": error,
                "oob_mmce": error,
                "cost": budget,
                "n_selected": 1,
            }
            for method, values in errors.items()
            for (problem, budget), error in zip(cells, values, strict=True)
            if error is not None
        ]
    )
    table = summarise(summary.drop(columns="n_runs")).set_index(["method", "problem", "budget"])
    # c ran on two of the three cells: ranked per cell, but no mean rank
    assert table.loc[("c", "p1", 1.0), "rank"] == 1
    assert table.xs("c")["mean_rank"].isna().all()
    # a and b are ranked between themselves only: a 1, 2, 2; b 2, 1, 1
    assert table.xs("a")["mean_rank"].unique().tolist() == [pytest.approx(5 / 3)]
    assert table.xs("b")["mean_rank"].unique().tolist() == [pytest.approx(4 / 3)]


def test_numba_refits_agree_with_scikit_learns_forest_within_monte_carlo_error(data_sets):
    """The refits' default engine (the numba trees, majority vote, as ranger) and the
    reference (scikit-learn's forest, probability vote): on qsar-biodeg, the test MMCE of
    independent forests on a fixed split and on the same feature sets has the same mean up to
    Monte Carlo error (Welch t per set, Bonferroni over the sets). On sets of a few features
    with many tied values the two differ by definition (ranger's node is a leaf when none of
    its mtry candidates varies, scikit-learn's draws more): docs/design.md, "Refits"."""
    data = pd.read_csv(data_sets / "qsar-biodeg.csv.gz")
    y = data.pop("target").to_numpy()
    X = data.to_numpy(dtype=float)
    rows = np.random.default_rng(0).permutation(y.size)
    train, test = rows[:700], rows[700:]
    feature_sets = [list(range(X.shape[1])), list(range(0, X.shape[1], 2))]
    p_values = []
    for columns in feature_sets:
        errors = {
            engine: [
                refit_errors(
                    X[train][:, columns],
                    y[train],
                    X[test][:, columns],
                    y[test],
                    n_trees=100,
                    seed=seed,
                    engine=engine,
                )[1]
                for seed in range(8)
            ]
            for engine in ("numba", "sklearn")
        }
        assert np.mean(errors["numba"]) == pytest.approx(np.mean(errors["sklearn"]), abs=0.03)
        p_values.append(ttest_ind(errors["numba"], errors["sklearn"], equal_var=False).pvalue)
    assert min(p_values) > 0.01 / len(feature_sets)


def test_refits_without_features_predict_the_majority_class_on_every_engine(rng):
    X, y = rng.normal(size=(40, 0)), np.r_[np.zeros(25, dtype=int), np.ones(15, dtype=int)]
    for engine in ("numba", "sklearn"):
        oob, test, shares = refit_errors(X, y, X[:10], y[-10:], n_trees=5, seed=0, engine=engine)
        assert (oob, test) == (15 / 40, 1.0)
        assert (shares[:, 0] == 1).all()


def test_refits_on_column_subsets_of_one_training_set_equal_refits_on_the_subset_alone(rng):
    """RefitForests sorts the columns once for all subsets: its forest on a subset (in the
    subset's order, within the union of `subsets`) is the forest grown on X[:, subset] alone,
    on data with missing values, tied values and three classes."""
    X = rng.normal(size=(150, 9))
    X[:, 3] = rng.integers(0, 3, size=150)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int) + (np.nan_to_num(X[:, 3]) > 1)
    X_test = rng.normal(size=(80, 9))
    y_test = rng.integers(0, 3, size=80)
    refits = RefitForests(X, y, X_test, y_test, subsets=[[0, 7], [2, 3, 5], [8]])
    for columns in ([0], [3, 0, 7], [2, 3, 5, 7, 8], []):
        shared = refits.errors(columns, n_trees=30, seed=4)
        alone = refit_errors(X[:, columns], y, X_test[:, columns], y_test, n_trees=30, seed=4)
        assert shared[:2] == alone[:2]
        assert np.array_equal(shared[2], alone[2])
    without_test = RefitForests(X, y).errors([8, 2], n_trees=30, seed=4)
    assert without_test[0] == refit_errors(X[:, [8, 2]], y, n_trees=30, seed=4)[0]
    with pytest.raises(ValueError, match=r"column\(s\) \[1\]"):
        refits.errors([0, 1], n_trees=5, seed=4)
