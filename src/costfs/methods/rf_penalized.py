"""A cost-penalised Random Forest under a hard budget: regularised random forests (RRF; Deng and
Runger 2012, ranger's `regularization.factor`) with cost-based penalties.

ranger multiplies the impurity decrease of a split on a feature the forest has not used yet by
the feature's regularization factor in [0, 1]; researchers set the factors from the costs, so
the forest reuses features it has paid for. Here the factor is the benefit-cost exponent's:

- a split on an unpaid feature j has its weighted Gini decrease multiplied by
  `regularization` * min(1, (c_min / c_j)^xi), c_j what j adds to the features paid so far
  (its own cost, plus its group's shared cost while no feature of the group is paid), c_min the
  smallest positive cost of a feature on its own; a paid or free feature's split is not
  penalised. `regularization` is RRF's cost-free penalty of a new feature (ranger's factor for
  all features; 1: none), xi the cost's weight, tuned like the filters'. At xi = 0 the costs
  act only through the budget;
- the hard budget, as BudgetRF's (`costfs.methods.budget_rf`): the forest's paid features
  accumulate as it grows, and a node draws its `max_features` candidates (default
  floor(sqrt(p))) only among the features that are paid or whose added cost fits what is left
  of the budget; a node without such a candidate that varies is a leaf. The trees grow
  together level by level (every root, then every node of depth 1, ...): grown one after
  another to purity, the first tree's deep nodes, which split a few rows on whatever varies,
  would spend the budget before the other trees' roots are split;
- the trees otherwise ranger's classification trees: a bootstrap sample of n draws, splits of
  largest (penalised) weighted Gini decrease at thresholds midway between consecutive distinct
  values (ties: the earlier candidate, then the lower threshold), grown until pure;
- the selection is the set of features the forest splits on. Tree t of every (xi, budget) uses
  the same bootstrap sample (seeded from (seed, t)); each node draws its candidates from a
  generator seeded from the tree's seed and the node's number in its tree.

A missing value becomes the column's mean (the trees here have no rule of their own for it).
"""

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from costfs.core.costs import NO_GROUP, FeatureCosts
from costfs.core.seeds import derive_seed
from costfs.engine.forest import class_count
from costfs.methods._base import XI, Method, Parameter, Selection, integer, number, or_null
from costfs.methods._bcr import BUDGET_TOLERANCE

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


def penalised_forest_features(
    X,
    y,
    costs,
    budget: float,
    xi: float,
    *,
    n_trees: int,
    max_features,
    regularization: float,
    seed: int,
) -> np.ndarray:
    """Sorted indices of the features a penalised forest under `budget` splits on."""
    costs = FeatureCosts.of(costs)
    X = np.asarray(X, dtype=float)
    if np.isnan(X).any():
        X = np.where(np.isnan(X), np.nanmean(X, axis=0), X)
        X = np.nan_to_num(X)  # a column with no value at all
    y = np.unique(y, return_inverse=True)[1].astype(np.int64)
    standalone = costs.standalone()
    positive = standalone[standalone > 0]
    n_features = X.shape[1]
    mtry = max(1, int(np.sqrt(n_features))) if max_features is None else int(max_features)
    paid = grow_forest(
        np.ascontiguousarray(X),
        y,
        class_count(y),
        np.array([derive_seed(seed, "tree", t) for t in range(n_trees)], dtype=np.uint32),
        min(mtry, n_features),
        costs.own,
        costs.group,
        costs.shared,
        float(budget),
        float(xi),
        float(positive.min()) if positive.size else 1.0,
        float(regularization),
    )
    return np.flatnonzero(paid)


class PenalisedForest(Method):
    summary = (
        "Random Forest whose splits on features the forest has not paid for have their Gini "
        "decrease multiplied by λ·min(1, (c_min/c_j)^ξ) (RRF, ranger's regularization.factor), "
        "grown within the budget; the features it splits on"
    )
    hyperparameter = XI
    parameters = (
        Parameter("n_trees", integer(), 100, "trees of the penalised forest"),
        Parameter(
            "regularization",
            number(exclusive_minimum=0, maximum=1),
            0.5,
            "RRF's penalty of a feature the forest has not used yet, before its cost's (1: none)",
        ),
        Parameter(
            "max_features",
            or_null(integer()),
            None,
            "candidates drawn per node among the eligible features (null: floor(sqrt(p)))",
        ),
    )
    parallel_selection = True
    missing_values = "a missing value becomes the column's mean"
    colour = "#E7298A"

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
        n_trees,
        regularization,
        max_features,
    ):
        """Per (xi, budget): the features its forest splits on; the forests of the pairs grow
        `n_jobs` at a time (each alone is sequential: a node's budget depends on the nodes
        before it)."""
        pairs = [(xi, budget) for xi in grid for budget in budgets]
        forest_seed = derive_seed(seed, "rf_penalized")

        def grow(pair):
            xi, budget = pair
            return penalised_forest_features(
                X,
                y,
                costs,
                budget,
                xi,
                n_trees=n_trees,
                max_features=max_features,
                regularization=regularization,
                seed=forest_seed,
            )

        with ThreadPoolExecutor(max_workers=max(1, n_jobs)) as pool:
            selected = list(pool.map(grow, pairs))
        records = [
            {"value": xi, "budget": budget, "features": features}
            for (xi, budget), features in zip(pairs, selected, strict=True)
        ]
        return Selection(records)


__getattr__ = PenalisedForest.selector("PenalisedForestSelector")
