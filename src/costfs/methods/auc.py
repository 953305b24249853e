"""AUC filter (RF paper, section 2.2): rank by 2|AUC - 0.5| / c^xi, fill the budget."""

import numpy as np

from costfs.bcr import filter_selections
from costfs.importance import auc_scores
from costfs.selector import CostConstrainedSelector

HYPERPARAMETER = "xi"
STRATEGIES = ("agnostic", "simple", "tuned")


def prepare(X: np.ndarray, y: np.ndarray, *, seed: int, n_jobs: int = 1) -> dict:
    return {"scores": auc_scores(X, y)}


def select(X, y, costs, budgets, grid, *, prepared: dict, seed: int, n_jobs: int = 1) -> list:
    return filter_selections(prepared["scores"], costs, budgets, grid)


class AUCFilter(CostConstrainedSelector):
    """Cost-constrained univariate AUC filter.

    Parameters: `feature_costs` (one positive cost per column), `budget` (maximal summed cost),
    `xi` (benefit-cost trade-off; 0 ignores costs except as the constraint), `random_state`
    (unused: the filter is deterministic), `precomputed` (`{"scores": ...}` from `prepare`).
    """

    _method_name = "auc"

    def __init__(self, feature_costs=None, budget=1.0, xi=1.0, random_state=None, precomputed=None):
        self.feature_costs = feature_costs
        self.budget = budget
        self.xi = xi
        self.random_state = random_state
        self.precomputed = precomputed
