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

import numpy as np

from costfs.core.costs import FeatureCosts
from costfs.core.seeds import derive_seed
from costfs.engine.forest import class_count
from costfs.methods._base import XI, Method, Parameter, Selection, integer, number, or_null


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
    from costfs.methods._penalized_trees import grow_forest

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


class PenalisedForestSelector(Method):
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

    def select(self, X, y, costs, budgets, grid, context, *, n_trees, regularization, max_features):
        """Per (xi, budget): the features its forest splits on; the forests of the pairs grow
        `n_jobs` at a time (each alone is sequential: a node's budget depends on the nodes
        before it)."""
        pairs = [(xi, budget) for xi in grid for budget in budgets]
        forest_seed = derive_seed(context.seed, "rf_penalized")

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

        with ThreadPoolExecutor(max_workers=max(1, context.n_jobs)) as pool:
            selected = list(pool.map(grow, pairs))
        records = [
            {"value": xi, "budget": budget, "features": features}
            for (xi, budget), features in zip(pairs, selected, strict=True)
        ]
        return Selection(records)
