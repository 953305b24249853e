"""The Random Forest engine: the one place that knows which library fits the forests.

scikit-learn-intelex (oneDAL) fits and predicts faster than plain scikit-learn on this
project's forests and gives the same result for any thread count; it is used where it
installs, plain scikit-learn otherwise. Both are driven through the scikit-learn API.

Missing values (NaN) go to scikit-learn's trees, which send them down the side that lowers the
impurity: sklearnex hands such data to scikit-learn itself, and the oneDAL calls below
(`oob_errors`, `onedal_permutation_importance`) are replaced by scikit-learn's forest and the
numba trees, which compute the same quantities.
"""

import importlib
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from functools import cache

import numpy as np

ENGINES = ("sklearnex", "sklearn")
"""Engines of whole Random Forests, and the study-wide choices besides `auto`."""
IN_BAG = -1
"""Vote entry of a row that is in-bag for the tree (the tree casts no vote on it)."""
TREE_ENGINES = ("numba", "sklearn")
"""Engines of the single trees on explicit bootstrap samples (`costfs.engine.trees`), preferred
first."""
IMPORTANCE_BLOCKS = 8
_TREE_LEAF = -1
"""A scikit-learn (and oneDAL) tree node's child index where it has none."""


@cache
def _imports(module: str) -> bool:
    try:
        importlib.import_module(module)
    except Exception:  # any import failure (missing wheel, CPU or library mismatch) means the
        return False  # scikit-learn fallback
    return True


def engine_available(engine: str) -> bool:
    """Whether `engine` works here: a forest engine, or "numba" (`costfs.engine.trees`)."""
    return (
        engine == "sklearn"
        or (engine == "sklearnex" and _imports("sklearnex.ensemble"))
        or (engine == "numba" and _imports("numba"))
    )


def resolve_engine(preference: str = "auto") -> str:
    """The engine to use: `auto` picks sklearnex where it imports, else sklearn."""
    if preference == "auto":
        return "sklearnex" if engine_available("sklearnex") else "sklearn"
    if preference not in ENGINES:
        raise ValueError(f"engine must be one of auto, {', '.join(ENGINES)}; got {preference!r}")
    if preference == "sklearnex" and not engine_available("sklearnex"):
        raise ValueError("engine 'sklearnex' requested but scikit-learn-intelex does not import")
    return preference


def default_mtry(n_features: int) -> int:
    return max(1, math.floor(math.sqrt(n_features)))


def random_forest(*, n_trees: int, n_features: int, seed: int, n_jobs: int = 1, engine="auto"):
    """An unfitted forest: mtry = floor(sqrt(p)), min node size 1, bootstrap, OOB error on."""
    if resolve_engine(engine) == "sklearnex":
        from sklearnex.ensemble import RandomForestClassifier
    else:
        from sklearn.ensemble import RandomForestClassifier
    return RandomForestClassifier(
        n_estimators=n_trees,
        max_features=default_mtry(n_features),
        min_samples_leaf=1,
        bootstrap=True,
        oob_score=True,
        random_state=seed,
        n_jobs=n_jobs,
    )


def gini_importances(forest) -> np.ndarray:
    """A fitted forest's impurity (Gini) importances: its `feature_importances_`, the same
    floats.

    scikit-learn computes them from each tree as a scikit-learn tree, which a sklearnex forest
    first builds from every oneDAL tree: 50 ms for one of Boruta's forests of 155 trees, against
    7 ms here. For a forest that oneDAL fit, they are computed from oneDAL's trees directly,
    with scikit-learn's formula and order of operations: per tree of more than one node, each
    split's weighted impurity decrease added to its feature in node order, divided by the
    root's weight, normalised to sum 1; then the mean over those trees, normalised. Like
    sklearnex's tree building, it draws a seed per tree from the forest's `random_state`, so a
    generator shared with the caller (BorutaPy shares its own) moves on as it would."""
    fitted = getattr(forest, "_onedal_estimator", None)
    tree_state = getattr(forest, "_get_tree_state", None)
    # sklearnex clears its cache of scikit-learn trees when oneDAL fits; scikit-learn's own
    # fit (sklearnex's fallback on missing values) fills it. Any other forest, or a sklearnex
    # without these internals, computes them its own way.
    if vars(forest).get("_cached_estimators_", ()) is not None or None in (fitted, tree_state):
        return np.asarray(forest.feature_importances_)
    n_classes = forest.n_classes_ if isinstance(forest.n_classes_, int) else forest.n_classes_[0]
    per_tree = []
    for tree in range(fitted.n_estimators):
        state = tree_state(fitted._onedal_model, tree, n_classes)
        if state.node_count <= 1:
            continue
        nodes = state.node_ar
        left, right = nodes["left_child"], nodes["right_child"]
        split = left != _TREE_LEAF
        weighted = nodes["weighted_n_node_samples"] * nodes["impurity"]
        importances = np.zeros(forest.n_features_in_)
        # add.at adds in node order, as scikit-learn's loop does.
        np.add.at(
            importances,
            nodes["feature"][split],
            weighted[split] - weighted[left[split]] - weighted[right[split]],
        )
        importances /= nodes["weighted_n_node_samples"][0]
        normaliser = np.sum(importances)
        if normaliser > 0.0:
            importances /= normaliser
        per_tree.append(importances)
    from sklearn.utils import check_random_state

    random_state = check_random_state(forest.random_state)
    for _ in range(fitted.n_estimators):
        random_state.randint(np.iinfo(np.int32).max)
    if not per_tree:
        return np.zeros(forest.n_features_in_)
    mean = np.mean(per_tree, axis=0, dtype=np.float64)
    return mean / np.sum(mean)


def majority_class(y: np.ndarray) -> int:
    """The training majority class (the lowest of the most frequent classes on a tie)."""
    return int(np.argmax(np.bincount(y, minlength=2)))


def class_count(y: np.ndarray) -> int:
    """The number of classes of labels coded 0..K-1 (at least two)."""
    return max(2, int(np.max(y)) + 1)


def majority_errors(y: np.ndarray, y_test: np.ndarray | None = None) -> tuple[float, float]:
    """The errors of the model without features, which predicts the training majority class:
    on the training rows (its OOB error) and on the test rows (NaN without them)."""
    label = majority_class(y)
    test = math.nan if y_test is None else float(np.mean(y_test != label))
    return float(np.mean(y != label)), test


def forest_errors(
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
    """OOB error of a forest on (X, y), its test error (NaN without test data) and its class
    probabilities on the test rows (rows x classes 0..K-1; None without test rows).

    With no feature columns the model predicts the training majority class, on the training
    rows (its OOB error) and on the test rows.
    """
    with_test = X_test is not None and y_test is not None
    n_classes = max(class_count(y), class_count(y_test) if with_test else 2)
    if X.shape[1] == 0:
        return (
            *majority_errors(y, y_test if with_test else None),
            majority_shares(y, X_test, n_classes),
        )
    model = random_forest(
        n_trees=n_trees, n_features=X.shape[1], seed=seed, n_jobs=n_jobs, engine=engine
    )
    model.fit(X, y)
    if not with_test:
        return 1.0 - float(model.oob_score_), math.nan, None
    test = float(np.mean(model.predict(X_test) != y_test))
    shares = np.zeros((len(X_test), n_classes))
    shares[:, model.classes_] = model.predict_proba(X_test)
    return 1.0 - float(model.oob_score_), test, shares


def majority_shares(y: np.ndarray, X_test: np.ndarray | None, n_classes: int) -> np.ndarray | None:
    """The class probabilities of the model without features on the test rows: all on the
    training majority class."""
    if X_test is None:
        return None
    shares = np.zeros((len(X_test), n_classes))
    shares[:, majority_class(y)] = 1.0
    return shares


@contextmanager
def _onedal_threads(n_threads: int):
    """oneDAL's thread count is process-wide: set it for a block, then restore it."""
    import daal4py

    previous = daal4py.num_threads()
    daal4py.daalinit(n_threads)
    try:
        yield
    finally:
        daal4py.daalinit(previous)


def has_missing(X: np.ndarray) -> bool:
    """Whether X has a missing value (NaN), which oneDAL's own calls cannot take."""
    return bool(np.isnan(X).any())


def engine_for_data(engine: str, *matrices: np.ndarray) -> str:
    """`engine` as it runs on these matrices: oneDAL takes no missing values, so where one
    has any, the sklearnex engine is scikit-learn's (sklearnex itself hands such data to it)."""
    missing = any(has_missing(X) for X in matrices)
    return "sklearn" if engine == "sklearnex" and missing else engine


def _oob_error(X: np.ndarray, y: np.ndarray, n_trees: int, seed: int, engine: str) -> float:
    if X.shape[1] == 0:
        return majority_errors(y)[0]
    engine = engine_for_data(engine, X)
    if engine == "sklearn":
        return 1.0 - float(
            random_forest(n_trees=n_trees, n_features=X.shape[1], seed=seed, engine=engine)
            .fit(X, y)
            .oob_score_
        )
    result = _onedal_training(
        n_trees,
        X.shape[1],
        seed,
        n_classes=class_count(y),
        importance="none",
        results="computeOutOfBagError",
    ).compute(np.ascontiguousarray(X, dtype=float), y.astype(float).reshape(-1, 1))
    return float(result.outOfBagError[0, 0])


def _onedal_training(
    n_trees: int, n_features: int, seed: int, *, n_classes: int, importance: str, results: str
):
    """oneDAL's forest training as `random_forest`'s sklearnex forest grows it.

    daal4py drives the same oneDAL forest as sklearnex (hist splits, 256 bins, bins of >= 1
    row) but releases the GIL while it trains and skips sklearnex's per-fit extras (MDI
    importances, per-row OOB probabilities), so forests in parallel threads really overlap.
    """
    import daal4py

    return daal4py.decision_forest_classification_training(
        nClasses=n_classes,
        method="hist",
        nTrees=n_trees,
        featuresPerNode=default_mtry(n_features),
        minObservationsInLeafNode=1,
        bootstrap=True,
        observationsPerTreeFraction=1.0,
        maxBins=256,
        minBinSize=1,
        varImportance=importance,
        resultsToCompute=results,
        engine=daal4py.engines_mt2203(seed=seed),
    )


def onedal_permutation_importance(
    X: np.ndarray, y: np.ndarray, *, n_trees: int, seed: int, n_jobs: int = 1
) -> np.ndarray:
    """oneDAL's unscaled OOB permutation importance ("MDA_Raw"): per tree, the OOB error with
    a feature permuted minus the OOB error, averaged over the trees (ranger's definition).

    oneDAL sums over trees in an order that depends on its thread count, so the trees are
    grown as a fixed number of single-threaded blocks (seeds `[seed, block]`) and `n_jobs`
    only decides how many blocks grow at once: the result is the same for any `n_jobs`.
    """
    X = np.ascontiguousarray(X, dtype=float)
    n_classes = class_count(y)
    y = np.asarray(y, dtype=float).reshape(-1, 1)
    sizes = np.diff(np.linspace(0, n_trees, IMPORTANCE_BLOCKS + 1).astype(int))
    blocks = [int(size) for size in sizes if size > 0]

    def block_importance(block: int) -> np.ndarray:
        block_seed = int(np.random.SeedSequence([seed, block]).generate_state(1)[0])
        training = _onedal_training(
            blocks[block],
            X.shape[1],
            block_seed,
            n_classes=n_classes,
            importance="MDA_Raw",
            results="",
        )
        return training.compute(X, y).variableImportance.ravel() * blocks[block]

    with _onedal_threads(1), ThreadPoolExecutor(max_workers=n_jobs) as pool:
        return sum(pool.map(block_importance, range(len(blocks)))) / n_trees


def oob_errors(
    X: np.ndarray,
    y: np.ndarray,
    column_sets: Sequence[Sequence[int]],
    *,
    n_trees: Sequence[int],
    seeds: Sequence[int],
    n_jobs: int = 1,
    engine: str = "auto",
) -> list[float]:
    """OOB errors of forests on column subsets of X: forest i uses X[:, column_sets[i]],
    `n_trees[i]` trees and `seeds[i]`; an empty subset scores the training majority class.

    The forests are grown `n_jobs` at a time, one thread each, which keeps many small forests
    busier than threads inside one forest would; each error depends only on its own column set,
    tree count and seed, never on `n_jobs`. Rows that are in-bag for every tree are left out.
    """
    engine = resolve_engine(engine)
    y = np.asarray(y)
    tasks = list(zip(column_sets, n_trees, seeds, strict=True))

    def error_of(task) -> float:
        columns, trees, seed = task
        return _oob_error(X[:, list(columns)], y, trees, seed, engine)

    # Forests grown side by side, one thread each.
    with _onedal_threads(1) if engine == "sklearnex" else nullcontext():
        if n_jobs == 1 or len(tasks) <= 1:
            return [error_of(task) for task in tasks]
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            return list(pool.map(error_of, tasks))
