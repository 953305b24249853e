import itertools

import numpy as np
import pytest

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.methods import _penalized_trees, rf_penalized
from tests.conftest import declared

penalised_forest_features = declared("rf_penalized", rf_penalized.penalised_forest_features)


def gini_decrease(y, weights, goes_left, n_classes):
    """N G(node) - N_L G(left) - N_R G(right), G the Gini impurity of the weighted classes."""

    def weighted_gini(mask):
        counts = np.bincount(y[mask], weights=weights[mask], minlength=n_classes)
        total = counts.sum()
        return total - (counts**2).sum() / total

    everything = np.ones(y.size, dtype=bool)
    return weighted_gini(everything) - weighted_gini(goes_left) - weighted_gini(~goes_left)


def brute_force_split(X, y, weights, candidates, factors, n_classes):
    """Every candidate and every threshold midway between two of the node's distinct values,
    scored by penalised decrease; the first of the largest in (candidate, threshold) order."""
    best = (_penalized_trees.NO_SPLIT, 0.0, -np.inf)
    for feature, factor in zip(candidates, factors, strict=True):
        values = np.unique(X[:, feature])
        for low, high in itertools.pairwise(values):
            threshold = (low + high) / 2
            score = factor * gini_decrease(y, weights, X[:, feature] <= threshold, n_classes)
            if score > best[2] + 1e-12:
                best = (feature, threshold, score)
    return best


@pytest.mark.parametrize("seed", range(12))
def test_the_split_rule_matches_a_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_rows, n_classes = 30, 2 + seed % 2
    X = np.round(rng.normal(size=(n_rows, 6)), 1)  # rounded: ties between values
    y = rng.integers(0, n_classes, size=n_rows)
    weights = rng.integers(0, 3, size=n_rows).astype(float)
    rows = np.flatnonzero(weights)
    candidates = rng.permutation(6)[:4]
    factors = rng.choice([1.0, 0.5, 0.2], size=4)
    feature, threshold, score = _penalized_trees.best_split(
        X, y, n_classes, weights, rows, candidates, factors
    )
    expected = brute_force_split(X[rows], y[rows], weights[rows], candidates, factors, n_classes)
    assert feature == expected[0]
    assert threshold == pytest.approx(expected[1])
    assert score == pytest.approx(expected[2])


def test_a_constant_node_has_no_split():
    X = np.ones((5, 2))
    y = np.array([0, 1, 0, 1, 1])
    split = _penalized_trees.best_split(
        X, y, 2, np.ones(5), np.arange(5), np.array([0, 1]), np.ones(2)
    )
    assert split[0] == _penalized_trees.NO_SPLIT


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(200, 12))
    y = (X[:, 0] + X[:, 1] + X[:, 5] + rng.normal(scale=0.5, size=200) > 0).astype(int)
    return X, y


def test_the_forest_spends_within_the_budget_with_shared_costs(problem):
    X, y = problem
    own = np.linspace(0.1, 1.0, 12)
    costs = FeatureCosts.grouped(own, ["draw"] * 3 + [None] * 9, {"draw": 0.8})
    for budget in (0.5, 1.0, 2.0, 4.0):
        for xi in (0.0, 2.0):
            features = penalised_forest_features(X, y, costs, budget, xi, n_trees=20, seed=1)
            assert costs.total(features) <= budget + BUDGET_TOLERANCE
            assert len(features) > 0


def test_a_larger_cost_weight_buys_cheaper_features(problem):
    X, y = problem
    costs = np.r_[np.full(6, 1.0), np.full(6, 0.1)]
    spent = {
        xi: penalised_forest_features(X, y, costs, 3.0, xi, n_trees=30, seed=1) for xi in (0.0, 3.0)
    }
    assert np.mean(spent[3.0] >= 6) > np.mean(spent[0.0] >= 6)


def test_a_smaller_regularization_reuses_features():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 30))
    y = (X[:, :5].sum(axis=1) + rng.normal(size=300) > 0).astype(int)
    costs = np.full(30, 0.1)
    used = {
        regularization: penalised_forest_features(
            X, y, costs, 100.0, 0.0, n_trees=30, regularization=regularization, seed=2
        ).size
        for regularization in (1.0, 0.05)
    }
    assert used[0.05] < used[1.0]
