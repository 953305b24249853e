"""ReliefF (as compared in the FeatBoost paper, section 4.4.1): ReliefF scores with the mean as
threshold, as a cost-agnostic ranking filled to the budget.

Scores come from scikit-rebate's `ReliefF` (the package the FeatBoost paper used) with
`n_neighbors` = 10 nearest hits and misses, as in the paper, every training row used as a
reference instance; a feature with at most `categorical_threshold` distinct values is scored as
discrete. The scores are cost-free and deterministic: `prepare` computes them once per data set.
The threshold and the fill are XGB-FS's (`costfs.methods.xgb_fs`): with `threshold="mean"`
only features scoring at least the mean score are eligible, walked by decreasing score.
"""

import functools
import sys

import numpy as np

from costfs.core.extras import import_optional
from costfs.engine.forest import class_count
from costfs.methods._base import Method, Parameter, integer
from costfs.methods._bcr import THRESHOLD, thresholded_selection


def relieff_scores(
    X: np.ndarray,
    y: np.ndarray,
    *,
    n_neighbors: int,
    categorical_threshold: int,
    n_jobs: int = 1,
) -> np.ndarray:
    """ReliefF weight of every column (larger: separates the classes of near rows better)."""
    skrebate = import_optional("skrebate", extra="related", needed_by="method relieff")
    relief = _with_numpy_neighbours(skrebate.ReliefF)(
        n_neighbors=int(n_neighbors),
        categorical_threshold=int(categorical_threshold),
        label_type="binary" if class_count(y) == 2 else "multiclass",
        n_jobs=n_jobs,
    )
    relief.fit(np.asarray(X, dtype=float), np.asarray(y))
    return np.asarray(relief.feature_importances_, dtype=float)


@functools.cache
def _with_numpy_neighbours(relieff: type) -> type:
    class ReliefF(relieff):
        """skrebate's ReliefF (binary or multiclass labels) with its neighbour search in numpy:
        the same neighbours in the same order, so the same scores. skrebate finds them in a
        Python loop over every row for every row, about half of a preparation's time."""

        def _find_neighbors(self, inst):
            # skrebate reads the distance to row j at [max(inst, j), min(inst, j)] (with missing
            # values only that triangle is filled) and puts sys.maxsize at the row itself.
            distances = np.array(self._distance_array[inst], dtype=float)
            distances[inst + 1 :] = self._distance_array[inst + 1 :, inst]
            distances[inst] = sys.maxsize
            # Its argsort of the same array, then the first n_neighbors rows of each class
            # (hits of the row's own class, misses of every other) in that order.
            order = np.argsort(distances)
            labels = self._y[order]
            kept = np.zeros(order.size, dtype=bool)
            for label in self._label_list:
                of_label = labels == label
                kept |= of_label & (np.cumsum(of_label) <= self.n_neighbors)
            return order[kept]

    return ReliefF


class ReliefFSelector(Method):
    summary = "ReliefF scores (skrebate), above the mean, filled to the budget (cost-agnostic)"
    parameters = (
        Parameter(
            "n_neighbors",
            integer(),
            10,
            "nearest hits and misses of ReliefF (skrebate)",
            stage="prepare",
        ),
        Parameter(
            "categorical_threshold",
            integer(),
            10,
            "features with at most this many distinct values count as discrete",
            stage="prepare",
        ),
        THRESHOLD,
    )
    missing_values = (
        "skrebate's: a distance sums only the features both rows have, scaled to all features"
    )
    colour = "#6E6E6E"
    exact_path = True

    def prepare(self, X, y, context, *, n_neighbors, categorical_threshold):
        """ReliefF scores (deterministic: `seed` is unused)."""
        scores = relieff_scores(
            X,
            y,
            n_neighbors=n_neighbors,
            categorical_threshold=categorical_threshold,
            n_jobs=context.n_jobs,
        )
        return {"scores": scores}

    def select(self, X, y, costs, budgets, grid, context, *, threshold):
        return thresholded_selection(context.prepared["scores"], costs, budgets, threshold)
