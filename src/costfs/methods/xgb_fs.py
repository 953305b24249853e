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

The helpers `xgboost_classifier` and `xgboost_importance` are shared with FeatBoost, and the
threshold and fill with ReliefF.
"""

from typing import TYPE_CHECKING

import numpy as np

from costfs.bcr import rank_by_ratio, ranking_selections
from costfs.extras import import_optional
from costfs.method import Method, Parameter, Selection, choice, integer, number

if TYPE_CHECKING:
    from xgboost import XGBClassifier

THRESHOLDS = ("mean", "none")

XGBOOST_PARAMETERS = (
    Parameter("n_estimators", integer(), 100, "trees of the XGBoost model", stage="prepare"),
    Parameter("max_depth", integer(), 20, "depth of the XGBoost trees", stage="prepare"),
    Parameter(
        "learning_rate",
        number(exclusive_minimum=0),
        0.1,
        "learning rate of the XGBoost model",
        stage="prepare",
    ),
    Parameter(
        "max_bin", integer(minimum=2), 256, "histogram bins per feature of XGBoost", stage="prepare"
    ),
)
"""The XGBoost model of the FeatBoost paper, whose gain importances rank the features."""

THRESHOLD = Parameter(
    "threshold",
    choice(*THRESHOLDS),
    "mean",
    "`mean`: only features scoring at least the mean are eligible, then filled to the budget by "
    "score; `none`: fill from the whole ranking",
)


def xgboost_classifier(
    *,
    n_estimators: int,
    max_depth: int,
    learning_rate: float,
    max_bin: int = 256,
    seed: int,
    n_jobs: int,
) -> "XGBClassifier":
    """The XGBoost model of the FeatBoost paper; importances are gains. `max_bin` is the number
    of histogram bins per feature (XGBoost's default 256; the paper's XGBoost 0.90 split
    exactly on data this small): 64 bins fit about 3x faster on 500 rows x 200 features."""
    xgboost = import_optional("xgboost", extra="related", needed_by="XGBoost-based selection")
    return xgboost.XGBClassifier(
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


def thresholded_selection(
    scores: np.ndarray, costs: np.ndarray, budgets: list[float], threshold: str
) -> Selection:
    """Per budget, the scores' ranking cut at `threshold` and filled to the budget."""
    return Selection(
        ranking_selections(thresholded_order(scores, costs, threshold), costs, budgets)
    )


class XGBImportance(Method):
    summary = (
        "XGBoost gain importance, features above the mean importance filled to the budget "
        "(cost-agnostic)"
    )
    parameters = (*XGBOOST_PARAMETERS, THRESHOLD)
    colour = "#8C6D31"

    def prepare(
        self, X, y, *, seed, n_jobs, engine, n_estimators, max_depth, learning_rate, max_bin
    ):
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

    def select(self, X, y, costs, budgets, grid, *, prepared, seed, n_jobs, engine, threshold):
        return thresholded_selection(prepared["scores"], costs, budgets, threshold)


XGBImportanceSelector = XGBImportance.selector("XGBImportanceSelector")
