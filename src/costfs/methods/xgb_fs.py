"""XGB-FS (FeatBoost paper, section 4.4.1): XGBoost gain importance with the mean as threshold,
as a cost-agnostic ranking filled to the budget.

The importances come from one XGBoost classifier on all features (paper: 100 trees, maximal
depth 20, other parameters at the defaults of XGBoost 0.90, whose learning rate was 0.1); they
are cost-free, so `prepare` computes them once per data set.

Threshold and budget. The paper's XGB-FS discards the features whose importance is below the
mean importance. With `threshold="mean"` (the default) only the features at or above the mean
are eligible: they are walked by decreasing importance and each one that still fits the budget
is kept (`costfs.bcr.fill_budget`), so a large budget may stay partly unused — the record's
`unused_budget` says how much. `threshold="none"` fills the budget from the whole ranking.
Ties in importance go to the lower cost, then the lower index (as for every filter).

The helpers `xgboost_classifier`, `xgboost_importance` and `ranking_selections` are shared
with FeatBoost, ReliefF and Boruta.
"""

import math

import numpy as np
from xgboost import XGBClassifier

from costfs.bcr import fill_budget, rank_by_ratio
from costfs.selector import CostConstrainedSelector

HYPERPARAMETER = None
STRATEGIES = ("fixed",)
THRESHOLDS = ("mean", "none")


def xgboost_classifier(
    *,
    n_estimators: int,
    max_depth: int,
    learning_rate: float,
    max_bin: int = 256,
    seed: int,
    n_jobs: int,
) -> XGBClassifier:
    """The XGBoost model of the FeatBoost paper; importances are gains. `max_bin` is the number
    of histogram bins per feature (XGBoost's default 256; the paper's XGBoost 0.90 split
    exactly on data this small): 64 bins fit about 3x faster on 500 rows x 200 features."""
    return XGBClassifier(
        n_estimators=int(n_estimators),
        max_depth=int(max_depth),
        learning_rate=float(learning_rate),
        max_bin=int(max_bin),
        importance_type="gain",
        random_state=seed % 2**31,
        n_jobs=n_jobs,
    )


def xgboost_importance(
    X: np.ndarray,
    y: np.ndarray,
    *,
    sample_weight: np.ndarray | None = None,
    n_estimators: int,
    max_depth: int,
    learning_rate: float,
    max_bin: int = 256,
    seed: int,
    n_jobs: int,
) -> np.ndarray:
    """Gain importance of every column (0 for columns no tree splits on)."""
    model = xgboost_classifier(
        n_estimators=n_estimators,
        max_depth=max_depth,
        learning_rate=learning_rate,
        max_bin=max_bin,
        seed=seed,
        n_jobs=n_jobs,
    )
    model.fit(X, y, sample_weight=sample_weight)
    return np.asarray(model.feature_importances_, dtype=float)


def ranking_selections(order: np.ndarray, costs: np.ndarray, budgets: list[float]) -> list[dict]:
    """Records of a grid-less method: per budget, `order` walked and filled to the budget."""
    records = []
    for budget in budgets:
        features = fill_budget(np.asarray(order, dtype=int), costs, budget)
        records.append(
            {
                "value": math.nan,
                "budget": budget,
                "features": features,
                "unused_budget": float(budget - costs[features].sum()),
            }
        )
    return records


def check_threshold(threshold: str) -> str:
    if threshold not in THRESHOLDS:
        raise ValueError(f"threshold must be one of {THRESHOLDS}, got {threshold!r}")
    return threshold


def thresholded_order(scores: np.ndarray, costs: np.ndarray, threshold: str) -> np.ndarray:
    """Features by decreasing score (ties: lower cost, then lower index); with
    `threshold="mean"` only those scoring at least the mean score."""
    scores = np.asarray(scores, dtype=float)
    order = rank_by_ratio(scores, costs)
    if check_threshold(threshold) == "mean":
        order = order[scores[order] >= scores.mean()]
    return order


def prepare(
    X: np.ndarray,
    y: np.ndarray,
    *,
    seed: int,
    n_estimators: int = 100,
    max_depth: int = 20,
    learning_rate: float = 0.1,
    max_bin: int = 256,
    n_jobs: int = 1,
    **selection_parameters,
) -> dict:
    """Gain importances of one XGBoost model on all features. `selection_parameters` (the rest
    of the method's config) are ignored."""
    scores = xgboost_importance(
        X,
        y,
        n_estimators=n_estimators,
        max_depth=max_depth,
        learning_rate=learning_rate,
        max_bin=max_bin,
        seed=seed,
        n_jobs=n_jobs,
    )
    return {"scores": scores}


def select(
    X,
    y,
    costs,
    budgets,
    grid,
    *,
    prepared: dict,
    seed: int,
    threshold: str = "mean",
    n_jobs: int = 1,
    **preparation_parameters,
) -> list[dict]:
    """One record per budget (`grid` is ignored: the method has no hyperparameter)."""
    return ranking_selections(
        thresholded_order(prepared["scores"], costs, threshold), costs, budgets
    )


class XGBImportanceSelector(CostConstrainedSelector):
    """XGB-FS under a budget: XGBoost gain importance, mean threshold, filled to the budget.

    Parameters: `feature_costs` (one positive cost per column), `budget` (maximal summed cost),
    `xi` (unused: the ranking ignores costs), `n_estimators`, `max_depth`, `learning_rate` of
    the XGBoost model (100, 20, 0.1 as in the FeatBoost paper) and its `max_bin` (256),
    `threshold` ("mean": only features with at least the mean importance; "none": the whole
    ranking), `random_state` seeds XGBoost, `precomputed` (`{"scores": ...}` from `prepare`)
    skips the model, `n_jobs` threads of XGBoost.
    """

    _method_name = "xgb_fs"

    def __init__(
        self,
        feature_costs=None,
        budget=1.0,
        xi=None,
        n_estimators=100,
        max_depth=20,
        learning_rate=0.1,
        max_bin=256,
        threshold="mean",
        random_state=None,
        precomputed=None,
        n_jobs=1,
    ):
        self.feature_costs = feature_costs
        self.budget = budget
        self.xi = xi
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.max_bin = max_bin
        self.threshold = threshold
        self.random_state = random_state
        self.precomputed = precomputed
        self.n_jobs = n_jobs
