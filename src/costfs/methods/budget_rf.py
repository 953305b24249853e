"""BudgetRF (Nan et al. 2015): a forest of cost-aware greedy trees, grown while it fits the budget.

GreedyTree grows one tree on a bootstrap sample with the threshold-Pairs impurity F_alpha on
class counts and minimax splits: per feature, the threshold minimising the larger impurity of
the two children; then the feature minimising c(t) / (F(S) - max_i F(S_i)). A node is a leaf
when F(S) = 0, when no split lowers the larger child impurity below F(S), or when no split
leaves `min_leaf` bootstrap draws on both sides. As in the authors' code, c(t) is the feature's
own cost wherever it is used; `paid_features_free=True` makes features already used on the path
to a node cost 0 there.

The forest adds trees while the union of their features fits the budget: the first tree that
would exceed it is not added, and growth stops (or at `n_trees_max` trees). The protocol's
result is that union. Tree i of every alpha uses the same bootstrap sample (seeded from
(seed, i)), and all budgets share one sequence of trees per alpha, cut where the budget binds.

Besides the feature set, each record carries the forest's own majority-vote OOB error and its
expected acquisition cost (the mean over training rows of the summed cost of the distinct
features the forest evaluates for that row: the paper's cost notion).
`select` also keeps the grown forests as flat arrays, from which `ensemble_test_metrics`
gives the forests' own test error and acquisition cost.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from costfs.bcr import BUDGET_TOLERANCE
from costfs.forest import majority_class
from costfs.method import Hyperparameter, Method, Parameter, Selection, boolean, integer
from costfs.seeds import derive_seed

LEAF = -1
"""`feature` of a leaf node."""


def pairs_impurity(n0, n1, alpha: float):
    """Threshold-Pairs F_alpha of nodes with class counts (n0, n1).

    The sum over ordered pairs i != j of [[n_i - alpha]_+ [n_j - alpha]_+ - alpha^2]_+ has two
    equal terms for two classes.
    """
    excess = np.maximum(np.asarray(n0) - alpha, 0) * np.maximum(np.asarray(n1) - alpha, 0)
    return 2.0 * np.maximum(excess - alpha**2, 0.0)


@dataclass(frozen=True)
class GreedyTree:
    """A binary tree in arrays: node k sends x to `left[k]` if x[feature[k]] <= threshold[k],
    else to `right[k]`; a leaf (`feature` == LEAF) predicts `label`."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    label: np.ndarray

    def used_features(self) -> np.ndarray:
        return np.unique(self.feature[self.feature != LEAF])

    def route(self, X: np.ndarray, acquired: np.ndarray) -> np.ndarray:
        """The tree's labels for the rows of X; sets acquired[r, j] for every feature j the
        tree evaluates on row r's path (acquired is an (n, p) bool array, updated in place)."""
        node = np.zeros(X.shape[0], dtype=np.intp)
        active = np.flatnonzero(self.feature[node] != LEAF)
        while active.size:
            at = node[active]
            features = self.feature[at]
            acquired[active, features] = True
            goes_left = X[active, features] <= self.threshold[at]
            node[active] = np.where(goes_left, self.left[at], self.right[at])
            active = active[self.feature[node[active]] != LEAF]
        return self.label[node]


def _minimax_cuts(drawn, ones, alpha, min_leaf, distinct=None):
    """Per feature (row of the node's column-sorted arrays of bootstrap draws and draws of
    class 1): the cut position k (left child = sorted positions 0..k) minimising the larger
    child impurity, and that impurity (inf where no cut leaves `min_leaf` draws on both sides
    or where `distinct[j, k]` is False: equal values at positions k and k + 1)."""
    drawn_left = np.cumsum(drawn, axis=1)[:, :-1]
    ones_left = np.cumsum(ones, axis=1)[:, :-1]
    ones_total = ones[0].sum()
    zeros_total = drawn[0].sum() - ones_total
    zeros_left = drawn_left - ones_left
    # F = 2 [P - alpha^2]_+ is non-decreasing in the pair product P, so the cut is found on P.
    left = np.maximum(zeros_left - alpha, 0) * np.maximum(ones_left - alpha, 0)
    right = np.maximum(zeros_total - alpha - zeros_left, 0) * np.maximum(
        ones_total - alpha - ones_left, 0
    )
    worse = np.maximum(left, right, out=left).astype(float, copy=False)
    if distinct is not None:
        worse[~distinct] = np.inf
    if min_leaf > 1:
        worse[(drawn_left < min_leaf) | (drawn_left > drawn[0].sum() - min_leaf)] = np.inf
    cut = np.argmin(worse, axis=1)
    product = worse[np.arange(cut.size), cut]
    return cut, 2.0 * np.maximum(product - alpha**2, 0.0)


@dataclass(frozen=True)
class SortedColumns:
    """Each column's argsort (rows by increasing value), computed once for all trees, and the
    columns with repeated values (only there must a cut be checked to separate two values)."""

    order: np.ndarray
    tied: np.ndarray

    @classmethod
    def of(cls, X: np.ndarray) -> "SortedColumns":
        order = np.argsort(X, axis=0, kind="stable").T
        values = np.take_along_axis(X.T, order, axis=1)
        return cls(order=order, tied=np.flatnonzero((values[:, 1:] == values[:, :-1]).any(axis=1)))


def grow_greedy_tree(
    X: np.ndarray,
    sorted_columns: SortedColumns,
    y: np.ndarray,
    draws: np.ndarray,
    costs: np.ndarray,
    *,
    alpha: float,
    min_leaf: int = 1,
    paid_features_free: bool = False,
    tie_label: int = 0,
) -> GreedyTree:
    """GreedyTree on the rows drawn `draws[r]` times (a bootstrap sample as counts).

    Ties: features by lower ratio, then lower cost, then larger impurity decrease, then lower
    index; within a feature, the cut with the smallest pair product, then the lowest
    threshold. A leaf with tied class counts predicts `tie_label`.
    """
    n_features = X.shape[1]
    columns = X.T
    tied = sorted_columns.tied
    ones_drawn = draws * y
    in_bag = draws > 0
    root = sorted_columns.order[in_bag[sorted_columns.order]].reshape(n_features, -1)
    feature, threshold, left, right, label = [], [], [], [], []
    stack = [(root, frozenset(), None, False)]
    while stack:
        order, paid, parent, is_left = stack.pop()
        node = len(feature)
        if parent is not None:
            (left if is_left else right)[parent] = node
        rows = order[0]
        ones = int(ones_drawn[rows].sum())
        zeros = int(draws[rows].sum()) - ones
        label.append(1 if ones > zeros else 0 if zeros > ones else tie_label)
        feature.append(LEAF)
        threshold.append(np.nan)
        left.append(LEAF)
        right.append(LEAF)
        impurity = pairs_impurity(zeros, ones, alpha)
        if impurity == 0 or rows.size < 2:
            continue
        distinct = None
        if tied.size:
            distinct = np.ones((n_features, rows.size - 1), dtype=bool)
            values = columns[tied[:, None], order[tied]]
            distinct[tied] = values[:, 1:] > values[:, :-1]
        cut, worse = _minimax_cuts(draws[order], ones_drawn[order], alpha, min_leaf, distinct)
        decrease = impurity - worse
        candidates = np.flatnonzero(decrease > 0)
        if candidates.size == 0:
            continue
        price = costs[candidates].copy()
        if paid_features_free:
            price[np.isin(candidates, list(paid))] = 0.0
        ratio = price / decrease[candidates]
        best_position = np.lexsort((candidates, -decrease[candidates], price, ratio))[0]
        best = candidates[best_position]
        k = cut[best]
        below, above = columns[best, order[best, k]], columns[best, order[best, k + 1]]
        middle = below + (above - below) / 2
        # Rounding can put the midpoint of adjacent floats on the upper value.
        threshold[node] = middle if middle < above else below
        feature[node] = int(best)
        goes_left = np.zeros(X.shape[0], dtype=bool)
        goes_left[order[best, : k + 1]] = True
        to_left = goes_left[order]
        path = paid | {int(best)}
        stack.append((order[~to_left].reshape(n_features, -1), path, node, False))
        stack.append((order[to_left].reshape(n_features, -1), path, node, True))
    return GreedyTree(
        feature=np.array(feature, dtype=np.intp),
        threshold=np.array(threshold, dtype=float),
        left=np.array(left, dtype=np.intp),
        right=np.array(right, dtype=np.intp),
        label=np.array(label, dtype=np.int8),
    )


def bootstrap_draws(seed: int, tree: int, n_rows: int) -> np.ndarray:
    """How often each row is drawn into tree `tree`'s bootstrap sample (same for every alpha)."""
    rng = np.random.default_rng(derive_seed(seed, "budget_rf", "tree", tree))
    return np.bincount(rng.integers(0, n_rows, size=n_rows), minlength=n_rows)


@dataclass(frozen=True)
class BudgetForest:
    """The trees of one alpha in the order they were added, with per-prefix summaries:
    entry k of each array describes the forest of the first k trees (k = 0 .. len(trees))."""

    alpha: float
    trees: list[GreedyTree]
    union_cost: np.ndarray
    oob_mmce: np.ndarray
    acquisition_cost: np.ndarray

    def trees_within(self, budget: float) -> int:
        """The number of leading trees whose features fit `budget`."""
        return int(np.searchsorted(self.union_cost, budget + BUDGET_TOLERANCE, side="right")) - 1

    def features(self, n_trees: int) -> np.ndarray:
        used = [tree.used_features() for tree in self.trees[:n_trees]]
        return np.unique(np.concatenate([np.empty(0, dtype=np.intp), *used]))


def _vote_error(votes_for_one, votes, y, tie_label) -> float:
    """MMCE of majority votes over the rows that have at least one vote."""
    voted = votes > 0
    if not voted.any():
        return float(np.mean(y != tie_label))
    twice = 2 * votes_for_one[voted]
    predicted = np.where(twice > votes[voted], 1, np.where(twice < votes[voted], 0, tie_label))
    return float(np.mean(predicted != y[voted]))


def grow_budget_forest(
    X: np.ndarray,
    y: np.ndarray,
    costs: np.ndarray,
    alpha: float,
    *,
    max_budget: float,
    seed: int,
    n_trees_max: int = 40,
    min_leaf: int = 1,
    paid_features_free: bool = False,
    sorted_columns: SortedColumns | None = None,
) -> BudgetForest:
    """Trees for one alpha, added while the union of their features costs at most `max_budget`.

    The OOB error of the first k trees is over the training rows out of bag for at least one
    of them (the majority class's error for k = 0); tied votes go to the majority class.
    """
    n_rows = X.shape[0]
    if sorted_columns is None:
        sorted_columns = SortedColumns.of(X)
    tie_label = majority_class(y)
    used = np.zeros(X.shape[1], dtype=bool)
    acquired = np.zeros(X.shape, dtype=bool)
    votes_for_one = np.zeros(n_rows)
    votes = np.zeros(n_rows)
    trees = []
    union_cost, oob_mmce, acquisition_cost = [0.0], [_vote_error(votes, votes, y, tie_label)], [0.0]
    for index in range(n_trees_max):
        draws = bootstrap_draws(seed, index, n_rows)
        tree = grow_greedy_tree(
            X,
            sorted_columns,
            y,
            draws,
            costs,
            alpha=alpha,
            min_leaf=min_leaf,
            paid_features_free=paid_features_free,
            tie_label=tie_label,
        )
        with_tree = used.copy()
        with_tree[tree.used_features()] = True
        cost = float(costs[with_tree].sum())
        if cost > max_budget + BUDGET_TOLERANCE:
            break
        used = with_tree
        trees.append(tree)
        predicted = tree.route(X, acquired)
        out_of_bag = draws == 0
        votes[out_of_bag] += 1
        votes_for_one[out_of_bag] += predicted[out_of_bag]
        union_cost.append(cost)
        oob_mmce.append(_vote_error(votes_for_one, votes, y, tie_label))
        acquisition_cost.append(float((acquired @ costs).mean()))
    return BudgetForest(
        alpha=float(alpha),
        trees=trees,
        union_cost=np.array(union_cost),
        oob_mmce=np.array(oob_mmce),
        acquisition_cost=np.array(acquisition_cost),
    )


def grow_budget_forests(
    X: np.ndarray,
    y: np.ndarray,
    costs: np.ndarray,
    max_budget: float,
    alphas: Sequence[float],
    *,
    seed: int,
    n_trees_max: int = 40,
    min_leaf: int = 1,
    paid_features_free: bool = False,
    n_jobs: int = 1,
) -> list[BudgetForest]:
    """One forest per alpha (grown `n_jobs` at a time; the result does not depend on it)."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y).astype(np.intp)
    costs = np.asarray(costs, dtype=float)
    sorted_columns = SortedColumns.of(X)
    return Parallel(n_jobs=n_jobs, prefer="threads")(
        delayed(grow_budget_forest)(
            X,
            y,
            costs,
            alpha,
            max_budget=max_budget,
            seed=seed,
            n_trees_max=n_trees_max,
            min_leaf=min_leaf,
            paid_features_free=paid_features_free,
            sorted_columns=sorted_columns,
        )
        for alpha in alphas
    )


def forests_to_arrays(forests: Sequence[BudgetForest], tie_label: int) -> dict[str, np.ndarray]:
    """The forests as flat arrays for `np.savez`: forest f has alpha `alpha[f]` and the next
    `n_trees[f]` trees; tree t has nodes `node_start[t]:node_start[t+1]` (child indices within
    the tree). `tie_label` is the training majority class, which takes tied votes."""
    trees = [tree for forest in forests for tree in forest.trees]

    def joined(name, dtype):
        parts = [getattr(tree, name) for tree in trees]
        return np.concatenate([np.empty(0, dtype=dtype), *parts]).astype(dtype)

    return {
        "alpha": np.array([forest.alpha for forest in forests], dtype=float),
        "n_trees": np.array([len(forest.trees) for forest in forests], dtype=np.int64),
        "node_start": np.cumsum([0] + [tree.feature.size for tree in trees], dtype=np.int64),
        "node_feature": joined("feature", np.int32),
        "node_threshold": joined("threshold", float),
        "node_left": joined("left", np.int32),
        "node_right": joined("right", np.int32),
        "node_label": joined("label", np.int8),
        "tie_label": np.array(tie_label),
    }


def trees_from_arrays(arrays: Mapping[str, np.ndarray]) -> dict[float, list[GreedyTree]]:
    """The trees of each alpha in the order they were added (inverse of `forests_to_arrays`)."""
    start = arrays["node_start"]
    trees = []
    for t in range(start.size - 1):
        nodes = slice(start[t], start[t + 1])
        trees.append(
            GreedyTree(
                feature=arrays["node_feature"][nodes],
                threshold=arrays["node_threshold"][nodes],
                left=arrays["node_left"][nodes],
                right=arrays["node_right"][nodes],
                label=arrays["node_label"][nodes],
            )
        )
    first = np.cumsum(np.concatenate([[0], arrays["n_trees"]]))
    return {float(alpha): trees[first[f] : first[f + 1]] for f, alpha in enumerate(arrays["alpha"])}


def ensemble_test_metrics(
    forests: Mapping[str, np.ndarray], X_test: np.ndarray, y_test: np.ndarray, costs: np.ndarray
) -> pd.DataFrame:
    """The stored forests' own test MMCE (majority vote, ties to the training majority class)
    and expected acquisition cost per test row, for every alpha and every number of leading
    trees: columns `value` (alpha), `ensemble_trees`, `ensemble_test_mmce`,
    `ensemble_test_acquisition_cost` -- joined to a selection on (`value`, `ensemble_trees`).

    `forests` is the array dict `select` keeps (`forests_to_arrays`).
    """
    X_test = np.asarray(X_test, dtype=float)
    y_test = np.asarray(y_test)
    costs = np.asarray(costs, dtype=float)
    tie_label = int(forests["tie_label"])
    rows = []
    for alpha, trees in trees_from_arrays(forests).items():
        acquired = np.zeros(X_test.shape, dtype=bool)
        votes_for_one = np.zeros(y_test.size)
        for k in range(len(trees) + 1):
            if k:
                votes_for_one += trees[k - 1].route(X_test, acquired)
            twice = 2 * votes_for_one
            predicted = np.where(twice > k, 1, np.where(twice < k, 0, tie_label))
            rows.append(
                {
                    "value": alpha,
                    "ensemble_trees": k,
                    "ensemble_test_mmce": float(np.mean(predicted != y_test)),
                    "ensemble_test_acquisition_cost": float((acquired @ costs).mean()),
                }
            )
    return pd.DataFrame(rows)


class BudgetRF(Method):
    summary = (
        "BudgetRF (Nan et al.): GreedyTrees with the threshold-Pairs impurity and minimax "
        "cost-weighted splits on bootstrap samples, added while their features fit the budget; "
        "α tuned by OOB error. `runs.parquet` also gets the ensemble's own "
        "`ensemble_oob_mmce`, `ensemble_test_mmce` and expected per-example acquisition cost "
        "(`expected_acquisition_cost` on training rows, `ensemble_test_acquisition_cost` on "
        "test rows)"
    )
    hyperparameter = Hyperparameter(
        "alpha",
        default=0.0,
        help="threshold of the Pairs impurity, in class counts: larger alpha gives shallower, "
        "cheaper trees",
        grid=(0, 2, 4, 6, 8, 10, 15, 25, 35, 45),
    )
    parameters = (
        Parameter(
            "n_trees_max",
            integer(),
            40,
            "at most this many GreedyTrees; trees are added while the union of their features "
            "fits the budget",
        ),
        Parameter("min_leaf", integer(), 1, "smallest leaf (in bootstrap draws)"),
        Parameter(
            "paid_features_free",
            boolean(),
            False,
            "a feature already used on the path to a node costs 0 there (the authors' code "
            "keeps costs static)",
        ),
    )
    colour = "#CC79A7"

    def select(
        self,
        X,
        y,
        costs,
        budgets,
        grid,
        *,
        prepared,
        seed,
        n_jobs,
        engine,
        n_trees_max,
        min_leaf,
        paid_features_free,
    ):
        """Per (alpha, budget): the sorted `features` of the forest's trees that fit,
        `ensemble_trees`, `ensemble_oob_mmce`, `expected_acquisition_cost`; the forests are
        kept as arrays (`forests_to_arrays`)."""
        costs = np.asarray(costs, dtype=float)
        forests = grow_budget_forests(
            X,
            y,
            costs,
            max(budgets),
            grid,
            seed=seed,
            n_trees_max=n_trees_max,
            min_leaf=min_leaf,
            paid_features_free=paid_features_free,
            n_jobs=n_jobs,
        )
        records = []
        for alpha, forest in zip(grid, forests, strict=True):
            for budget in budgets:
                k = forest.trees_within(budget)
                records.append(
                    {
                        "value": alpha,
                        "budget": budget,
                        "features": forest.features(k),
                        "ensemble_trees": k,
                        "ensemble_oob_mmce": float(forest.oob_mmce[k]),
                        "expected_acquisition_cost": float(forest.acquisition_cost[k]),
                    }
                )
        tie_label = majority_class(np.asarray(y).astype(np.intp))
        return Selection(records, forests_to_arrays(forests, tie_label))

    def evaluation_columns(self, selection, artifacts, X_test, y_test, costs):
        """The forest's own test MMCE and acquisition cost per test row, for each selection."""
        metrics = ensemble_test_metrics(artifacts, X_test, y_test, costs)
        keys = selection[["value", "ensemble_trees"]].astype({"value": float})
        joined = keys.merge(
            metrics, on=["value", "ensemble_trees"], how="left", validate="many_to_one"
        )
        return joined.drop(columns=["value", "ensemble_trees"])


BudgetRFSelector = BudgetRF.selector("BudgetRFSelector")
