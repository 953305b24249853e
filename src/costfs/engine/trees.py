"""Tree ensembles with explicit bootstrap samples, for the methods that need each tree's OOB rows.

Two engines grow them, both exact CART on bootstrap samples (thresholds midway between distinct
values, weighted Gini):
- "numba" (`costfs.engine.cart`): compiled kernels that also compute the OOB votes and permutation
  importances while each tree is at hand, several times faster than scikit-learn's trees
  (docs/performance.md);
- "sklearn": scikit-learn's trees, given the bootstrap sample as integer sample weights (the
  draw counts), which is how scikit-learn's own forests fit on a bootstrap sample. The reference.
Tree i is seeded from (seed, "tree", i), so an ensemble does not depend on the number of threads
that grow it. The engines draw bootstrap samples and candidate features from different
generators: their trees differ one by one but follow the same distribution.

`CommonRandomForests` grows forward selection's forests on many column subsets from one run's
tree seeds (common random numbers), growing a forest on where more trees are asked for.
"""

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from costfs.core.seeds import derive_seed
from costfs.engine.forest import (
    IN_BAG,
    TREE_ENGINES,
    class_count,
    default_mtry,
    forest_errors,
    majority_errors,
    majority_shares,
    resolve_engine,
)

if TYPE_CHECKING:
    from sklearn.tree import DecisionTreeClassifier

MAX_COMMON_TREES = np.iinfo(np.uint16).max
"""`CommonRandomForests` keeps vote counts as 16-bit integers: the memo of a run can hold tens of
thousands of sets."""


@dataclass(frozen=True)
class GrownTree:
    tree: "DecisionTreeClassifier"
    columns: np.ndarray
    """The columns of X the tree was grown on (all of them, or one feature for a stump)."""
    oob_rows: np.ndarray

    def used_features(self) -> np.ndarray:
        """Distinct features of X the tree splits on, sorted."""
        split_features = self.tree.tree_.feature
        return np.unique(self.columns[split_features[split_features >= 0]])

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.tree.predict(X[:, self.columns])


def refit_seed(seed_parts: tuple, features: tuple[int, ...]) -> int:
    """The seed of the Random Forest refit on the sorted set `features` in a run seeded by
    `seed_parts`: from the set itself, so a set gets the same forest wherever it is selected
    (the study's evaluation, `costfs select`, a selector's tuning)."""
    return derive_seed(*seed_parts, "evaluate", features)


def tree_seeds(seed: int, n_trees: int) -> np.ndarray:
    return np.array([derive_seed(seed, "tree", i) for i in range(n_trees)], dtype=np.uint32)


def _grow_one(X, y, columns, max_depth, max_features, seed) -> GrownTree:
    # Imported here: the numba engine, which most jobs use, needs no scikit-learn.
    from sklearn.tree import DecisionTreeClassifier

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
    from joblib import Parallel, delayed  # only scikit-learn's trees need it

    X = np.ascontiguousarray(X, dtype=np.float32)
    all_columns = np.arange(X.shape[1])
    jobs = (
        delayed(_grow_one)(
            X,
            y,
            all_columns if column_sets is None else np.asarray(column_sets[i]),
            max_depth,
            max_features,
            int(tree_seed),
        )
        for i, tree_seed in enumerate(tree_seeds(seed, n_trees))
    )
    return Parallel(n_jobs=n_jobs, prefer="threads")(jobs)


def features_and_oob_votes(
    X: np.ndarray,
    y: np.ndarray,
    *,
    n_trees: int,
    max_features: int | None,
    max_depth: int | None,
    seed: int,
    n_jobs: int = 1,
    column_sets: list[np.ndarray] | None = None,
    engine: str = "numba",
) -> tuple[list[np.ndarray], np.ndarray]:
    """Grows trees as `grow_trees` does, on `engine`, and returns each tree's distinct split
    features and its class votes on the rows of X (`IN_BAG` where a row is in its sample)."""
    if engine == "numba":
        from costfs.engine.cart import grow_tree_batch

        batch = grow_tree_batch(
            X,
            y,
            seeds=tree_seeds(seed, n_trees),
            column_sets=column_sets,
            max_features=max_features,
            max_depth=max_depth,
            n_jobs=n_jobs,
        )
        return batch.used_features(), batch.votes
    if engine not in TREE_ENGINES:
        raise ValueError(f"tree engine must be one of {', '.join(TREE_ENGINES)}; got {engine!r}")
    trees = grow_trees(
        X,
        y,
        n_trees=n_trees,
        max_features=max_features,
        max_depth=max_depth,
        seed=seed,
        n_jobs=n_jobs,
        column_sets=column_sets,
    )
    votes = np.full((len(trees), X.shape[0]), IN_BAG, dtype=np.int8)
    for index, grown in enumerate(trees):
        if grown.oob_rows.size:
            votes[index, grown.oob_rows] = grown.predict(X[grown.oob_rows])
    return [grown.used_features() for grown in trees], votes


def tally_errors(tallies: np.ndarray, y: np.ndarray) -> np.ndarray:
    """OOB errors from per-row class vote counts (forests x rows x classes): rows without a
    vote are left out, and a row whose top count is tied counts as the share of the tied
    classes that are wrong (the expected error of a random tie-break, as ranger breaks ties).
    A forest that votes on no row has error 1."""
    # Class by class: numpy's reductions over a short last axis cost several times more.
    classes = [tallies[:, :, k] for k in range(tallies.shape[2])]
    votes = sum(classes[1:], classes[0].astype(np.int64))
    top = np.maximum.reduce(classes)
    n_tied = sum((count == top for count in classes[1:]), (classes[0] == top).astype(np.int64))
    right = (np.take_along_axis(tallies, y[None, :, None], axis=2)[:, :, 0] == top) / n_tied
    covered = np.count_nonzero(votes, axis=1)
    wrong = np.where(votes > 0, 1.0 - right, 0.0).sum(axis=1)
    return np.divide(wrong, covered, out=np.ones(len(tallies)), where=covered > 0)


class CommonRandomForests:
    """Random Forests on column subsets of X with common random numbers: tree t of every
    forest is grown from the same seed, on the same bootstrap sample, whatever its columns.

    A forest's error is still a function of its column set and size, but differences between
    forests measure their columns rather than their draws, and a forest of n trees is the first
    n trees of a larger one: a forest grows by extension. mtry = floor(sqrt(|set|)), numba
    trees (`costfs.engine.cart`).
    """

    def __init__(self, X: np.ndarray, y: np.ndarray, *, seed: int, n_jobs: int = 1):
        from costfs.engine.cart import TreeGrower, tally_runs

        self.tally_runs = tally_runs

        self.grower = TreeGrower(X, y)
        self.y = self.grower.y
        self.seed = seed
        self.n_jobs = n_jobs
        self.seeds = np.empty(0, dtype=np.uint32)
        self.tallies: dict[tuple[int, ...], np.ndarray] = {}
        """Per column set: its forest's OOB class votes per row, so far."""
        self.sizes: dict[tuple[int, ...], int] = {}
        self.trees_grown = 0

    def _tree_seeds(self, n_trees: int) -> np.ndarray:
        if self.seeds.size < n_trees:
            self.seeds = tree_seeds(self.seed, n_trees)
        return self.seeds[:n_trees]

    def oob_errors(self, requests: Sequence[tuple[tuple[int, ...], int]]) -> list[float]:
        """The OOB error of each (sorted column set, number of trees), growing only the trees
        the sets' forests lack (all in one batch); a size below what a set has grown already
        regrows that set's first trees."""
        wanted: dict[tuple[int, ...], list[int]] = {}
        for columns, n_trees in requests:
            if not 0 < n_trees <= MAX_COMMON_TREES:
                raise ValueError(f"forests of 1..{MAX_COMMON_TREES} trees, got {n_trees}")
            wanted.setdefault(columns, []).append(n_trees)
        spans = []  # per set: the first tree it needs and its checkpoints, ascending
        for columns, sizes in wanted.items():
            grown = self.sizes.get(columns, 0)
            first = grown if min(sizes) >= grown else 0
            spans.append((columns, first, sorted(set(sizes))))
        jobs = [(np.array(columns), first, sizes[-1]) for columns, first, sizes in spans]
        votes = np.empty((0, self.y.size), dtype=np.int8)
        if any(last > first for _, first, last in jobs):
            seeds = self._tree_seeds(max(last for _, _, last in jobs))
            votes = self.grower.grow(
                seeds=np.concatenate([seeds[first:last] for _, first, last in jobs]),
                column_sets=[c for c, first, last in jobs for _ in range(last - first)],
                max_features=np.concatenate(
                    [np.full(last - first, default_mtry(len(c))) for c, first, last in jobs]
                ),
                max_depth=None,
                n_jobs=self.n_jobs,
            ).votes
        self.trees_grown += votes.shape[0]
        # Vote counts of each run of trees between consecutive checkpoints, all sets at once; a
        # run is empty where a set is asked for the trees it has.
        runs, position = [], 0
        for _, first, sizes in spans:
            runs += [
                (position + start - first, position + stop - first)
                for start, stop in zip([first, *sizes[:-1]], sizes, strict=True)
            ]
            position += sizes[-1] - first
        grown = np.array([stop > start for start, stop in runs], dtype=bool)
        run_counts = np.zeros((len(runs), self.y.size, self.grower.n_classes), dtype=np.uint16)
        if grown.any():
            starts = np.array([start for start, _ in runs], dtype=np.int64)[grown]
            run_counts[grown] = self.tally_runs(votes, starts, self.grower.n_classes)
        checkpoints, tallies = [], []
        run = 0
        for columns, first, sizes in spans:
            restart = first == 0 and columns in self.sizes
            tally = self.tallies[columns] if first else np.zeros_like(run_counts[0])
            for size in sizes:
                tally = tally + run_counts[run]
                run += 1
                checkpoints.append((columns, size))
                tallies.append(tally)
            if not restart or sizes[-1] > self.sizes[columns]:
                self.tallies[columns], self.sizes[columns] = tally, sizes[-1]
        errors = dict(zip(checkpoints, tally_errors(np.stack(tallies), self.y), strict=True))
        return [float(errors[request]) for request in requests]


def resolve_refit_engine(preference: str = "auto") -> str:
    """The engine of the refits: `auto` picks the numba trees, else the forest engine asked
    for (`costfs.engine.forest.resolve_engine`)."""
    return "numba" if preference in ("auto", "numba") else resolve_engine(preference)


class RefitForests:
    """Random Forest refits on column subsets of one training set (X, y), each scored on its
    OOB rows and on the test rows (X_test, y_test; optional), on `resolve_refit_engine(engine)`.

    `errors(columns, ...)` is `refit_errors` on X[:, columns], X_test[:, columns]. On the numba
    trees the columns are sorted once for all subsets, not once per subset: a tree on a subset
    draws its candidates by position in it, so it is the tree a grower on X[:, columns] alone
    grows (msB scores hundreds of models, an evaluation tens of sets, on one training set).
    `subsets` are the column subsets to be refit: only their columns are kept (all of X's
    without them), so that a wide X costs the memory of those only."""

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        X_test: np.ndarray | None = None,
        y_test: np.ndarray | None = None,
        *,
        subsets: Iterable[Sequence[int]] | None = None,
        engine: str = "auto",
    ):
        self.engine = resolve_refit_engine(engine)
        self.with_test = X_test is not None and y_test is not None
        self.X, self.y = X, y
        self.X_test = X_test if self.with_test else None
        self.y_test = y_test if self.with_test else None
        self.n_classes = max(class_count(y), class_count(y_test) if self.with_test else 2)
        self.used = (
            np.arange(X.shape[1])
            if subsets is None
            else np.unique(np.fromiter(itertools.chain.from_iterable(subsets), dtype=np.intp))
        )
        self.grower = None
        if self.engine == "numba" and self.used.size:
            from costfs.engine.cart import TreeGrower

            self.grower = TreeGrower(X[:, self.used], y)
            if self.with_test:
                # Fortran order: the trees read the test rows by column (`TreeGrower.grow`).
                self.X_test = np.asfortranarray(X_test[:, self.used], dtype=np.float64)

    def errors(
        self, columns: Sequence[int], *, n_trees: int, seed: int, n_jobs: int = 1
    ) -> tuple[float, float, np.ndarray | None]:
        """OOB error of the forest on `columns` (in this order), its test error (NaN without
        test data) and its vote shares on the test rows (rows x classes 0..K-1, None without
        test data).

        On the numba trees the forest is ranger's: mtry = floor(sqrt(p)), trees grown to purity
        on bootstrap samples, majority vote. A row whose top vote is tied counts as the share of
        the tied classes that are wrong, the expected error of ranger's random tie-break
        (`tally_errors`). With no columns the model predicts the training majority class."""
        columns = np.asarray(columns, dtype=np.int64)
        X_test, y_test = self.X_test, self.y_test
        outside = columns[~np.isin(columns, self.used)]
        if outside.size:
            raise ValueError(f"column(s) {outside.tolist()} are not in the refits' `subsets`")
        if columns.size == 0:
            return (
                *majority_errors(self.y, y_test),
                majority_shares(self.y, X_test, self.n_classes),
            )
        if self.engine != "numba":
            return forest_errors(
                self.X[:, columns],
                self.y,
                None if X_test is None else X_test[:, columns],
                y_test,
                n_trees=n_trees,
                seed=seed,
                n_jobs=n_jobs,
                engine=self.engine,
            )
        from costfs.engine.cart import tally_runs

        batch = self.grower.grow(
            seeds=tree_seeds(seed, n_trees),
            column_sets=[np.searchsorted(self.used, columns)] * n_trees,
            max_features=default_mtry(columns.size),
            max_depth=None,
            X_test=X_test,
            n_jobs=n_jobs,
        )
        whole_forest = np.zeros(1, dtype=np.int64)
        oob = float(tally_errors(tally_runs(batch.votes, whole_forest, self.n_classes), self.y)[0])
        if batch.test_votes is None:  # no test data, or no test rows
            return oob, math.nan, None
        tallies = tally_runs(batch.test_votes, whole_forest, self.n_classes)
        shares = tallies[0] / tallies[0].sum(axis=1, keepdims=True)
        return oob, float(tally_errors(tallies, y_test)[0]), shares


def refit_errors(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray | None = None,
    y_test: np.ndarray | None = None,
    *,
    n_trees: int,
    seed: int,
    n_jobs: int = 1,
    engine: str = "auto",
) -> tuple[float, float, np.ndarray | None]:
    """`RefitForests(X, y, X_test, y_test, engine=engine).errors(...)` on all columns of X: one
    Random Forest refit."""
    return RefitForests(X, y, X_test, y_test, engine=engine).errors(
        range(X.shape[1]), n_trees=n_trees, seed=seed, n_jobs=n_jobs
    )
