import io

import numpy as np
import pytest

import costfs
from costfs.core.costs import BUDGET_TOLERANCE
from costfs.methods import _budget_trees, budget_rf
from costfs.methods._budget_trees import LEAF
from costfs.methods.budget_rf import (
    BudgetLedger,
    SortedColumns,
    pairs_impurity,
    winning_classes,
)
from tests.conftest import declared, run_method

grow_greedy_tree = declared("budget_rf", budget_rf.grow_greedy_tree, cost_exponent=1.0)
grow_budget_forest = declared("budget_rf", budget_rf.grow_budget_forest, cost_exponent=1.0)
grow_budget_forests = declared("budget_rf", budget_rf.grow_budget_forests)

ALPHAS = [0, 1, 2.5, 6]


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(80, 8))
    y = (X[:, 0] + 0.7 * X[:, 3] + rng.normal(scale=0.6, size=80) > 0).astype(int)
    costs = rng.uniform(0.1, 1.0, size=8)
    return X, y, costs


def test_pairs_impurity_by_hand():
    # alpha 0: 2 * (3 * 2) = 12 (two ordered pairs of classes, each 3 * 2)
    assert pairs_impurity((3, 2), 0) == 12
    # alpha 1: (3 - 1) * (2 - 1) = 2; 2 - 1^2 = 1; times 2 = 2
    assert pairs_impurity((3, 2), 1) == 2
    # alpha 2: (5 - 2) * (4 - 2) = 6; 6 - 2^2 = 2; times 2 = 4
    assert pairs_impurity((5, 4), 2) == 4
    # alpha 2: (3 - 2) * (3 - 2) = 1 < 2^2, clipped to 0
    assert pairs_impurity((3, 3), 2) == 0
    # alpha 1: [1 - 1]_+ = 0, so 0 * 9 - 1 < 0, clipped to 0
    assert pairs_impurity((1, 10), 1) == 0
    # alpha 0.5: (10.5 * 20.5) = 215.25; minus 0.25 = 215; times 2 = 430
    assert pairs_impurity((11, 21), 0.5) == pytest.approx(430)
    # vectorised over count arrays
    assert np.array_equal(pairs_impurity((np.array([3, 5]), np.array([2, 4])), 2), [0, 4])
    # three classes, alpha 1: pairs (2*1 - 1) + (2*0 - 1)_+ + (1*0 - 1)_+ = 1; times 2 = 2
    assert pairs_impurity((3, 2, 1), 1) == 2
    # three classes, alpha 0: 2 * (3*2 + 3*4 + 2*4) = 52
    assert pairs_impurity((3, 2, 4), 0) == 52


@pytest.mark.parametrize("alpha", ALPHAS)
def test_pairs_impurity_is_zero_for_pure_nodes(alpha):
    counts = np.arange(0, 50)
    assert np.all(pairs_impurity((counts, 0), alpha) == 0)
    assert np.all(pairs_impurity((0, counts), alpha) == 0)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_pairs_impurity_never_decreases_when_examples_are_added(alpha):
    n0, n1 = np.meshgrid(np.arange(40), np.arange(40), indexing="ij")
    impurity = pairs_impurity((n0, n1), alpha)
    assert np.all(pairs_impurity((n0 + 1, n1), alpha) >= impurity)
    assert np.all(pairs_impurity((n0, n1 + 1), alpha) >= impurity)
    assert np.all(impurity >= 0)


def _reference_choice(X, y, draws, rows, costs, alpha, paid, exponent=1.0, rest=np.inf):
    """GreedyTree's split feature at a node, by brute force over features and thresholds:
    features in `paid` cost 0, others are eligible only if their cost is at most `rest`."""
    return _reference_split(X, y, draws, rows, costs, alpha, paid, exponent, rest)[0]


def _reference_split(X, y, draws, rows, costs, alpha, paid, exponent, rest):
    """`_reference_choice` and whether the budget ruled out a feature that would decrease
    the impurity."""
    drawn = draws[rows]
    classes = range(int(y.max()) + 1)
    total = [drawn[y[rows] == k].sum() for k in classes]
    impurity = pairs_impurity(total, alpha)
    best = None
    ruled_out = False
    for j in range(X.shape[1]):
        worst = np.inf
        for threshold in np.unique(X[rows, j])[:-1]:
            left = X[rows, j] <= threshold
            counts = [
                [drawn[side & (y[rows] == k)].sum() for k in classes] for side in (left, ~left)
            ]
            worst = min(worst, max(pairs_impurity(c, alpha) for c in counts))
        decrease = impurity - worst
        if decrease <= 0:
            continue
        if j not in paid and costs[j] > rest + BUDGET_TOLERANCE:
            ruled_out = True
            continue
        price = 0.0 if j in paid else costs[j]
        key = (price**exponent / decrease, price, -decrease, j)
        best = min(best, key) if best is not None else key
    return (None if best is None else best[3]), ruled_out


@pytest.mark.parametrize("alpha", [0, 1, 3])
@pytest.mark.parametrize("paid_features_free", [False, True])
@pytest.mark.parametrize("exponent", [0, 0.5, 1])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_greedy_tree_splits_match_brute_force(rng, alpha, paid_features_free, exponent, n_classes):
    # Few distinct values per feature: ties in values and between features are common.
    X = rng.integers(0, 5, size=(40, 4)).astype(float)
    signal = X[:, 0] + X[:, 1] + rng.integers(0, 3, size=40)
    y = np.digitize(signal, [5.5] if n_classes == 2 else [4.5, 6.5])
    costs = np.array([0.5, 0.3, 0.8, 0.3])
    draws = np.bincount(rng.integers(0, 40, size=40), minlength=40)
    tree = grow_greedy_tree(
        X,
        SortedColumns.of(X),
        y,
        draws,
        costs,
        alpha=alpha,
        cost_exponent=exponent,
        paid_features_free=paid_features_free,
    )
    in_bag = np.flatnonzero(draws > 0)
    root = int(tree.feature[0])
    assert root == _reference_choice(X, y, draws, in_bag, costs, alpha, set(), exponent)
    left_rows = in_bag[X[in_bag, root] <= tree.threshold[0]]
    paid = {root} if paid_features_free else set()
    expected = _reference_choice(X, y, draws, left_rows, costs, alpha, paid, exponent)
    assert tree.feature[tree.left[0]] == (LEAF if expected is None else expected)


@pytest.mark.parametrize("exponent", [0, 0.5, 1])
@pytest.mark.parametrize("budget", [0.35, 0.9, 1.2])
def test_hard_budget_splits_match_brute_force(rng, exponent, budget):
    """Under a hard budget: a feature paid for earlier (feature 2 here) costs 0, one that does
    not fit what is left is not eligible, and each new split feature is paid for."""
    X = rng.integers(0, 5, size=(40, 4)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, size=40) > 5).astype(int)
    costs = np.array([0.5, 0.3, 0.8, 0.3])
    draws = np.bincount(rng.integers(0, 40, size=40), minlength=40)
    ledger = BudgetLedger.empty(costs, budget + costs[2])
    ledger.paid[2] = True
    tree = grow_greedy_tree(
        X, SortedColumns.of(X), y, draws, costs, alpha=0, cost_exponent=exponent, ledger=ledger
    )
    in_bag = np.flatnonzero(draws > 0)
    expected = _reference_choice(X, y, draws, in_bag, costs, 0, {2}, exponent, rest=budget)
    assert tree.feature[0] == (LEAF if expected is None else expected)
    assert costs[ledger.paid].sum() <= budget + costs[2] + BUDGET_TOLERANCE
    assert np.array_equal(np.flatnonzero(ledger.paid), np.union1d(tree.used_features(), [2]))
    if tree.feature[0] != LEAF:
        root = int(tree.feature[0])
        left_rows = in_bag[X[in_bag, root] <= tree.threshold[0]]
        paid = {2, root}
        rest = budget - (0.0 if root == 2 else costs[root])
        expected = _reference_choice(X, y, draws, left_rows, costs, 0, paid, exponent, rest)
        assert tree.feature[tree.left[0]] == (LEAF if expected is None else expected)


@pytest.mark.parametrize("alpha", [0, 2])
@pytest.mark.parametrize("budget", [0.35, 0.9, 1.6, np.inf])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_whole_tree_under_a_hard_budget_matches_brute_force(rng, alpha, budget, n_classes):
    """Every node of a tree grown under a hard budget, in the order the tree is grown (depth
    first, left child first: the features paid for so far cost 0), splits on the brute-force
    choice, and the ledger is constrained exactly when some node's budget ruled out a feature
    that would have decreased its impurity."""
    X = rng.integers(0, 6, size=(70, 5)).astype(float)
    signal = X[:, 0] + X[:, 1] - X[:, 4] + rng.integers(0, 4, size=70)
    y = np.digitize(signal, [4.5] if n_classes == 2 else [2.5, 5.5])
    costs = np.array([0.5, 0.3, 0.8, 0.3, 0.2])
    draws = np.bincount(rng.integers(0, 70, size=70), minlength=70)
    ledger = BudgetLedger.empty(costs, budget)
    tree = grow_greedy_tree(
        X, SortedColumns.of(X), y, draws, costs, alpha=alpha, cost_exponent=1.0, ledger=ledger
    )
    paid, ruled_out = set(), False
    nodes = [(0, np.flatnonzero(draws > 0))]
    while nodes:
        node, rows = nodes.pop()
        rest = budget - costs[sorted(paid)].sum()
        expected, ruled_out_here = _reference_split(
            X, y, draws, rows, costs, alpha, paid, 1.0, rest
        )
        ruled_out |= ruled_out_here
        assert tree.feature[node] == (LEAF if expected is None else expected)
        if expected is not None:
            paid.add(expected)
            goes_left = X[rows, expected] <= tree.threshold[node]
            nodes.append((tree.right[node], rows[~goes_left]))
            nodes.append((tree.left[node], rows[goes_left]))
    assert ledger.constrained == ruled_out
    assert set(np.flatnonzero(ledger.paid)) == paid


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
@pytest.mark.parametrize("hard_budget", [True, False])
def test_budget_is_never_exceeded(instance, hard_budget):
    rng = np.random.default_rng(instance)
    X = rng.normal(size=(60, 10))
    y = (X[:, rng.integers(10)] + rng.normal(size=60) > 0).astype(int)
    costs = rng.uniform(0.1, 1.0, size=10)
    budgets = sorted(rng.uniform(0.1, 4.0, size=3))
    exponents = [0, 1]
    records = run_method(
        "budget_rf",
        X,
        y,
        costs,
        budgets,
        ALPHAS,
        seed=instance,
        n_trees_max=6,
        cost_exponents=exponents,
        hard_budget=hard_budget,
    ).records
    assert [(r["value"], r["cost_exponent"], r["budget"]) for r in records] == [
        (a, e, b) for a in ALPHAS for e in exponents for b in budgets
    ]
    for record in records:
        assert costs[record["features"]].sum() <= record["budget"] + BUDGET_TOLERANCE
        assert np.array_equal(record["features"], np.unique(record["features"]))
        assert 0 <= record["ensemble_trees"] <= 6
        assert record["expected_acquisition_cost"] <= costs[record["features"]].sum() + 1e-9
        if hard_budget:
            assert record["ensemble_trees"] == 6
    for alpha in ALPHAS:
        for exponent in exponents:
            trees = [
                r["ensemble_trees"]
                for r in records
                if (r["value"], r["cost_exponent"]) == (alpha, exponent)
            ]
            assert trees == sorted(trees)


@pytest.mark.parametrize("hard_budget", [True, False])
def test_empty_set_when_nothing_fits(problem, hard_budget):
    X, y, costs = problem
    (record,) = run_method(
        "budget_rf",
        X,
        y,
        costs,
        [costs.min() / 2],
        [0],
        seed=1,
        n_trees_max=5,
        cost_exponents=[1],
        hard_budget=hard_budget,
    ).records
    assert record["features"].size == 0
    assert record["expected_acquisition_cost"] == 0
    if not hard_budget:
        # no tree: the majority class's training error
        assert record["ensemble_trees"] == 0
        assert record["ensemble_oob_mmce"] == pytest.approx(min(y.mean(), 1 - y.mean()))
    else:
        # five trees without a split, each predicting its bootstrap sample's majority
        assert record["ensemble_trees"] == 5


def test_the_hard_budget_is_used_where_the_literal_rule_leaves_it(rng):
    """The measured failure: the authors' cost-weighted rule keeps to a few cheap features
    whatever the budget. Cost-agnostic splits (exponent 0) within the hard budget spend more
    as the budget grows."""
    X = rng.normal(size=(200, 20))
    y = (X[:, :8].sum(axis=1) + rng.normal(size=200) > 0).astype(int)
    costs = rng.uniform(0.1, 1.0, size=20)
    budgets = [1.0, 2.0, 4.0]

    def spent(exponent, hard_budget):
        records = run_method(
            "budget_rf",
            X,
            y,
            costs,
            budgets,
            [0],
            seed=2,
            n_trees_max=10,
            cost_exponents=[exponent],
            hard_budget=hard_budget,
        ).records
        return [costs[record["features"]].sum() for record in records]

    agnostic = spent(0, True)
    assert agnostic == sorted(agnostic) and agnostic[-1] > agnostic[0] + 1
    assert agnostic[-1] > max(spent(1, False)) + 1


def test_exponent_zero_ignores_the_costs(problem):
    X, y, costs = problem
    forests = [
        grow_budget_forest(X, y, c, 2, budget=np.inf, seed=5, cost_exponent=0, n_trees_max=4)
        for c in (costs, np.ones_like(costs))
    ]
    for one, other in zip(forests[0].trees, forests[1].trees, strict=True):
        assert np.array_equal(one.feature, other.feature)
        assert np.array_equal(one.threshold, other.threshold, equal_nan=True)


def test_a_forest_the_budget_never_constrained_serves_every_larger_budget(problem):
    X, y, costs = problem
    budgets = [0.3, 1.0, 2.5, 6.0, 20.0]
    shared = grow_budget_forests(
        X, y, costs, budgets, [0, 4], seed=9, cost_exponents=[0, 1], n_trees_max=4
    )
    for (alpha, exponent, budget), (forest, k) in shared.items():
        alone = grow_budget_forest(
            X, y, costs, alpha, budget=budget, seed=9, cost_exponent=exponent, n_trees_max=4
        )
        assert k == len(alone.trees)
        assert np.array_equal(forest.features(k), alone.features(k))
        assert forest.oob_mmce[k] == alone.oob_mmce[k]


def test_same_seed_same_selection(problem):
    X, y, costs = problem
    first = run_method(
        "budget_rf", X, y, costs, [1.0, 3.0], ALPHAS, seed=7, n_trees_max=5, n_jobs=2
    ).records
    second = run_method("budget_rf", X, y, costs, [1.0, 3.0], ALPHAS, seed=7, n_trees_max=5).records
    for a, b in zip(first, second, strict=True):
        assert np.array_equal(a["features"], b["features"])
        assert a["ensemble_oob_mmce"] == b["ensemble_oob_mmce"]


@pytest.mark.parametrize("hard_budget", [True, False])
def test_stored_forests_give_test_metrics(problem, hard_budget):
    X, y, costs = problem
    # the smallest budget fits no feature
    budgets = [costs.min() / 2, 1.0, 3.0]
    selection = run_method(
        "budget_rf", X, y, costs, budgets, [0, 6], seed=3, n_trees_max=4, hard_budget=hard_budget
    )
    records, arrays = selection.records, selection.artifacts
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    metrics = budget_rf.ensemble_test_metrics(arrays, X, y, costs).set_index(
        ["value", "cost_exponent", "budget"]
    )
    assert len(metrics) == len(records)
    for record in records:
        row = metrics.loc[(record["value"], record["cost_exponent"], record["budget"])]
        # on the training rows, the stored forests reproduce the acquisition cost of select
        assert row["ensemble_test_acquisition_cost"] == pytest.approx(
            record["expected_acquisition_cost"]
        )
        assert 0 <= row["ensemble_test_mmce"] <= 1
        if record["budget"] == budgets[0]:
            assert row["ensemble_test_acquisition_cost"] == 0


NODE_PARTS = ("feature", "threshold", "left", "right", "label")
"""A stored forest's node arrays, in `GreedyTree`'s field order."""


def reference_route(tree, X, acquired):
    """`GreedyTree.route` in numpy, all rows a level at a time."""
    node = np.zeros(X.shape[0], dtype=np.intp)
    active = np.flatnonzero(tree.feature[node] != LEAF)
    while active.size:
        at = node[active]
        features = tree.feature[at]
        acquired[active, features] = True
        goes_left = X[active, features] <= tree.threshold[at]
        node[active] = np.where(goes_left, tree.left[at], tree.right[at])
        active = active[tree.feature[node[active]] != LEAF]
    return tree.label[node]


def test_stored_forests_vote_as_their_trees_route(problem):
    """The compiled votes on test rows (`_budget_trees.forest_votes`) and each tree's `route`
    equal a numpy routing of the rows tree by tree, with the same features acquired per row."""
    X, y, costs = problem
    arrays = run_method("budget_rf", X, y, costs, [1.0, 3.0], [0, 6], seed=5, n_trees_max=4)
    arrays = arrays.artifacts
    X_test = np.random.default_rng(1).normal(size=(300, X.shape[1]))
    start, first = arrays["node_start"], np.cumsum([0, *arrays["n_trees"]])
    for f in range(arrays["n_trees"].size):
        expected_acquired = np.zeros(X_test.shape, dtype=bool)
        expected_votes = np.zeros((X_test.shape[0], 2), dtype=np.int64)
        for t in range(first[f], first[f + 1]):
            nodes = slice(start[t], start[t + 1])
            tree = budget_rf.GreedyTree(*(arrays[f"node_{part}"][nodes] for part in NODE_PARTS))
            tree_acquired = np.zeros(X_test.shape, dtype=bool)
            expected = reference_route(tree, X_test, tree_acquired)
            routed_acquired = np.zeros(X_test.shape, dtype=bool)
            assert np.array_equal(tree.route(X_test, routed_acquired), expected)
            assert np.array_equal(routed_acquired, tree_acquired)
            expected_acquired |= tree_acquired
            expected_votes[np.arange(X_test.shape[0]), expected] += 1
        acquired = np.zeros(X_test.shape, dtype=bool)
        votes = _budget_trees.forest_votes(
            X_test,
            *(arrays[f"node_{part}"] for part in NODE_PARTS),
            start,
            first[f],
            first[f + 1],
            2,
            acquired,
        )
        assert np.array_equal(votes, expected_votes)
        assert np.array_equal(acquired, expected_acquired)


def test_the_selector_takes_the_exponent_with_the_lowest_ensemble_oob_error(problem):
    X, y, costs = problem
    records = run_method("budget_rf", X, y, costs, [2.0], [2], seed=1, n_trees_max=4).records
    best = min(records, key=lambda r: (r["ensemble_oob_mmce"], r["expected_acquisition_cost"]))
    selector = costfs.BudgetRFSelector(
        feature_costs=costs, budget=2.0, alpha=2, n_trees_max=4, random_state=1
    ).fit(X, y)
    assert np.array_equal(selector.selected_features_, best["features"])


def test_votes_go_to_the_class_with_most_and_ties_to_the_majority_class_if_tied():
    votes = np.array([[3, 1, 0], [2, 2, 0], [0, 2, 2], [1, 1, 1], [0, 0, 4]])
    assert winning_classes(votes, tie_label=0).tolist() == [0, 0, 1, 0, 2]
    assert winning_classes(votes, tie_label=2).tolist() == [0, 0, 2, 2, 2]
