"""Cost-weighted L1 logistic regression: the regularisation path of sum_j c_j^xi |beta_j|, per
budget the largest support that fits.

The first model a practitioner reaches for when features have costs: an L1-logistic path on
standardised features whose penalty on each coefficient grows with its feature's cost.
Weighting the penalty of column j by w_j is the same as fitting the plain L1 path on column j
divided by w_j (the coefficient scales the other way), so the path is scikit-learn's L1
logistic regression (`costfs.methods._l1`) on the standardised columns divided by
w_j = c_j^xi:

- c_j is the feature's cost on its own (its group's shared cost included), as for the filters;
  a free feature's weight is a tenth of the cheapest paid feature's at every xi (0 would leave
  it unpenalised, which the solver cannot express): it fits every budget, so the path should
  take it before a paid feature of the same strength, even at xi = 0;
- xi = 0 is the plain L1 path: costs only as the constraint. xi is the hyperparameter, tuned
  like the filters' by the refit's OOB error;
- C runs from the smallest C with a non-empty model upwards in `cs_per_decade` steps per
  decade, and stops once the support holds every feature, C is `max_decades` decades above
  the start, or (two classes) before the first fit that takes `PATH_FIT_ITERATIONS`
  iterations: it has not converged, so its support is not the penalised optimum's, and on
  (nearly) separable data every larger C's fit stops there too. The path
  does not stop at the largest budget asked for: an L1 path's supports are not nested, so a
  support beyond a costly one can be cheap again, and a budget's set must not depend on
  which other budgets a call asks for;
- per budget: among the path's supports whose true cost (each group's shared cost once) fits,
  the one with the most features; a tie goes to the one met first (smaller C). None fits: the
  empty set;
- more than two classes: the multinomial path (saga); a feature is in the support when any
  class's coefficient on it is non-zero.

The standardisation and every fit are cost-free only at xi = 0, so there is no preparation.
A budget's set depends on the path only, so a fit's budget path (`path_`), which asks for the
selection at many budgets in turn, computes each xi's path once (`kept_paths_of`). With
`n_jobs` above 1 the xi values' paths are computed side by side in worker processes.
"""

import math

import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.core.seeds import derive_seed
from costfs.methods._base import XI, Method, Parameter, Selection, integer, number
from costfs.methods._kept import Kept, digest
from costfs.methods._l1 import l1_supports, smallest_c, standardised

FREE_WEIGHT_SHARE = 0.1
"""A free feature's penalty weight, as a share of the cheapest paid feature's."""


def penalty_weights(costs, xi: float) -> np.ndarray:
    """w_j = c_j^xi for each feature's cost on its own; a free feature's is `FREE_WEIGHT_SHARE`
    of the smallest paid one's (all free: all 1)."""
    standalone = FeatureCosts.of(costs).standalone()
    paid = standalone > 0
    if not paid.any():
        return np.ones(standalone.size)
    weights = np.ones(standalone.size)
    weights[paid] = standalone[paid] ** xi
    weights[~paid] = FREE_WEIGHT_SHARE * weights[paid].min()
    return weights


PATH_FIT_ITERATIONS = 100
"""liblinear iterations a fit of a two-class path may take (scikit-learn's default); a fit
that needs them all has not converged and ends the path. Converged fits take tens (at most
44 on the default study's data), and past the first unconverged C every fit runs to the
limit, so a higher limit only makes the path's last fit slower."""

kept_paths = Kept()
"""The regularisation paths of the last fits' xi values."""


def kept_paths_of(
    X: np.ndarray, y: np.ndarray, costs, xis, *, n_jobs: int = 1, **options
) -> list[list[np.ndarray]]:
    """`cost_weighted_path` of each xi in `xis`, each computed once for the same data, costs,
    xi and options among the last few asked for (`costfs.methods._kept`).

    With `n_jobs` above 1, the paths not kept run side by side in `n_jobs` worker processes,
    not threads: liblinear draws from one random state per process, seeded at the start of
    each fit, so two fits at once in one process would draw from each other's sequence. A
    worker's fits run one after another, so each path is the one a single process computes."""
    from joblib import Parallel, delayed, parallel_config

    costs = FeatureCosts.of(costs)
    keys = [
        digest(X, y, costs.own, costs.group, costs.shared, xi=float(xi), **options) for xi in xis
    ]

    # The kept paths are read before any new one is kept, which could push them out.
    paths = {key: kept_paths[key] for key in keys if key in kept_paths}
    missing = {key: xi for key, xi in zip(keys, xis, strict=True) if key not in paths}
    if n_jobs > 1 and len(missing) > 1:
        # liblinear uses no BLAS threads: a worker keeps to one, as the job does to its own.
        with parallel_config(backend="loky", inner_max_num_threads=1):
            new = Parallel(n_jobs=min(n_jobs, len(missing)))(
                delayed(cost_weighted_path)(X, y, costs, xi, **options) for xi in missing.values()
            )
    else:
        new = [cost_weighted_path(X, y, costs, xi, **options) for xi in missing.values()]
    for key, path in zip(missing, new, strict=True):
        kept_paths.keep(key, path)
        paths[key] = path
    return [paths[key] for key in keys]


def cost_weighted_path(
    X: np.ndarray,
    y: np.ndarray,
    costs,
    xi: float,
    *,
    cs_per_decade: int,
    max_decades: float,
    seed: int,
) -> list[np.ndarray]:
    """The supports (sorted column indices) along the path of penalty sum_j c_j^xi |beta_j| on
    the standardised X, in order of increasing C, each once; stops after the first support that
    holds every column, or before the first unconverged fit (see the module doc)."""
    costs = FeatureCosts.of(costs)
    weights = penalty_weights(costs, xi)
    scaled = standardised(X) / weights
    if not np.any(scaled):
        return []  # no column varies: every model is empty
    start = smallest_c(scaled, y)
    steps = np.arange(int(math.floor(max_decades * cs_per_decade)) + 1)
    Cs = start * 10.0 ** (steps / cs_per_decade)
    supports: list[np.ndarray] = []
    for support in l1_supports(
        scaled, y, Cs, random_state=seed % 2**31, until_iterations=PATH_FIT_ITERATIONS
    ):
        features = np.flatnonzero(support)
        supports.append(features)
        if features.size == X.shape[1]:
            break
    return supports


def largest_fitting(supports: list[np.ndarray], costs, budget: float) -> np.ndarray:
    """The support with the most features whose true cost fits `budget`, the first such on a
    tie; the empty set if none fits."""
    costs = FeatureCosts.of(costs)
    chosen = np.array([], dtype=int)
    for features in supports:
        if features.size > chosen.size and costs.total(features) <= budget + BUDGET_TOLERANCE:
            chosen = features
    return chosen


class CostWeightedL1Selector(Method):
    summary = (
        "L1-logistic regularisation path on standardised features with penalty Σ c_j^ξ·|β_j|; "
        "per budget the largest support that fits"
    )
    hyperparameter = XI
    parameters = (
        Parameter(
            "cs_per_decade", integer(), 25, "points of the regularisation path per decade of C"
        ),
        Parameter(
            "max_decades",
            number(exclusive_minimum=0),
            8,
            "the path ends at most this many decades of C above its sparsest non-empty model "
            "(earlier once its support holds every feature, or, with two classes, before a fit "
            f"that has not converged in {PATH_FIT_ITERATIONS} iterations)",
        ),
    )
    missing_values = "a missing value becomes the column's mean (0 after standardising)"
    colour = "#7570B3"
    exact_path = True
    parallel_selection = True

    def select(self, X, y, costs, budgets, grid, context, *, cs_per_decade, max_decades):
        """Per (xi, budget): the largest support of xi's path that fits the budget, and
        `path_models`, the distinct supports of the path."""
        paths = kept_paths_of(
            X,
            y,
            costs,
            grid,
            n_jobs=context.n_jobs,
            cs_per_decade=cs_per_decade,
            max_decades=max_decades,
            seed=derive_seed(context.seed, "l1_cost"),
        )
        records = []
        for xi, supports in zip(grid, paths, strict=True):
            for budget in budgets:
                records.append(
                    {
                        "value": xi,
                        "budget": budget,
                        "features": largest_fitting(supports, costs, budget),
                        "path_models": len(supports),
                    }
                )
        return Selection(records)
