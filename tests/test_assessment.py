"""The held-out assessment of a whole selection: costfs.cost_accuracy_curve."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import costfs
from costfs.study.assessment import _per_budget


@pytest.fixture(scope="module")
def wdbc(data_sets):
    frame = pd.read_csv(data_sets / "wdbc.csv.gz").sample(240, random_state=5)
    return frame.drop(columns="target"), frame["target"].to_numpy()


def test_the_curve_has_every_budget_metric_and_interval(wdbc):
    X, y = wdbc
    costs = np.random.default_rng(2).uniform(0.1, 1.0, X.shape[1])
    selector = costfs.AUCFilter(feature_costs=costs, xi="tuned")
    curve = costfs.cost_accuracy_curve(
        selector, X.to_numpy(), y, [0.5, 3.0], cv=3, metrics=("mmce", "auc"), n_trees=50
    )
    assert curve["budget"].tolist() == [0.5, 3.0]
    assert (curve["n_splits"] == 3).all()
    assert (curve["cost"] <= curve["budget"] + 1e-9).all()
    for metric in ("mmce", "auc"):
        assert (curve[f"{metric}_low"] < curve[metric]).all()
        assert (curve[metric] < curve[f"{metric}_high"]).all()
    # more budget buys a better model on wdbc
    assert curve["auc"].iloc[1] > curve["auc"].iloc[0]


def test_a_selector_given_its_cost_free_part_is_assessed_as_the_readme_does(wdbc):
    """The README's Python block in its order: a fit, `precomputed` reused for another budget,
    then the curve, whose splits compute their own rows' cost-free part (once per split) and
    give what a selector without `precomputed` gives."""
    X, y = wdbc
    costs = dict(zip(X.columns, np.random.default_rng(3).uniform(0.1, 1, X.shape[1]), strict=True))
    selector = costfs.ShallowTreeSelector(
        feature_costs=costs, budget=2.0, xi=1, trees_per_depth=20, random_state=0
    ).fit(X, y)
    selector.set_params(budget=1.0, precomputed=selector.precomputed_).fit(X, y)
    curve = costfs.cost_accuracy_curve(selector, X, y, budgets=[1.0, 2.0], cv=3, n_trees=50)
    fresh = costfs.cost_accuracy_curve(
        selector.set_params(precomputed=None), X, y, budgets=[1.0, 2.0], cv=3, n_trees=50
    )
    pd.testing.assert_frame_equal(curve, fresh)


def test_the_interval_is_the_corrected_resampled_t_interval():
    errors = np.array([0.10, 0.14, 0.12, 0.18, 0.11])
    per_split = pd.DataFrame(
        {
            "budget": 1.0,
            "split": range(5),
            "features": [(0,), (0,), (0, 1), (0,), (1,)],
            "cost": 1.0,
            "held_out_share": 0.5,
            "mmce": errors,
        }
    )
    row = _per_budget(per_split, ["mmce"]).iloc[0]
    half_width = stats.t.ppf(0.975, 4) * np.sqrt((1 / 5 + 0.5) * errors.var(ddof=1))
    assert row["mmce_high"] - row["mmce"] == pytest.approx(half_width)
    assert row["distinct_sets"] == 3


def test_the_recommended_sets_own_error_is_over_the_splits_that_chose_it():
    per_split = pd.DataFrame(
        {
            "budget": [1.0] * 5 + [2.0] * 2,
            "split": [*range(5), 0, 1],
            "features": [(0,), (0, 1), (1, 0), (0,), (1,), (2,), (2,)],
            "cost": 1.0,
            "held_out_share": 0.5,
            "mmce": [0.10, 0.20, 0.30, 0.14, 0.50, 0.2, 0.3],
        }
    )
    rows = _per_budget(per_split, ["mmce"], {1.0: (0, 1), 2.0: (0,)}).set_index("budget")
    # {0, 1} in either order: splits 1 and 2.
    assert rows.loc[1.0, "same_set_splits"] == 2
    assert rows.loc[1.0, "mmce_same_set"] == pytest.approx(0.25)
    assert rows.loc[1.0, "mmce"] == pytest.approx(0.248)  # the procedure's, over all five
    assert rows.loc[2.0, "same_set_splits"] == 0 and np.isnan(rows.loc[2.0, "mmce_same_set"])


def test_a_table_with_a_categorical_column_and_costs_by_name(wdbc):
    X, y = wdbc
    X = X.iloc[:, :4].copy()
    X["site"] = np.where(X.iloc[:, 0] > X.iloc[:, 0].median(), "north", "south")
    costs = {name: 1.0 for name in X.columns}
    selector = costfs.ShallowTreeSelector(feature_costs=costs, xi=1.0, trees_per_depth=50)
    curve = costfs.cost_accuracy_curve(selector, X, y, [2.0], n_trees=30)
    assert curve["n_splits"].item() == 10
    assert curve["n_features"].item() == 2


def test_every_interval_of_the_curve_stays_in_its_metric_s_range():
    """A near-perfect problem: the error's t interval over the splits would reach below 0."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] > 0).astype(int)
    X[:, 0] += np.where(y == 1, 0.3, -0.3)
    selector = costfs.AUCFilter(feature_costs=[1.0, 1.0, 1.0, 1.0], xi=1)
    curve = costfs.cost_accuracy_curve(
        selector, X, y, [1.0, 2.0], cv=5, metrics=("mmce", "auc", "sensitivity"), n_trees=50
    )
    for metric in ("mmce", "auc", "sensitivity"):
        assert (curve[f"{metric}_low"] >= 0).all() and (curve[f"{metric}_high"] <= 1).all()
    assert (curve["mmce_low"] == 0).any()  # where the t interval would have gone below 0
