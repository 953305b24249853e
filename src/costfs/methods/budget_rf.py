"""BudgetRF (Nan et al. 2015): a forest of cost-aware greedy trees under a budget.

GreedyTree grows one tree on a bootstrap sample with the threshold-Pairs impurity F_alpha on
class counts and minimax splits: per feature, the threshold minimising the larger impurity of
the two children; then the feature minimising c(t)^xi / (F(S) - max_i F(S_i)), xi the cost
exponent (xi = 1 is the authors' rule, xi = 0 cost-agnostic). A node is a leaf when F(S) = 0,
when no split lowers the larger child impurity below F(S), or when no split leaves `min_leaf`
bootstrap draws on both sides.

Two ways to meet the protocol's hard budget on the union of the features used:

- `hard_budget` (the default): every tree grows within what is left of the budget. A split on
  a feature not yet paid for is eligible only if its cost fits the rest; a feature in the
  paid union (earlier trees, or earlier nodes of this tree) costs 0 from then on. All
  `n_trees_max` trees are added, each adding its new features to the union. A forest grown
  for a budget the budget never constrained (no split was ruled out) is also the forest of
  every larger budget, so it is grown once.
- the literal adaptation (`hard_budget: false`): trees grow as in the authors' code, where c(t)
  is the feature's own cost wherever it is used (`paid_features_free=True` makes features
  already used on the path to a node cost 0 there), and are added while the union of their
  features fits the budget: the first tree that would exceed it is not added, and growth
  stops. All budgets share one sequence of trees per (alpha, xi), cut where the budget binds.

Tree i of every (alpha, xi, budget) uses the same bootstrap sample (seeded from (seed, i)).
The protocol's result is the union of the forest's features; each record also carries the
forest's own majority-vote OOB error and its expected acquisition cost (the mean over training
rows of the summed cost of the distinct features the forest evaluates for that row: the
paper's cost notion). `select` keeps the forests as flat arrays, from which
`ensemble_test_metrics` gives their own test error and acquisition cost.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numba
import numpy as np
from joblib import Parallel, delayed

from costfs.core.costs import NO_GROUP, FeatureCosts
from costfs.core.progress import progress_bar
from costfs.core.seeds import derive_seed
from costfs.core.tabular import missing_as_lowest
from costfs.engine.forest import class_count, majority_class
from costfs.methods._base import (
    Hyperparameter,
    Method,
    Parameter,
    Selection,
    boolean,
    integer,
    number,
    numbers,
)
from costfs.methods._bcr import BUDGET_TOLERANCE, RATIO_TOLERANCE

if TYPE_CHECKING:
    import pandas as pd

LEAF = -1
"""`feature` of a leaf node."""


def _pair_products(counts, alpha: float) -> list:
    """[n_i - alpha]_+ [n_j - alpha]_+ for every pair of classes i < j."""
    excess = [np.maximum(np.asarray(n) - alpha, 0) for n in counts]
    return [excess[i] * excess[j] for i in range(len(excess)) for j in range(i + 1, len(excess))]


def pairs_impurity(counts, alpha: float):
    """Threshold-Pairs F_alpha of nodes with class counts `counts` (one count, or array of
    counts, per class): the sum over ordered pairs i != j of [[n_i - alpha]_+ [n_j - alpha]_+ -
    alpha^2]_+, twice the sum over the pairs i < j."""
    total = 0
    for product in _pair_products(counts, alpha):
        total = total + np.maximum(product - alpha**2, 0.0)
    return 2.0 * total


def winning_classes(class_votes: np.ndarray, tie_label: int) -> np.ndarray:
    """Per row of (rows x K) class counts, the class with the most; a tie goes to
    `tie_label` where it is among the tied classes, else to the lowest of them."""
    is_max = class_votes == class_votes.max(axis=-1, keepdims=True)
    return np.where(is_max[..., tie_label], tie_label, np.argmax(is_max, axis=-1))


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
        return _tree_labels(
            np.asarray(X, dtype=float),
            self.feature,
            self.threshold,
            self.left,
            self.right,
            self.label,
            acquired,
        )


@numba.njit(cache=True, nogil=True)
def _leaf(X, row, root, feature, threshold, left, right, acquired):
    """The leaf that row `row` of X reaches in the tree at node `root` (child indices count
    from the root); sets acquired[row, j] for every feature j on the path."""
    node = root
    while feature[node] != LEAF:
        split = feature[node]
        acquired[row, split] = True
        child = left[node] if X[row, split] <= threshold[node] else right[node]
        node = root + child
    return node


@numba.njit(cache=True, nogil=True)
def _tree_labels(X, feature, threshold, left, right, label, acquired):
    labels = np.empty(X.shape[0], dtype=label.dtype)
    for row in range(X.shape[0]):
        labels[row] = label[_leaf(X, row, 0, feature, threshold, left, right, acquired)]
    return labels


@numba.njit(cache=True, nogil=True)
def _pairs_impurity(counts, alpha):
    """`pairs_impurity` of one node's class counts (the same floating-point steps)."""
    total = 0.0
    for i in range(counts.size):
        for j in range(i + 1, counts.size):
            product = max(counts[i] - alpha, 0.0) * max(counts[j] - alpha, 0.0)
            total = total + max(product - alpha**2, 0.0)
    return 2.0 * total


@numba.njit(cache=True, nogil=True)
def _pair_product_sum(counts, alpha):
    total = 0.0
    for i in range(counts.size):
        for j in range(i + 1, counts.size):
            total = total + max(counts[i] - alpha, 0.0) * max(counts[j] - alpha, 0.0)
    return total


@numba.njit(cache=True, nogil=True)
def _winning_class(counts, tie_label):
    """`winning_classes` of one row of class counts."""
    most = counts.max()
    if counts[tie_label] == most:
        return tie_label
    return np.argmax(counts == most)


@numba.njit(cache=True, nogil=True)
def _feature_cut(columns, order, feature, y, draws, total_counts, alpha, min_leaf, node_draws):
    """The minimax cut of one feature of a node whose rows, sorted by the feature, are
    `order[feature]` and whose class counts are `total_counts`: the cut position with the
    smallest larger child impurity (ties: the smaller pair product, then the lower position)
    and that impurity."""
    if total_counts.size == 2:
        return _binary_feature_cut(
            columns[feature], order[feature], y, draws, total_counts, alpha, min_leaf, node_draws
        )
    rows = order[feature]
    left_counts = np.zeros(total_counts.size)
    drawn_left = 0
    best_cut = 0
    best_worse = np.inf
    best_product = np.inf
    for k in range(rows.size - 1):
        row = rows[k]
        drawn_left += draws[row]
        left_counts[y[row]] += draws[row]
        if not columns[feature, rows[k + 1]] > columns[feature, row]:
            continue
        if min_leaf > 1 and (drawn_left < min_leaf or drawn_left > node_draws - min_leaf):
            continue
        right_counts = total_counts - left_counts
        worse = max(_pairs_impurity(left_counts, alpha), _pairs_impurity(right_counts, alpha))
        product = max(_pair_product_sum(left_counts, alpha), _pair_product_sum(right_counts, alpha))
        if worse < best_worse or (worse == best_worse and product < best_product):
            best_worse, best_product, best_cut = worse, product, k
    return best_cut, best_worse


@numba.njit(cache=True, nogil=True)
def _binary_feature_cut(values, rows, y, draws, total_counts, alpha, min_leaf, node_draws):
    """`_feature_cut` of two classes: F = 2 [P - alpha^2]_+ is non-decreasing in the pair
    product P, so the cut is found on P (class counts are whole numbers, exact as floats)."""
    drawn_left = 0
    ones_left = 0
    best_cut = 0
    best_worse = np.inf
    value = values[rows[0]]
    for k in range(rows.size - 1):
        row = rows[k]
        drawn_left += draws[row]
        ones_left += draws[row] * y[row]
        following = values[rows[k + 1]]
        distinct = following > value
        value = following
        if not distinct:
            continue
        if min_leaf > 1 and (drawn_left < min_leaf or drawn_left > node_draws - min_leaf):
            continue
        zeros_left = drawn_left - ones_left
        left = max(zeros_left - alpha, 0.0) * max(ones_left - alpha, 0.0)
        right = max(total_counts[0] - alpha - zeros_left, 0.0) * max(
            total_counts[1] - alpha - ones_left, 0.0
        )
        worse = max(left, right)
        if worse < best_worse:
            best_worse, best_cut = worse, k
    return best_cut, 2.0 * max(best_worse - alpha**2, 0.0)


@numba.njit(cache=True, nogil=True)
def _lowest_ratio(candidates, price, decrease, cost_exponent):
    """The candidate with the lowest price^exponent / decrease (`ratio_ranks`' tolerance),
    then the lower price, the larger decrease, the lower index."""
    ratio = price**cost_exponent / decrease
    ordered = np.argsort(ratio, kind="mergesort")
    best = ordered[0]
    for position in range(1, ordered.size):
        a, b = ratio[ordered[position - 1]], ratio[ordered[position]]
        gap = b - a
        if not (a == b or (np.isfinite(gap) and gap <= RATIO_TOLERANCE * max(abs(a), abs(b)))):
            break
        c = ordered[position]
        if price[c] != price[best]:
            better = price[c] < price[best]
        elif decrease[c] != decrease[best]:
            better = decrease[c] > decrease[best]
        else:
            better = candidates[c] < candidates[best]
        if better:
            best = c
    return best


@numba.njit(cache=True, nogil=True)
def _is_leaf(counts, n_rows, alpha):
    """Whether a node of `n_rows` distinct rows with class counts `counts` is a leaf."""
    return n_rows < 2 or _pairs_impurity(counts, alpha) == 0


@numba.njit(cache=True, nogil=True)
def _grow_tree(
    columns,
    sorted_rows,
    y,
    draws,
    n_classes,
    alpha,
    cost_exponent,
    min_leaf,
    tie_label,
    static_costs,
    paid_features_free,
    hard_budget,
    budget,
    paid,
    own,
    group,
    shared,
    constrained,
):
    """`grow_greedy_tree`'s tree, on the rows with `draws` > 0 of `sorted_rows` (every row,
    in order of each feature), as (feature, threshold, left, right, label) arrays and whether
    the budget has ruled out a split (`constrained`: before this tree, or in it); `paid` (hard
    budget) is updated in place."""
    n_features = columns.shape[0]
    n_in_bag = 0
    for r in range(draws.size):
        if draws[r] > 0:
            n_in_bag += 1
    root = np.empty((n_features, n_in_bag), dtype=sorted_rows.dtype)
    for j in range(n_features):
        a = 0
        for r in sorted_rows[j]:
            if draws[r] > 0:
                root[j, a] = r
                a += 1
    capacity = 2 * n_in_bag + 1
    feature = np.full(capacity, LEAF, dtype=np.intp)
    threshold = np.full(capacity, np.nan)
    left = np.full(capacity, LEAF, dtype=np.intp)
    right = np.full(capacity, LEAF, dtype=np.intp)
    label = np.zeros(capacity, dtype=np.int8)
    n_nodes = 0
    # One row mask for every node's split, cleared after each (not one per node).
    goes_left = np.zeros(columns.shape[1], dtype=np.bool_)
    stack = [(root, np.zeros(n_features, dtype=np.bool_), -1, False)]
    while len(stack):
        order, path, parent, is_left = stack.pop()
        node = n_nodes
        n_nodes += 1
        if parent >= 0:
            if is_left:
                left[parent] = node
            else:
                right[parent] = node
        rows = order[0]
        counts = np.zeros(n_classes)
        node_draws = 0
        for r in rows:
            counts[y[r]] += draws[r]
            node_draws += draws[r]
        label[node] = _winning_class(counts, tie_label)
        if _is_leaf(counts, rows.size, alpha):
            continue
        impurity = _pairs_impurity(counts, alpha)
        price = np.zeros(n_features)
        fits = np.ones(n_features, dtype=np.bool_)
        if hard_budget:
            group_paid = np.zeros(shared.size, dtype=np.bool_)
            spent = 0.0
            for j in range(n_features):
                if paid[j]:
                    spent += own[j]
                    if group[j] != NO_GROUP:
                        group_paid[group[j]] = True
            for g in range(shared.size):
                if group_paid[g]:
                    spent += shared[g]
            rest = budget - spent
            for j in range(n_features):
                price[j] = own[j]
                if group[j] != NO_GROUP and not group_paid[group[j]]:
                    price[j] += shared[group[j]]
                if paid[j]:
                    price[j] = 0.0
                fits[j] = paid[j] or price[j] <= rest + BUDGET_TOLERANCE
        else:
            for j in range(n_features):
                price[j] = 0.0 if paid_features_free and path[j] else static_costs[j]
        cut = np.zeros(n_features, dtype=np.intp)
        decrease = np.zeros(n_features)
        for j in range(n_features):
            # A split the budget rules out matters only for `constrained`: once that is
            # known, such a feature's cuts need not be searched.
            if not fits[j] and constrained:
                continue
            position, worse = _feature_cut(
                columns, order, j, y, draws, counts, alpha, min_leaf, node_draws
            )
            cut[j] = position
            decrease[j] = impurity - worse
            if not fits[j] and decrease[j] > 0:
                constrained = True
        candidates = np.flatnonzero((decrease > 0) & fits)
        price = price[candidates]
        if candidates.size == 0:
            continue
        best = candidates[_lowest_ratio(candidates, price, decrease[candidates], cost_exponent)]
        k = cut[best]
        below, above = columns[best, order[best, k]], columns[best, order[best, k + 1]]
        # Below a missing value (-inf, `missing_as_lowest`) the midpoint is NaN: the
        # threshold is then -inf itself.
        middle = below + (above - below) / 2
        # Rounding can put the midpoint of adjacent floats on the upper value.
        threshold[node] = middle if middle < above else below
        feature[node] = best
        if hard_budget:
            paid[best] = True
        n_left = k + 1
        n_right = rows.size - n_left
        left_counts = np.zeros(n_classes)
        for r in order[best, :n_left]:
            left_counts[y[r]] += draws[r]
        # A child that will be a leaf needs its rows, not their order by every feature.
        left_is_leaf = _is_leaf(left_counts, n_left, alpha)
        right_is_leaf = _is_leaf(counts - left_counts, n_right, alpha)
        to_left = np.empty((1 if left_is_leaf else n_features, n_left), dtype=order.dtype)
        to_right = np.empty((1 if right_is_leaf else n_features, n_right), dtype=order.dtype)
        if left_is_leaf:
            to_left[0] = order[best, :n_left]
        if right_is_leaf:
            to_right[0] = order[best, n_left:]
        if not (left_is_leaf and right_is_leaf):
            goes_left[order[best, :n_left]] = True
            for j in range(n_features):
                a = 0
                b = 0
                for r in order[j]:
                    if goes_left[r]:
                        if not left_is_leaf:
                            to_left[j, a] = r
                        a += 1
                    else:
                        if not right_is_leaf:
                            to_right[j, b] = r
                        b += 1
            goes_left[order[best, :n_left]] = False
        child_path = path.copy()
        child_path[best] = True
        stack.append((to_right, child_path, node, False))
        stack.append((to_left, child_path, node, True))
    return (
        feature[:n_nodes],
        threshold[:n_nodes],
        left[:n_nodes],
        right[:n_nodes],
        label[:n_nodes],
        constrained,
    )


@dataclass(frozen=True)
class SortedColumns:
    """The columns of X and each column's argsort (rows by increasing value), computed once
    for all trees."""

    columns: np.ndarray
    order: np.ndarray

    @classmethod
    def of(cls, X: np.ndarray) -> "SortedColumns":
        X = np.asarray(X, dtype=float)
        return cls(
            columns=np.ascontiguousarray(X.T),
            order=np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T, dtype=np.intp),
        )


@dataclass
class BudgetLedger:
    """The features a forest has paid for under a hard budget, updated as trees grow: a split
    on a feature is eligible if the feature is paid for or what it adds (`costs.added`) fits
    the budget left (`budget - costs.total(paid)`)."""

    costs: FeatureCosts
    budget: float
    paid: np.ndarray
    constrained: bool = False
    """Whether the budget ruled out a split that impurity alone would have allowed."""

    @classmethod
    def empty(cls, costs, budget: float) -> "BudgetLedger":
        costs = FeatureCosts.of(costs)
        return cls(costs=costs, budget=budget, paid=np.zeros(costs.n_features, dtype=bool))


def grow_greedy_tree(
    X: np.ndarray,
    sorted_columns: SortedColumns,
    y: np.ndarray,
    draws: np.ndarray,
    costs: np.ndarray,
    *,
    alpha: float,
    cost_exponent: float,
    min_leaf: int,
    paid_features_free: bool,
    ledger: BudgetLedger | None = None,
    tie_label: int = 0,
) -> GreedyTree:
    """GreedyTree on the rows drawn `draws[r]` times (a bootstrap sample as counts).

    With a `ledger`, only splits the budget affords are eligible, features it has paid for
    cost 0, and every split on a new feature pays for it. Ties: features by lower ratio, then
    lower cost, then larger impurity decrease, then lower index; within a feature, the cut
    with the smallest pair product, then the lowest threshold. A leaf predicts the class with
    the most draws; a tie among classes goes to `tie_label` if it is among them, else the
    lowest. `y` holds class codes 0..K-1.

    The tree is grown by `_grow_tree`, compiled with numba (6-7x faster than the numpy code
    it replaced, with the same arithmetic: the same trees). It skips work that cannot change
    the tree: a child that will be a leaf is not sorted by every feature, and once the budget
    has ruled out a split, the cuts of features it cannot afford are not searched.
    """
    # Without a ledger the prices are `costs` and the ledger's arrays go unread.
    ledger_costs = FeatureCosts.of(ledger.costs if ledger is not None else costs)
    paid = ledger.paid if ledger is not None else np.zeros(X.shape[1], dtype=bool)
    feature, threshold, left, right, label, constrained = _grow_tree(
        sorted_columns.columns,
        sorted_columns.order,
        np.asarray(y, dtype=np.intp),
        np.asarray(draws, dtype=np.int64),
        class_count(y),
        float(alpha),
        float(cost_exponent),
        int(min_leaf),
        int(tie_label),
        np.asarray(costs, dtype=float),
        bool(paid_features_free),
        ledger is not None,
        float(ledger.budget) if ledger is not None else np.inf,
        paid,
        ledger_costs.own,
        ledger_costs.group.astype(np.intp),
        ledger_costs.shared,
        ledger is not None and ledger.constrained,
    )
    if ledger is not None:
        ledger.constrained = constrained
    return GreedyTree(feature=feature, threshold=threshold, left=left, right=right, label=label)


def bootstrap_draws(seed: int, n_trees: int, n_rows: int) -> np.ndarray:
    """Row t: how often each row is drawn into tree t's bootstrap sample (trees x rows). The
    same for every alpha, cost exponent and budget, so `grow_budget_forests` draws them once
    for all their forests: drawing them again for each took about 5% of a selection."""
    draws = np.empty((n_trees, n_rows), dtype=np.int64)
    for tree in range(n_trees):
        rng = np.random.default_rng(derive_seed(seed, "budget_rf", "tree", tree))
        draws[tree] = np.bincount(rng.integers(0, n_rows, size=n_rows), minlength=n_rows)
    return draws


@dataclass(frozen=True)
class BudgetForest:
    """The trees of one (alpha, cost exponent) in the order they were added, with per-prefix
    summaries: entry k of each array describes the forest of the first k trees."""

    alpha: float
    cost_exponent: float
    trees: list[GreedyTree]
    union_cost: np.ndarray
    oob_mmce: np.ndarray
    acquisition_cost: np.ndarray
    constrained: bool = False
    """Grown under a hard budget that ruled out some split (else it is the forest of every
    larger budget too)."""

    def trees_within(self, budget: float) -> int:
        """The number of leading trees whose features fit `budget`."""
        return int(np.searchsorted(self.union_cost, budget + BUDGET_TOLERANCE, side="right")) - 1

    def features(self, n_trees: int) -> np.ndarray:
        used = [tree.used_features() for tree in self.trees[:n_trees]]
        return np.unique(np.concatenate([np.empty(0, dtype=np.intp), *used]))


def _vote_error(class_votes, y, tie_label) -> float:
    """MMCE of majority votes (`winning_classes`) over the rows that have at least one vote."""
    voted = class_votes.sum(axis=1) > 0
    if not voted.any():
        return float(np.mean(y != tie_label))
    return float(np.mean(winning_classes(class_votes[voted], tie_label) != y[voted]))


def grow_budget_forest(
    X: np.ndarray,
    y: np.ndarray,
    costs,
    alpha: float,
    *,
    budget: float,
    seed: int,
    cost_exponent: float,
    hard_budget: bool,
    n_trees_max: int,
    min_leaf: int,
    paid_features_free: bool,
    sorted_columns: SortedColumns | None = None,
    draws: np.ndarray | None = None,
) -> BudgetForest:
    """Trees for one (alpha, cost exponent) within `budget`: grown within what is left of it
    (`hard_budget`), or added while the union of their features fits it (the literal rule).

    The OOB error of the first k trees is over the training rows out of bag for at least one
    of them (the majority class's error for k = 0); tied votes go to the majority class.
    `sorted_columns` and `draws` (`bootstrap_draws`) may be passed in when computed once for
    several forests.
    """
    n_rows = X.shape[0]
    if sorted_columns is None:
        sorted_columns = SortedColumns.of(X)
    if draws is None:
        draws = bootstrap_draws(seed, n_trees_max, n_rows)
    tie_label = majority_class(y)
    costs = FeatureCosts.of(costs)
    ledger = BudgetLedger.empty(costs, budget) if hard_budget else None
    # The literal rule prices a feature as if it were used alone.
    static_costs = costs.standalone()
    used = np.zeros(X.shape[1], dtype=bool)
    acquired = np.zeros(X.shape, dtype=bool)
    class_votes = np.zeros((n_rows, class_count(y)), dtype=np.int64)
    trees = []
    union_cost, oob_mmce, acquisition_cost = [0.0], [_vote_error(class_votes, y, tie_label)], [0.0]
    for index in range(n_trees_max):
        tree = grow_greedy_tree(
            X,
            sorted_columns,
            y,
            draws[index],
            static_costs,
            alpha=alpha,
            cost_exponent=cost_exponent,
            min_leaf=min_leaf,
            paid_features_free=paid_features_free,
            ledger=ledger,
            tie_label=tie_label,
        )
        with_tree = used.copy()
        with_tree[tree.used_features()] = True
        cost = costs.total(np.flatnonzero(with_tree))
        if cost > budget + BUDGET_TOLERANCE:
            break
        used = with_tree
        trees.append(tree)
        predicted = tree.route(X, acquired)
        out_of_bag = np.flatnonzero(draws[index] == 0)
        class_votes[out_of_bag, predicted[out_of_bag]] += 1
        union_cost.append(cost)
        oob_mmce.append(_vote_error(class_votes, y, tie_label))
        acquisition_cost.append(float(costs.row_totals(acquired).mean()))
    return BudgetForest(
        alpha=float(alpha),
        cost_exponent=float(cost_exponent),
        trees=trees,
        union_cost=np.array(union_cost),
        oob_mmce=np.array(oob_mmce),
        acquisition_cost=np.array(acquisition_cost),
        constrained=ledger is not None and ledger.constrained,
    )


def grow_budget_forests(
    X: np.ndarray,
    y: np.ndarray,
    costs,
    budgets: Sequence[float],
    alphas: Sequence[float],
    *,
    seed: int,
    cost_exponents: Sequence[float],
    hard_budget: bool,
    n_trees_max: int,
    min_leaf: int,
    paid_features_free: bool,
    n_jobs: int = 1,
) -> dict[tuple[float, float, float], tuple[BudgetForest, int]]:
    """(alpha, cost exponent, budget) -> (forest, number of its leading trees the budget takes),
    for every combination; the (alpha, cost exponent) pairs are grown `n_jobs` at a time (the
    result does not depend on it)."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y).astype(np.intp)
    costs = FeatureCosts.of(costs)
    sorted_columns = SortedColumns.of(X)
    options = dict(
        seed=seed,
        hard_budget=hard_budget,
        n_trees_max=n_trees_max,
        min_leaf=min_leaf,
        paid_features_free=paid_features_free,
        sorted_columns=sorted_columns,
        draws=bootstrap_draws(seed, n_trees_max, X.shape[0]),
    )

    def forests_of(alpha: float, exponent: float) -> dict:
        if not hard_budget:
            shared = grow_budget_forest(
                X, y, costs, alpha, budget=max(budgets), cost_exponent=exponent, **options
            )
            return {budget: (shared, shared.trees_within(budget)) for budget in budgets}
        forests = {}
        unconstrained = None
        for budget in sorted(budgets):
            forest = unconstrained or grow_budget_forest(
                X, y, costs, alpha, budget=budget, cost_exponent=exponent, **options
            )
            if not forest.constrained:
                unconstrained = forest
            forests[budget] = (forest, len(forest.trees))
        return forests

    pairs = [(float(alpha), float(exponent)) for alpha in alphas for exponent in cost_exponents]
    grown = []
    with progress_bar("BudgetRF (alpha, exponent) forests", total=len(pairs)) as shown:
        for forests in Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
            delayed(forests_of)(alpha, exponent) for alpha, exponent in pairs
        ):
            grown.append(forests)
            shown.update(1)
    return {
        (alpha, exponent, budget): entry
        for (alpha, exponent), forests in zip(pairs, grown, strict=True)
        for budget, entry in forests.items()
    }


ForestKey = tuple[float, float, float]
"""(alpha, cost exponent, budget) of a stored forest."""


def forests_to_arrays(
    forests: Mapping[ForestKey, Sequence[GreedyTree]], tie_label: int
) -> dict[str, np.ndarray]:
    """The forests as flat arrays for `np.savez`: forest f has key (`alpha[f]`,
    `cost_exponent[f]`, `budget[f]`) and the next `n_trees[f]` trees; tree t has nodes
    `node_start[t]:node_start[t+1]` (child indices within the tree). `tie_label` is the
    training majority class, which takes tied votes."""
    trees = [tree for forest in forests.values() for tree in forest]

    def joined(name, dtype):
        parts = [getattr(tree, name) for tree in trees]
        return np.concatenate([np.empty(0, dtype=dtype), *parts]).astype(dtype)

    keys = np.array(list(forests), dtype=float).reshape(-1, 3)
    return {
        "alpha": keys[:, 0],
        "cost_exponent": keys[:, 1],
        "budget": keys[:, 2],
        "n_trees": np.array([len(forest) for forest in forests.values()], dtype=np.int64),
        "node_start": np.cumsum([0] + [tree.feature.size for tree in trees], dtype=np.int64),
        "node_feature": joined("feature", np.int32),
        "node_threshold": joined("threshold", float),
        "node_left": joined("left", np.int32),
        "node_right": joined("right", np.int32),
        "node_label": joined("label", np.int8),
        "tie_label": np.array(tie_label),
    }


@numba.njit(cache=True, nogil=True)
def _forest_votes(
    X,
    feature,
    threshold,
    left,
    right,
    label,
    node_start,
    first_tree,
    last_tree,
    n_classes,
    acquired,
):
    """Class vote counts on the rows of X (rows x n_classes) of trees first_tree..last_tree-1
    of a `forests_to_arrays` forest, as `GreedyTree.route` routes them; sets acquired[r, j]
    for every feature j evaluated on row r's paths."""
    votes = np.zeros((X.shape[0], n_classes), dtype=np.int64)
    for tree in range(first_tree, last_tree):
        root = node_start[tree]
        for row in range(X.shape[0]):
            votes[row, label[_leaf(X, row, root, feature, threshold, left, right, acquired)]] += 1
    return votes


def ensemble_test_metrics(
    forests: Mapping[str, np.ndarray], X_test: np.ndarray, y_test: np.ndarray, costs
) -> "pd.DataFrame":
    """Each stored forest's own test MMCE (majority vote, ties to the training majority class)
    and expected acquisition cost per test row: columns `value` (alpha), `cost_exponent`,
    `budget`, `ensemble_test_mmce`, `ensemble_test_acquisition_cost` -- joined to a selection
    on its first three.

    `forests` is the array dict `select` keeps (`forests_to_arrays`).
    """
    # Only the evaluation stage, which reads tables anyway, needs pandas here.
    import pandas as pd

    X_test = np.ascontiguousarray(X_test, dtype=float)
    y_test = np.asarray(y_test)
    costs = FeatureCosts.of(costs)
    tie_label = int(forests["tie_label"])
    # Wide enough for every label a leaf can predict.
    n_classes = max(tie_label, int(np.max(forests["node_label"], initial=0))) + 1
    first = np.cumsum(np.concatenate([[0], forests["n_trees"]]))
    keys = zip(forests["alpha"], forests["cost_exponent"], forests["budget"], strict=True)
    rows = []
    for f, (alpha, exponent, budget) in enumerate(keys):
        acquired = np.zeros(X_test.shape, dtype=bool)
        class_votes = _forest_votes(
            X_test,
            forests["node_feature"],
            forests["node_threshold"],
            forests["node_left"],
            forests["node_right"],
            forests["node_label"],
            forests["node_start"],
            first[f],
            first[f + 1],
            n_classes,
            acquired,
        )
        predicted = winning_classes(class_votes, tie_label)
        rows.append(
            {
                "value": float(alpha),
                "cost_exponent": float(exponent),
                "budget": float(budget),
                "ensemble_test_mmce": float(np.mean(predicted != y_test)),
                "ensemble_test_acquisition_cost": float(costs.row_totals(acquired).mean()),
            }
        )
    return pd.DataFrame(rows)


class BudgetRF(Method):
    summary = (
        "BudgetRF (Nan et al.): GreedyTrees with the threshold-Pairs impurity and minimax "
        "splits weighted by cost^ξ on bootstrap samples, each grown within what is left of the "
        "budget; (α, ξ) tuned by OOB error. `runs.parquet` also gets `cost_exponent` and the "
        "ensemble's own `ensemble_oob_mmce`, `ensemble_test_mmce` and expected per-example "
        "acquisition cost (`expected_acquisition_cost` on training rows, "
        "`ensemble_test_acquisition_cost` on test rows)"
    )
    hyperparameter = Hyperparameter(
        "alpha",
        number(minimum=0),
        default=0.0,
        help="threshold of the Pairs impurity, in class counts: larger alpha gives shallower, "
        "cheaper trees",
        grid=(0, 2, 4, 6, 8, 10, 15, 25, 35, 45),
    )
    parameters = (
        Parameter(
            "cost_exponents",
            numbers(),
            [0, 0.5, 1],
            "exponents ξ of the split rule c(t)^ξ / impurity decrease (1: the authors' rule, "
            "0: cost-agnostic), tuned together with alpha (the selector takes the pair with "
            "the lowest ensemble OOB error)",
        ),
        Parameter(
            "hard_budget",
            boolean(),
            True,
            "grow every tree within what is left of the budget, paid features free; false: "
            "the literal adaptation, trees added while the union of their features fits",
        ),
        Parameter("n_trees_max", integer(), 40, "at most this many GreedyTrees"),
        Parameter("min_leaf", integer(), 1, "smallest leaf (in bootstrap draws)"),
        Parameter(
            "paid_features_free",
            boolean(),
            False,
            "literal adaptation only: a feature already used on the path to a node costs 0 "
            "there (the authors' code keeps costs static)",
        ),
    )
    missing_values = (
        "declared: a missing value counts as lower than every value, so a GreedyTree "
        "split puts it with the lowest values or splits it off (on test rows too)"
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
        cost_exponents,
        hard_budget,
        n_trees_max,
        min_leaf,
        paid_features_free,
    ):
        """Per (alpha, cost exponent, budget): the sorted `features` of the forest's trees
        that fit, `cost_exponent`, `ensemble_trees`, `ensemble_oob_mmce`,
        `expected_acquisition_cost`; the forests are kept as arrays (`forests_to_arrays`)."""
        costs = FeatureCosts.of(costs)
        grown = grow_budget_forests(
            missing_as_lowest(X),
            y,
            costs,
            budgets,
            grid,
            seed=seed,
            cost_exponents=cost_exponents,
            hard_budget=hard_budget,
            n_trees_max=n_trees_max,
            min_leaf=min_leaf,
            paid_features_free=paid_features_free,
            n_jobs=n_jobs,
        )
        records, kept = [], {}
        for alpha in grid:
            for exponent in cost_exponents:
                for budget in budgets:
                    key = (float(alpha), float(exponent), float(budget))
                    forest, k = grown[key]
                    kept[key] = forest.trees[:k]
                    records.append(
                        {
                            "value": alpha,
                            "budget": budget,
                            "features": forest.features(k),
                            "cost_exponent": float(exponent),
                            "ensemble_trees": k,
                            "ensemble_oob_mmce": float(forest.oob_mmce[k]),
                            "expected_acquisition_cost": float(forest.acquisition_cost[k]),
                        }
                    )
        tie_label = majority_class(np.asarray(y).astype(np.intp))
        return Selection(records, forests_to_arrays(kept, tie_label))

    def choose_record(self, records):
        """The cost exponent with the lowest ensemble OOB error (ties: lower cost, then lower
        exponent)."""
        return min(
            records,
            key=lambda r: (
                r["ensemble_oob_mmce"],
                r["expected_acquisition_cost"],
                r["cost_exponent"],
            ),
        )

    def evaluation_columns(self, selection, artifacts, X_test, y_test, costs):
        """Each selection's forest's own test MMCE and acquisition cost per test row."""
        metrics = ensemble_test_metrics(artifacts, missing_as_lowest(X_test), y_test, costs)
        keys = ["value", "cost_exponent", "budget"]
        joined = (
            selection[keys]
            .astype(float)
            .merge(metrics, on=keys, how="left", validate="many_to_one")
        )
        return joined.drop(columns=keys)


__getattr__ = BudgetRF.selector("BudgetRFSelector")
