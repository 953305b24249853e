"""Cost-efficient gradient boosting (CEGB; Peter et al. 2017, as in LightGBM) under a hard budget.

LightGBM's CEGB charges a split on a feature the forest has not used yet its "coupled" penalty
times `cegb_tradeoff`, against the split's gain: the features' costs as coupled penalties make
the boosted model pay for each feature once, as a buyer does. LightGBM has no budget, so per
budget the tradeoff is searched:

- the costs: each feature's cost on its own (its group's shared cost included), as for the
  filters; LightGBM's penalty is per feature, so two features of one group each carry the
  group's cost in the penalty, while the budget is checked on the true cost of the set (each
  group's shared cost once);
- tradeoff 0 is plain gradient boosting; if the features it uses fit, they are the selection.
  Otherwise a bracket: the smallest tradeoff already fit (for an earlier budget) whose used
  set fits and the largest below it that does not, or else tradeoffs doubled from 1 (halved,
  while they still fit) until one fits and one does not; then `n_bisections` bisections on the
  log scale. The selection is the used set of the smallest tradeoff found within the budget.
  A large enough tradeoff uses no feature at all;
- every fit is memoised by its tradeoff, so the budgets of one `select` share fits;
- the model: `n_estimators` trees of at most `num_leaves` leaves, learning rate
  `learning_rate`, LightGBM's defaults otherwise, seeded, on the job's threads with
  `deterministic=True` (and column-wise histograms), which LightGBM documents to give the same
  model on any thread count: the same selection on any machine. More than two
  classes: LightGBM's multiclass objective (a feature is used when any class's tree splits on
  it).

CEGB has no benefit-cost exponent: its one strategy is `fixed`.
"""

import math

import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.core.extras import import_optional
from costfs.core.seeds import derive_seed
from costfs.methods._base import Method, Parameter, Selection, integer, number

MAX_DOUBLINGS = 64
"""Doublings of the tradeoff before giving up on a model within the budget (2^64 times the
largest cost outweighs any gain of a split)."""


class UsedFeatures:
    """The features LightGBM's CEGB uses at each tradeoff on one training set, memoised."""

    def __init__(self, X, y, costs, *, seed, n_estimators, num_leaves, learning_rate, n_jobs=1):
        self.lightgbm = import_optional("lightgbm", extra="related", needed_by="method cegb")
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y)
        self.penalties = FeatureCosts.of(costs).standalone().tolist()
        self.model = dict(
            n_estimators=int(n_estimators),
            num_leaves=int(num_leaves),
            learning_rate=float(learning_rate),
            random_state=seed % 2**31,
            n_jobs=int(n_jobs),
            deterministic=True,
            force_col_wise=True,
            verbose=-1,
        )
        self.memo: dict[float, np.ndarray] = {}

    def __call__(self, tradeoff: float) -> np.ndarray:
        """Sorted indices of the features the model at `tradeoff` splits on."""
        if tradeoff not in self.memo:
            model = self.lightgbm.LGBMClassifier(
                **self.model,
                cegb_tradeoff=float(tradeoff),
                cegb_penalty_feature_coupled=self.penalties,
            ).fit(self.X, self.y)
            splits = model.booster_.feature_importance(importance_type="split")
            self.memo[tradeoff] = np.flatnonzero(splits > 0)
        return self.memo[tradeoff]


def within_budget(used: UsedFeatures, costs, budget: float, n_bisections: int) -> tuple:
    """The used features of the smallest tradeoff found whose set fits `budget`, and that
    tradeoff (see the module doc). The bracket starts from the tradeoffs already fit."""
    costs = FeatureCosts.of(costs)

    def fits(tradeoff: float) -> bool:
        return costs.total(used(tradeoff)) <= budget + BUDGET_TOLERANCE

    if fits(0.0):
        return used(0.0), 0.0
    # Bracket: `over` (> 0) does not fit, `within` does.
    known = sorted(used.memo)
    within = min((t for t in known if t > 0 and fits(t)), default=None)
    over = max(
        (t for t in known if t > 0 and not fits(t) and t < (within or math.inf)), default=None
    )
    for _ in range(MAX_DOUBLINGS):
        if within is None:
            candidate = 2 * over if over is not None else 1.0
            if fits(candidate):
                within = candidate
            else:
                over = candidate
        elif over is None:
            if fits(within / 2):
                within /= 2
            else:
                over = within / 2
        else:
            break
    if within is None:
        return np.array([], dtype=int), math.inf
    if over is None:
        return used(within), within
    for _ in range(n_bisections):
        middle = math.sqrt(over * within)
        if fits(middle):
            within = middle
        else:
            over = middle
    return used(within), within


class CostEfficientBoostingSelector(Method):
    summary = (
        "LightGBM's cost-efficient gradient boosting, the costs as coupled feature penalties; "
        "per budget the tradeoff bisected until the used features fit"
    )
    parameters = (
        Parameter("n_estimators", integer(), 100, "boosting rounds of the LightGBM model"),
        Parameter("num_leaves", integer(minimum=2), 31, "leaves per tree of the LightGBM model"),
        Parameter(
            "learning_rate", number(exclusive_minimum=0), 0.1, "learning rate of the LightGBM model"
        ),
        Parameter(
            "n_bisections",
            integer(minimum=0),
            8,
            "bisections of cegb_tradeoff per budget (log scale) once it is bracketed",
        ),
    )
    missing_values = "native: LightGBM learns each split's side for missing values"
    parallel_selection = True  # LightGBM's histograms on the job's threads
    colour = "#B15928"

    def select(
        self,
        X,
        y,
        costs,
        budgets,
        grid,
        context,
        *,
        n_estimators,
        num_leaves,
        learning_rate,
        n_bisections,
    ):
        """Per budget: the used features of the smallest tradeoff within it
        (`cegb_tradeoff`; inf where even the model without features does not fit, which
        cannot happen with non-negative costs) and the `unused_budget`."""
        used = UsedFeatures(
            X,
            y,
            costs,
            seed=derive_seed(context.seed, "cegb"),
            n_estimators=n_estimators,
            num_leaves=num_leaves,
            learning_rate=learning_rate,
            n_jobs=context.n_jobs,
        )
        records = []
        for budget in budgets:
            features, tradeoff = within_budget(used, costs, budget, n_bisections)
            records.append(
                {
                    "value": math.nan,
                    "budget": budget,
                    "features": features,
                    "cegb_tradeoff": tradeoff,
                    "unused_budget": float(budget - FeatureCosts.of(costs).total(features)),
                }
            )
        return Selection(records)
