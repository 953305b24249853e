"""ReliefF (as compared in the FeatBoost paper, section 4.4.1): ReliefF scores with the mean as
threshold, as a cost-agnostic ranking filled to the budget.

Scores come from scikit-rebate's `ReliefF` (the package the FeatBoost paper used) with
`n_neighbors` = 10 nearest hits and misses, as in the paper, every training row used as a
reference instance; a feature with at most `categorical_threshold` distinct values is scored as
discrete. The scores are cost-free and deterministic: `prepare` computes them once per data set.
The threshold and the fill are XGB-FS's (`costfs.methods.xgb_fs`): with `threshold="mean"`
only features scoring at least the mean score are eligible, walked by decreasing score.
"""

import numpy as np
from skrebate import ReliefF

from costfs.methods import xgb_fs
from costfs.selector import CostConstrainedSelector

HYPERPARAMETER = None
STRATEGIES = ("fixed",)


def relieff_scores(
    X: np.ndarray,
    y: np.ndarray,
    *,
    n_neighbors: int = 10,
    categorical_threshold: int = 10,
    n_jobs: int = 1,
) -> np.ndarray:
    """ReliefF weight of every column (larger: separates the classes of near rows better)."""
    relief = ReliefF(
        n_neighbors=int(n_neighbors),
        categorical_threshold=int(categorical_threshold),
        label_type="binary",
        n_jobs=n_jobs,
    )
    relief.fit(np.asarray(X, dtype=float), np.asarray(y))
    return np.asarray(relief.feature_importances_, dtype=float)


def prepare(
    X: np.ndarray,
    y: np.ndarray,
    *,
    seed: int,
    n_neighbors: int = 10,
    categorical_threshold: int = 10,
    n_jobs: int = 1,
    **selection_parameters,
) -> dict:
    """ReliefF scores (deterministic: `seed` is unused). `selection_parameters` are ignored."""
    scores = relieff_scores(
        X, y, n_neighbors=n_neighbors, categorical_threshold=categorical_threshold, n_jobs=n_jobs
    )
    return {"scores": scores}


# ReliefF scores go through the same mean threshold and budget filling as XGB-FS importances.
select = xgb_fs.select


class ReliefFSelector(CostConstrainedSelector):
    """ReliefF under a budget: ReliefF scores, mean threshold, filled to the budget.

    Parameters: `feature_costs` (one positive cost per column), `budget` (maximal summed cost),
    `xi` (unused: the ranking ignores costs), `n_neighbors` (10 hits and misses, as in the
    FeatBoost paper), `categorical_threshold` (columns with at most this many distinct values
    are discrete), `threshold` ("mean": only features with at least the mean score; "none":
    the whole ranking), `random_state` (unused: ReliefF is deterministic), `precomputed`
    (`{"scores": ...}` from `prepare`), `n_jobs` processes of scikit-rebate.
    """

    _method_name = "relieff"

    def __init__(
        self,
        feature_costs=None,
        budget=1.0,
        xi=None,
        n_neighbors=10,
        categorical_threshold=10,
        threshold="mean",
        random_state=None,
        precomputed=None,
        n_jobs=1,
    ):
        self.feature_costs = feature_costs
        self.budget = budget
        self.xi = xi
        self.n_neighbors = n_neighbors
        self.categorical_threshold = categorical_threshold
        self.threshold = threshold
        self.random_state = random_state
        self.precomputed = precomputed
        self.n_jobs = n_jobs
