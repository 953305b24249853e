"""BudgetRF's compiled kernels (`costfs.methods.budget_rf`): growing a GreedyTree and routing
rows through its trees. The method imports them where it grows or routes trees, so loading it
(planning a study, aggregating its results) does not import numba."""

import numba
import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, NO_GROUP
from costfs.methods._bcr import RATIO_TOLERANCE

LEAF = -1
"""`feature` of a leaf node."""


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
def tree_labels(X, feature, threshold, left, right, label, acquired):
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
def grow_tree(
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


@numba.njit(cache=True, nogil=True)
def forest_votes(
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
