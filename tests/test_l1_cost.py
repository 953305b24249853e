import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.svm import l1_min_c

from costfs.core.costs import FeatureCosts
from costfs.methods import l1_cost
from tests.conftest import DATA, declared

cost_weighted_path = declared("l1_cost", l1_cost.cost_weighted_path)


@pytest.fixture(scope="module")
def wdbc():
    data = pd.read_csv(DATA / "wdbc.csv.gz")
    X = data.drop(columns="target").to_numpy(dtype=float)
    costs = np.random.default_rng(7).uniform(0.1, 1.0, X.shape[1])
    return X, data["target"].to_numpy(), costs


def scikit_learn_supports(X, y, costs, xi, n_cs):
    """The L1 path written out with scikit-learn alone: each column standardised and divided
    by its cost^xi, LogisticRegression with an L1 penalty at each C from the smallest C with a
    non-empty model, 25 per decade; the distinct non-empty supports in order."""
    scaled = StandardScaler().fit_transform(X) / costs**xi
    Cs = l1_min_c(scaled, y, loss="log") * 10.0 ** (np.arange(n_cs) / 25)
    supports = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for C in Cs:
            model = LogisticRegression(
                C=C, l1_ratio=1.0, solver="liblinear", max_iter=1000, random_state=0
            )
            support = np.flatnonzero(model.fit(scaled, y).coef_[0])
            if support.size and not any(np.array_equal(support, seen) for seen in supports):
                supports.append(support)
    return supports


@pytest.mark.parametrize("xi", [0.0, 1.0, 2.0])
def test_the_path_is_scikit_learns_l1_path_on_the_cost_scaled_columns(wdbc, xi):
    X, y, costs = wdbc
    path = cost_weighted_path(X, y, costs, xi, max_decades=4, seed=0)
    expected = scikit_learn_supports(X, y, costs, xi, n_cs=4 * 25 + 1)
    assert len(path) >= 10
    assert [s.tolist() for s in path] == [s.tolist() for s in expected]


def test_a_larger_xi_takes_cheaper_features_first(wdbc):
    X, y, costs = wdbc
    first = {xi: cost_weighted_path(X, y, costs, xi, max_decades=4, seed=0)[2] for xi in (0.0, 3.0)}
    assert costs[first[3.0]].mean() < costs[first[0.0]].mean()


def test_a_budgets_set_does_not_depend_on_the_other_budgets_asked_for(wdbc):
    X, y, costs = wdbc
    method = l1_cost.CostWeightedL1Selector()

    def sets(budgets):
        _, selection = method.prepare_and_select(X, y, costs, budgets, [1.0], seed=0, max_decades=4)
        return {record["budget"]: record["features"].tolist() for record in selection.records}

    alone = sets([1.0, 2.0])
    beside_larger = sets([1.0, 2.0, 100.0])
    assert alone[1.0] == beside_larger[1.0] and alone[2.0] == beside_larger[2.0]


def test_each_budget_takes_the_largest_fitting_support_the_first_on_a_tie():
    costs = FeatureCosts.grouped(
        np.array([0.5, 0.2, 0.2, 1.0]), [None, "draw", "draw", None], {"draw": 0.4}
    )
    supports = [np.array([0]), np.array([1, 2]), np.array([0, 3]), np.array([0, 1, 2])]
    # {1, 2} costs 0.8 with its group's draw, {0, 1, 2} 1.3, {0, 3} 1.5
    assert l1_cost.largest_fitting(supports, costs, 0.4).tolist() == []
    assert l1_cost.largest_fitting(supports, costs, 0.8).tolist() == [1, 2]
    assert l1_cost.largest_fitting(supports, costs, 1.5).tolist() == [0, 1, 2]


def test_free_features_weigh_a_tenth_of_the_cheapest_paid_one():
    weights = l1_cost.penalty_weights(np.array([0.0, 0.5, 2.0]), xi=2.0)
    np.testing.assert_allclose(weights, [0.025, 0.25, 4.0])
    np.testing.assert_allclose(l1_cost.penalty_weights(np.zeros(3), xi=1.0), 1.0)


def test_the_kept_paths_are_read_before_new_ones_can_push_them_out(monkeypatch):
    """Four paths are kept. A call asking for two new xi values before two kept ones computes
    only the new ones, and every path comes back in the order asked for."""
    from costfs.methods._kept import KEPT_RESULTS, clear_all

    assert KEPT_RESULTS == 4
    computed = []

    def path(X, y, costs, xi, **options):
        computed.append(xi)
        return [np.array([int(xi)])]

    monkeypatch.setattr(l1_cost, "cost_weighted_path", path)
    clear_all()
    X, y, costs = np.eye(3), np.array([0, 1, 1]), np.ones(3)
    l1_cost.kept_paths_of(X, y, costs, [0, 1, 2, 3], seed=1)
    paths = l1_cost.kept_paths_of(X, y, costs, [4, 5, 0, 1], seed=1)
    assert computed == [0, 1, 2, 3, 4, 5]
    assert [int(path[0][0]) for path in paths] == [4, 5, 0, 1]
    clear_all()
