"""XGBoost for the methods that use it (XGB-FS, FeatBoost): the FeatBoost paper's model, its
gain importances, and the cost-free part of a method that ranks by them."""

from typing import TYPE_CHECKING

import numpy as np

from costfs.core.extras import import_optional
from costfs.methods._base import Parameter, integer, number

if TYPE_CHECKING:
    from xgboost import XGBClassifier

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


def xgboost_classifier(
    *,
    n_estimators: int,
    max_depth: int,
    learning_rate: float,
    max_bin: int,
    seed: int,
) -> "XGBClassifier":
    """The XGBoost model of the FeatBoost paper; importances are gains. `max_bin` is the number
    of histogram bins per feature (XGBoost's default 256; the paper's XGBoost 0.90 split
    exactly on data this small): fewer bins fit faster.
    One thread, whatever the job's: XGBoost's histogram sums, and so its gains, depend on how
    many threads add them up, and no result may depend on a job's cores."""
    xgboost = import_optional("xgboost", extra="related", needed_by="XGBoost-based selection")
    return xgboost.XGBClassifier(
        n_estimators=int(n_estimators),
        max_depth=int(max_depth),
        learning_rate=float(learning_rate),
        max_bin=int(max_bin),
        importance_type="gain",
        random_state=seed % 2**31,
        n_jobs=1,
    )


def xgboost_importance(
    X: np.ndarray, y: np.ndarray, *, sample_weight: np.ndarray | None = None, **model
) -> np.ndarray:
    """Gain importance of every column (0 for columns no tree splits on) of the model
    `xgboost_classifier(**model)` fit on (X, y)."""
    fitted = xgboost_classifier(**model).fit(X, y, sample_weight=sample_weight)
    return np.asarray(fitted.feature_importances_, dtype=float)


class GainImportancePreparation:
    """The cost-free part of a method that ranks by XGBoost gain importance: the importances
    of one model on all features, computed once per data set (`prepared["scores"]`)."""

    def prepare(self, X, y, context, *, n_estimators, max_depth, learning_rate, max_bin):
        scores = xgboost_importance(
            X,
            y,
            n_estimators=n_estimators,
            max_depth=max_depth,
            learning_rate=learning_rate,
            max_bin=max_bin,
            seed=context.seed,
        )
        return {"scores": scores}
