"""The Random Forest engine: the one place that knows which library fits the forests.

scikit-learn-intelex (oneDAL) fits and predicts about 2-6x faster than plain scikit-learn on
this project's forests and gives the same result for any thread count; it is used where it
installs, plain scikit-learn otherwise. Both are driven through the scikit-learn API.
"""

import math
from functools import cache

import numpy as np

ENGINES = ("sklearnex", "sklearn")


@cache
def _sklearnex_available() -> bool:
    try:
        from sklearnex.ensemble import RandomForestClassifier  # noqa: F401
    except Exception:  # any import failure (missing wheel, CPU or library mismatch) means no
        return False
    return True


def resolve_engine(preference: str = "auto") -> str:
    """The engine to use: `auto` picks sklearnex where it imports, else sklearn."""
    if preference == "auto":
        return "sklearnex" if _sklearnex_available() else "sklearn"
    if preference not in ENGINES:
        raise ValueError(f"engine must be one of auto, {', '.join(ENGINES)}; got {preference!r}")
    if preference == "sklearnex" and not _sklearnex_available():
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


def majority_class(y: np.ndarray) -> int:
    """The training majority class (0 on an exact tie)."""
    return int(np.argmax(np.bincount(y, minlength=2)))


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
) -> tuple[float, float]:
    """OOB error of a forest on (X, y) and its test error (NaN without test data).

    With no feature columns the model predicts the training majority class, on the training
    rows (its OOB error) and on the test rows.
    """
    with_test = X_test is not None and y_test is not None
    if X.shape[1] == 0:
        label = majority_class(y)
        test = float(np.mean(y_test != label)) if with_test else math.nan
        return float(np.mean(y != label)), test
    model = random_forest(
        n_trees=n_trees, n_features=X.shape[1], seed=seed, n_jobs=n_jobs, engine=engine
    )
    model.fit(X, y)
    test = float(np.mean(model.predict(X_test) != y_test)) if with_test else math.nan
    return 1.0 - float(model.oob_score_), test
