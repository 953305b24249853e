import io

import numpy as np
import pytest

from costfs.bcr import BUDGET_TOLERANCE
from costfs.methods import budget_rf
from costfs.methods.budget_rf import (
    LEAF,
    SortedColumns,
    grow_greedy_tree,
    pairs_impurity,
)
from tests.conftest import run_method

ALPHAS = [0, 1, 2.5, 6]


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(80, 8))
    y = (X[:, 0] + 0.7 * X[:, 3] + rng.normal(scale=0.6, size=80) > 0).astype(int)
    costs = rng.uniform(0.1, 1.0, size=8)
    return X, y, costs


def test_pairs_impurity_by_hand():
    # alpha 0: 2 * (3 * 2) = 12 (two ordered pairs of classes, each 3 * 2)
    assert pairs_impurity(3, 2, 0) == 12
    # alpha 1: (3 - 1) * (2 - 1) = 2; 2 - 1^2 = 1; times 2 = 2
    assert pairs_impurity(3, 2, 1) == 2
    # alpha 2: (5 - 2) * (4 - 2) = 6; 6 - 2^2 = 2; times 2 = 4
    assert pairs_impurity(5, 4, 2) == 4
    # alpha 2: (3 - 2) * (3 - 2) = 1 < 2^2, clipped to 0
    assert pairs_impurity(3, 3, 2) == 0
    # alpha 1: [1 - 1]_+ = 0, so 0 * 9 - 1 < 0, clipped to 0
    assert pairs_impurity(1, 10, 1) == 0
    # alpha 0.5: (10.5 * 20.5) = 215.25; minus 0.25 = 215; times 2 = 430
    assert pairs_impurity(11, 21, 0.5) == pytest.approx(430)
    # vectorised over count arrays
    assert np.array_equal(pairs_impurity(np.array([3, 5]), np.array([2, 4]), 2), [0, 4])


@pytest.mark.parametrize("alpha", ALPHAS)
def test_pairs_impurity_is_zero_for_pure_nodes(alpha):
    counts = np.arange(0, 50)
    assert np.all(pairs_impurity(counts, 0, alpha) == 0)
    assert np.all(pairs_impurity(0, counts, alpha) == 0)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_pairs_impurity_never_decreases_when_examples_are_added(alpha):
    n0, n1 = np.meshgrid(np.arange(40), np.arange(40), indexing="ij")
    impurity = pairs_impurity(n0, n1, alpha)
    assert np.all(pairs_impurity(n0 + 1, n1, alpha) >= impurity)
    assert np.all(pairs_impurity(n0, n1 + 1, alpha) >= impurity)
    assert np.all(impurity >= 0)


def _reference_choice(X, y, draws, rows, costs, alpha, paid):
    """GreedyTree's split feature at a node, by brute force over features and thresholds."""
    drawn = draws[rows]
    total = (drawn[y[rows] == 0].sum(), drawn[y[rows] == 1].sum())
    impurity = pairs_impurity(*total, alpha)
    best = None
    for j in range(X.shape[1]):
        worst = np.inf
        for threshold in np.unique(X[rows, j])[:-1]:
            left = X[rows, j] <= threshold
            counts = [
                (drawn[side & (y[rows] == 0)].sum(), drawn[side & (y[rows] == 1)].sum())
                for side in (left, ~left)
            ]
            worst = min(worst, max(pairs_impurity(*c, alpha) for c in counts))
        decrease = impurity - worst
        if decrease <= 0:
            continue
        price = 0.0 if j in paid else costs[j]
        key = (price / decrease, price, -decrease, j)
        best = min(best, key) if best is not None else key
    return None if best is None else best[3]


@pytest.mark.parametrize("alpha", [0, 1, 3])
@pytest.mark.parametrize("paid_features_free", [False, True])
def test_greedy_tree_splits_match_brute_force(rng, alpha, paid_features_free):
    # Few distinct values per feature: ties in values and between features are common.
    X = rng.integers(0, 5, size=(40, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, size=40) > 5).astype(int)
    costs = np.array([0.5, 0.3, 0.8, 0.3])
    draws = np.bincount(rng.integers(0, 40, size=40), minlength=40)
    tree = grow_greedy_tree(
        X,
        SortedColumns.of(X),
        y,
        draws,
        costs,
        alpha=alpha,
        paid_features_free=paid_features_free,
    )
    in_bag = np.flatnonzero(draws > 0)
    root = int(tree.feature[0])
    assert root == _reference_choice(X, y, draws, in_bag, costs, alpha, paid=set())
    left_rows = in_bag[X[in_bag, root] <= tree.threshold[0]]
    paid = {root} if paid_features_free else set()
    expected = _reference_choice(X, y, draws, left_rows, costs, alpha, paid)
    assert tree.feature[tree.left[0]] == (LEAF if expected is None else expected)


@pytest.mark.parametrize("cheap", [0, 1])
def test_greedy_tree_prefers_the_cheaper_of_two_equal_separators(rng, cheap):
    signal = rng.normal(size=60)
    y = (signal > 0).astype(int)
    X = np.column_stack([signal, signal, rng.normal(size=60)])
    costs = np.array([0.9, 0.9, 1.0])
    costs[cheap] = 0.2
    tree = grow_greedy_tree(X, SortedColumns.of(X), y, np.ones(60, dtype=int), costs, alpha=0)
    assert tree.feature[0] == cheap
    # one split separates the classes: both children are pure leaves
    assert np.array_equal(tree.used_features(), [cheap])
    assert np.array_equal(tree.route(X, np.zeros(X.shape, dtype=bool)), y)


def test_min_leaf_is_respected(problem):
    X, y, costs = problem
    tree = grow_greedy_tree(
        X, SortedColumns.of(X), y, np.ones(y.size, dtype=int), costs, alpha=0, min_leaf=7
    )
    leaf_of_row = np.zeros(y.size, dtype=int)
    for row in range(y.size):
        node = 0
        while tree.feature[node] != LEAF:
            goes_left = X[row, tree.feature[node]] <= tree.threshold[node]
            node = tree.left[node] if goes_left else tree.right[node]
        leaf_of_row[row] = node
    assert np.bincount(leaf_of_row)[np.unique(leaf_of_row)].min() >= 7


@pytest.mark.parametrize("instance", range(4))
def test_budget_is_never_exceeded(instance):
    rng = np.random.default_rng(instance)
    X = rng.normal(size=(60, 10))
    y = (X[:, rng.integers(10)] + rng.normal(size=60) > 0).astype(int)
    costs = rng.uniform(0.1, 1.0, size=10)
    budgets = sorted(rng.uniform(0.1, 4.0, size=3))
    records = run_method(
        "budget_rf", X, y, costs, budgets, ALPHAS, seed=instance, n_trees_max=6
    ).records
    assert [(r["value"], r["budget"]) for r in records] == [(a, b) for a in ALPHAS for b in budgets]
    for record in records:
        assert costs[record["features"]].sum() <= record["budget"] + BUDGET_TOLERANCE
        assert np.array_equal(record["features"], np.unique(record["features"]))
        assert 0 <= record["ensemble_trees"] <= 6
        assert record["expected_acquisition_cost"] <= costs[record["features"]].sum() + 1e-9
    for alpha in ALPHAS:
        trees = [r["ensemble_trees"] for r in records if r["value"] == alpha]
        assert trees == sorted(trees)


def test_empty_set_when_nothing_fits(problem):
    X, y, costs = problem
    (record,) = run_method(
        "budget_rf", X, y, costs, [costs.min() / 2], [0], seed=1, n_trees_max=5
    ).records
    assert record["features"].size == 0
    assert record["ensemble_trees"] == 0
    assert record["expected_acquisition_cost"] == 0
    # no tree: the majority class's training error
    assert record["ensemble_oob_mmce"] == pytest.approx(min(y.mean(), 1 - y.mean()))


def test_same_seed_same_selection(problem):
    X, y, costs = problem
    first = run_method(
        "budget_rf", X, y, costs, [1.0, 3.0], ALPHAS, seed=7, n_trees_max=5, n_jobs=2
    ).records
    second = run_method("budget_rf", X, y, costs, [1.0, 3.0], ALPHAS, seed=7, n_trees_max=5).records
    for a, b in zip(first, second, strict=True):
        assert np.array_equal(a["features"], b["features"])
        assert a["ensemble_oob_mmce"] == b["ensemble_oob_mmce"]


def test_stored_forests_give_test_metrics(problem):
    X, y, costs = problem
    # the smallest budget fits no tree: its forest is empty for every alpha
    budgets = [costs.min() / 2, 1.0, 3.0]
    selection = run_method("budget_rf", X, y, costs, budgets, [0, 6], seed=3, n_trees_max=4)
    records, arrays = selection.records, selection.artifacts
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    metrics = budget_rf.ensemble_test_metrics(arrays, X, y, costs).set_index(
        ["value", "ensemble_trees"]
    )
    for record in records:
        row = metrics.loc[(record["value"], record["ensemble_trees"])]
        # on the training rows, the stored forests reproduce the acquisition cost of select
        assert row["ensemble_test_acquisition_cost"] == pytest.approx(
            record["expected_acquisition_cost"]
        )
        assert 0 <= row["ensemble_test_mmce"] <= 1
    assert metrics.loc[(0, 0), "ensemble_test_mmce"] == pytest.approx(min(y.mean(), 1 - y.mean()))
