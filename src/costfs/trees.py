"""Tree ensembles with explicit bootstrap samples, for the methods that need each tree's OOB rows.

A tree's bootstrap sample is given to scikit-learn as integer sample weights (the draw counts),
which is how scikit-learn's own forests fit on a bootstrap sample. Each tree has its own seed,
so the ensemble does not depend on the number of threads that grow it.
"""

from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed
from sklearn.tree import DecisionTreeClassifier

from costfs.seeds import derive_seed


@dataclass(frozen=True)
class GrownTree:
    tree: DecisionTreeClassifier
    columns: np.ndarray
    """The columns of X the tree was grown on (all of them, or one feature for a stump)."""
    oob_rows: np.ndarray

    def used_features(self) -> np.ndarray:
        """Distinct features of X the tree splits on, sorted."""
        split_features = self.tree.tree_.feature
        return np.unique(self.columns[split_features[split_features >= 0]])

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.tree.predict(X[:, self.columns])


def _grow_one(X, y, columns, max_depth, max_features, seed) -> GrownTree:
    rng = np.random.default_rng(seed)
    counts = np.bincount(rng.integers(0, y.size, size=y.size), minlength=y.size)
    tree = DecisionTreeClassifier(
        max_depth=max_depth, max_features=max_features, random_state=seed % 2**31
    )
    tree.fit(X[:, columns], y, sample_weight=counts.astype(float))
    return GrownTree(tree=tree, columns=columns, oob_rows=np.flatnonzero(counts == 0))


def grow_trees(
    X: np.ndarray,
    y: np.ndarray,
    *,
    n_trees: int,
    max_features: int | None,
    max_depth: int | None,
    seed: int,
    n_jobs: int = 1,
    column_sets: list[np.ndarray] | None = None,
) -> list[GrownTree]:
    """`n_trees` trees, each on its own bootstrap sample (tree i seeded from (seed, i)).

    `column_sets[i]` restricts tree i to those columns (stumps: one feature each); by default
    every tree sees all columns and draws `max_features` candidates per split.
    """
    X = np.ascontiguousarray(X, dtype=np.float32)
    all_columns = np.arange(X.shape[1])
    jobs = (
        delayed(_grow_one)(
            X,
            y,
            all_columns if column_sets is None else np.asarray(column_sets[i]),
            max_depth,
            max_features,
            derive_seed(seed, "tree", i),
        )
        for i in range(n_trees)
    )
    return Parallel(n_jobs=n_jobs, prefer="threads")(jobs)
