"""Permutation-importance filter (RF paper, section 2.3): rank by pFI / c^xi, fill the budget."""

import numpy as np

from costfs.bcr import filter_selections
from costfs.importance import permutation_importance
from costfs.selector import CostConstrainedSelector

HYPERPARAMETER = "xi"
STRATEGIES = ("agnostic", "simple", "tuned")


def prepare(
    X: np.ndarray, y: np.ndarray, *, seed: int, n_trees: int = 1000, n_jobs: int = 1
) -> dict:
    return {"scores": permutation_importance(X, y, n_trees=n_trees, seed=seed, n_jobs=n_jobs)}


def select(
    X, y, costs, budgets, grid, *, prepared: dict, seed: int, n_trees: int = 1000, n_jobs: int = 1
) -> list:
    return filter_selections(prepared["scores"], costs, budgets, grid)


class PermutationImportanceFilter(CostConstrainedSelector):
    """Cost-constrained filter on OOB permutation importance of one Random Forest.

    Parameters: `feature_costs`, `budget`, `xi` as for `AUCFilter`; `n_trees` of the forest
    (1000); `random_state` seeds the forest and the permutations; `precomputed`
    (`{"scores": ...}` from `prepare`) skips the forest; `n_jobs` threads grow and permute the
    trees (the result does not depend on it).
    """

    _method_name = "pfi"

    def __init__(
        self,
        feature_costs=None,
        budget=1.0,
        xi=1.0,
        n_trees=1000,
        random_state=None,
        precomputed=None,
        n_jobs=1,
    ):
        self.feature_costs = feature_costs
        self.budget = budget
        self.xi = xi
        self.n_trees = n_trees
        self.random_state = random_state
        self.precomputed = precomputed
        self.n_jobs = n_jobs
