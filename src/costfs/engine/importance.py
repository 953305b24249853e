"""Cost-free feature scores: univariate AUC and OOB permutation importance."""

import numpy as np

from costfs.engine.forest import (
    class_count,
    default_mtry,
    has_missing,
    onedal_permutation_importance,
)
from costfs.engine.trees import GrownTree, grow_trees, tree_seeds


def auc_scores(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """J_AUC = 2 |AUC(X_j) - 0.5| per column (Mann-Whitney form, mid-ranks for ties).

    For K > 2 classes: the mean over classes of the one-vs-rest 2 |AUC - 0.5| (for two
    classes both one-vs-rest scores equal the binary one).

    A pair of rows of which one misses the value (NaN) counts as a tie: the AUC is that of the
    rows that have it, shrunk towards 0.5 by the share of pairs they make, so a feature that
    is mostly missing cannot rank high on the few rows that have it.
    """
    X = np.asarray(X, dtype=float)
    classes = [1] if class_count(y) == 2 else range(class_count(y))
    ranks = np.column_stack([mid_ranks(column) for column in X.T]) if X.size else X
    scores = np.mean([_one_vs_rest_score(ranks, y == k, y == k) for k in classes], axis=0)
    for j in np.flatnonzero(np.isnan(X).any(axis=0)):
        present = ~np.isnan(X[:, j])
        ranks = mid_ranks(X[present, j])[:, None]
        scores[j] = np.mean([_one_vs_rest_score(ranks, (y == k)[present], y == k) for k in classes])
    return scores


def mid_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of `values`, tied values given the mean of their ranks (scipy.stats.rankdata's
    "average", the same floats); all NaN if a value is missing. Written here because importing
    scipy.stats would be most of an AUC preparation job."""
    if np.isnan(values).any():
        return np.full(values.size, np.nan)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], values.size]
    ranks = np.empty(values.size)
    # A run of ties at sorted positions starts..ends-1 holds ranks starts+1..ends.
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)
    return ranks


def _one_vs_rest_score(ranks: np.ndarray, positive: np.ndarray, positive_all: np.ndarray):
    """2 |AUC - 0.5| of the ranked rows (`positive`: those of the class), over the pairs of
    all rows (`positive_all`): a pair with a row that is not ranked is a tie."""
    n_positive = int(positive.sum())
    n_negative = positive.size - n_positive
    pairs = int(positive_all.sum()) * (positive_all.size - int(positive_all.sum()))
    u_statistic = ranks[positive].sum(axis=0) - n_positive * (n_positive + 1) / 2
    auc = (u_statistic + 0.5 * (pairs - n_positive * n_negative)) / pairs
    return 2.0 * np.abs(auc - 0.5)


def _tree_importance(
    grown: GrownTree, X: np.ndarray, y: np.ndarray, seed_rng: np.random.Generator
) -> np.ndarray:
    """Increase of one tree's OOB error when each of its split features is permuted."""
    increase = np.zeros(X.shape[1])
    rows = grown.oob_rows
    features = grown.used_features()
    if rows.size == 0 or features.size == 0:
        return increase
    X_oob = X[rows]
    y_oob = y[rows]
    baseline = np.mean(grown.tree.predict(X_oob) != y_oob)
    # One predict call for all permuted copies of the OOB block: far fewer calls into sklearn.
    stacked = np.tile(X_oob, (features.size, 1))
    for k, feature in enumerate(features):
        block = slice(k * rows.size, (k + 1) * rows.size)
        stacked[block, feature] = X_oob[seed_rng.permutation(rows.size), feature]
    errors = (grown.tree.predict(stacked) != np.tile(y_oob, features.size)).reshape(
        features.size, rows.size
    )
    increase[features] = errors.mean(axis=1) - baseline
    return increase


IMPORTANCE_ENGINES = ("numba", "sklearn", "sklearnex")
"""Engines of the permutation importance, preferred first. All compute the same quantity
(agreement within Monte Carlo error: tests/test_importance.py). numba's exact trees
(`costfs.engine.cart`) are the fastest: about 6x scikit-learn's on 500 x 200 data. scikit-learn's
trees are the reference the study's first results were computed with (`engine: sklearn`).
oneDAL's own "MDA_Raw" importance on its histogram forest runs where a study asks for
`engine: sklearnex`; it permutes every feature in every tree, not just the tree's own."""


def permutation_importance(
    X: np.ndarray,
    y: np.ndarray,
    *,
    n_trees: int,
    seed: int,
    n_jobs: int = 1,
    engine: str = "sklearn",
) -> np.ndarray:
    """Unscaled OOB permutation importance (as ranger's), averaged over trees, clipped at 0:
    per tree, the OOB error with a feature's OOB values permuted minus the OOB error.

    `engine` "numba" and "sklearn" grow exact trees on explicit bootstrap samples
    (`costfs.engine.trees`) and permute the features each tree splits on (the others change
    nothing); "sklearnex" is oneDAL's, replaced by "numba" where X has missing values.
    """
    if engine == "sklearnex" and has_missing(X):
        engine = "numba"
    if engine == "numba":
        from costfs.engine.cart import grow_tree_batch

        batch = grow_tree_batch(
            X,
            y,
            seeds=tree_seeds(seed, n_trees),
            column_sets=None,
            max_features=default_mtry(X.shape[1]),
            max_depth=None,
            with_importance=True,
            n_jobs=n_jobs,
        )
        return np.clip(batch.importance.mean(axis=0), 0.0, None)
    if engine == "sklearnex":
        scores = onedal_permutation_importance(X, y, n_trees=n_trees, seed=seed, n_jobs=n_jobs)
        return np.clip(scores, 0.0, None)
    if engine != "sklearn":
        raise ValueError(f"permutation importance engine must be one of {IMPORTANCE_ENGINES}")
    X = np.ascontiguousarray(X, dtype=np.float32)
    trees = grow_trees(
        X,
        y,
        n_trees=n_trees,
        max_features=default_mtry(X.shape[1]),
        max_depth=None,
        seed=seed,
        n_jobs=n_jobs,
    )
    from joblib import Parallel, delayed  # only scikit-learn's trees need it

    per_tree = Parallel(n_jobs=n_jobs, prefer="threads")(
        delayed(_tree_importance)(grown, X, y, np.random.default_rng([seed, index]))
        for index, grown in enumerate(trees)
    )
    return np.clip(np.mean(per_tree, axis=0), 0.0, None)
