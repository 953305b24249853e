"""The penalised forest's compiled kernels (`costfs.methods.rf_penalized`), which the method
imports where it grows a forest, so loading it (planning a study, aggregating its results)
does not import numba."""

import numba
import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, NO_GROUP

NO_SPLIT = -1


@numba.njit(cache=True, nogil=True)
def best_split(X, y, n_classes, weights, rows, candidates, factors):
    """The split of rows `rows` (bootstrap weights `weights[row]`) of largest penalised weighted
    Gini decrease over the `candidates` (in draw order; `factors` their penalties): (feature,
    threshold, penalised decrease), feature NO_SPLIT where no candidate varies. The decrease of
    a split is sum_side (sum_k w_k^2) / w_side - (sum_k w_k^2) / w_node, in the weights w."""
    class_weights = np.zeros(n_classes)
    for row in rows:
        class_weights[y[row]] += weights[row]
    total = class_weights.sum()
    node_squares = (class_weights**2).sum() / total
    best_feature, best_threshold, best_score = NO_SPLIT, 0.0, -np.inf
    left = np.zeros(n_classes)
    for c in range(candidates.size):
        feature = candidates[c]
        values = X[rows, feature]
        order = np.argsort(values, kind="mergesort")
        left[:] = 0.0
        left_total, left_squares = 0.0, 0.0
        right_squares = (class_weights**2).sum()
        for q in range(order.size - 1):
            row = rows[order[q]]
            weight, k = weights[row], y[row]
            left_squares += 2.0 * left[k] * weight + weight * weight
            right_squares += weight * weight - 2.0 * (class_weights[k] - left[k]) * weight
            left[k] += weight
            left_total += weight
            value, following = values[order[q]], values[order[q + 1]]
            if value == following:
                continue
            decrease = (
                left_squares / left_total + right_squares / (total - left_total) - node_squares
            )
            score = factors[c] * decrease
            if score > best_score:
                midpoint = (value + following) / 2.0
                best_feature, best_score = feature, score
                best_threshold = value if midpoint >= following else midpoint
    return best_feature, best_threshold, best_score


@numba.njit(cache=True, nogil=True)
def _added_cost(feature, paid, group_paid, own, group, shared):
    if paid[feature]:
        return 0.0
    cost = own[feature]
    if group[feature] != NO_GROUP and not group_paid[group[feature]]:
        cost += shared[group[feature]]
    return cost


@numba.njit(cache=True, nogil=True)
def grow_forest(
    X, y, n_classes, seeds, mtry, own, group, shared, budget, xi, cost_min, regularization
):
    """The features a penalised forest under `budget` splits on (a bool per feature). The
    trees grow together, level by level (every tree's root, then every tree's nodes of depth
    1, ...), so the budget is spent by the forest's upper splits before any tree's deep ones
    (see the module doc)."""
    n_rows, n_features = X.shape
    n_trees = seeds.size
    paid = np.zeros(n_features, dtype=np.bool_)
    group_paid = np.zeros(shared.size, dtype=np.bool_)
    spent = 0.0
    eligible = np.empty(n_features, dtype=np.int64)
    factors = np.empty(n_features)
    weights = np.zeros((n_trees, n_rows))
    samples = np.empty((n_trees, n_rows), dtype=np.int64)
    # A level's nodes: tree, range of the tree's `samples`, and the node's number in its tree.
    # A level's nodes of one tree hold disjoint, non-empty parts of its sample.
    size = n_trees * n_rows
    level = np.empty((size, 4), dtype=np.int64)
    following = np.empty((size, 4), dtype=np.int64)
    n_level = 0
    for tree in range(n_trees):
        np.random.seed(seeds[tree])
        for _ in range(n_rows):
            weights[tree, np.random.randint(0, n_rows)] += 1.0
        in_bag = np.flatnonzero(weights[tree])
        samples[tree, : in_bag.size] = in_bag
        level[n_level, 0], level[n_level, 1], level[n_level, 2] = tree, 0, in_bag.size
        level[n_level, 3] = 0
        n_level += 1
    n_nodes = np.ones(n_trees, dtype=np.int64)
    while n_level:
        n_following = 0
        for position in range(n_level):
            tree, start, end, node = level[position]
            rows = samples[tree, start:end]
            first_label = y[rows[0]]
            pure = True
            for row in rows:
                if y[row] != first_label:
                    pure = False
                    break
            if pure:
                continue
            # Each node draws from a generator of its own: a node's candidates do not depend
            # on the other trees' nodes processed before it.
            np.random.seed((seeds[tree] + node * 2654435761) % 4294967296)
            n_eligible = 0
            for feature in range(n_features):
                added = _added_cost(feature, paid, group_paid, own, group, shared)
                if paid[feature] or spent + added <= budget + BUDGET_TOLERANCE:
                    eligible[n_eligible] = feature
                    n_eligible += 1
            n_candidates = min(mtry, n_eligible)
            for c in range(n_candidates):
                swap = c + np.random.randint(0, n_eligible - c)
                eligible[c], eligible[swap] = eligible[swap], eligible[c]
                added = _added_cost(eligible[c], paid, group_paid, own, group, shared)
                if paid[eligible[c]] or added <= 0.0:
                    factors[c] = 1.0
                else:
                    factors[c] = regularization * min(1.0, (cost_min / added) ** xi)
            feature, threshold, _ = best_split(
                X,
                y,
                n_classes,
                weights[tree],
                rows,
                eligible[:n_candidates],
                factors[:n_candidates],
            )
            if feature == NO_SPLIT:
                continue
            if not paid[feature]:
                spent += _added_cost(feature, paid, group_paid, own, group, shared)
                paid[feature] = True
                if group[feature] != NO_GROUP:
                    group_paid[group[feature]] = True
            low, high = start, end - 1
            while low <= high:
                if X[samples[tree, low], feature] <= threshold:
                    low += 1
                else:
                    samples[tree, low], samples[tree, high] = (
                        samples[tree, high],
                        samples[tree, low],
                    )
                    high -= 1
            for child_start, child_end in ((start, low), (low, end)):
                following[n_following, 0], following[n_following, 1] = tree, child_start
                following[n_following, 2] = child_end
                following[n_following, 3] = n_nodes[tree]
                n_nodes[tree] += 1
                n_following += 1
        level, following = following, level
        n_level = n_following
    return paid
