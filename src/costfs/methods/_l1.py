"""The L1-logistic regularisation path shared by msB's `l1` sequence and `l1_cost`: scikit-learn's
L1 logistic regression on standardised columns, fit along a grid of C (the inverse penalty).

scikit-learn is imported where a path is fit: a method's evaluation job never fits one and
starts without it (about 0.9 s)."""

import warnings
from collections.abc import Iterator

import numpy as np

from costfs.engine.forest import class_count

FIT_ITERATIONS = 1000
"""The iterations one fit may take (its `max_iter`; scikit-learn's default is 100)."""


def l1_logistic(C: float, *, random_state: int = 0, max_iter: int = FIT_ITERATIONS, **options):
    """The L1 logistic regression at inverse penalty C (liblinear unless `options` say)."""
    import sklearn
    from sklearn.linear_model import LogisticRegression
    from sklearn.utils.fixes import parse_version

    # scikit-learn 1.8 replaced `penalty` by `l1_ratio`.
    if parse_version(sklearn.__version__) >= parse_version("1.8"):
        penalty = {"l1_ratio": 1.0}
    else:
        penalty = {"penalty": "l1"}
    options = {"solver": "liblinear", **options}
    return LogisticRegression(
        C=C, max_iter=max_iter, random_state=random_state, **penalty, **options
    )


def standardised(X: np.ndarray) -> np.ndarray:
    """X with every column at mean 0 and variance 1 (a constant column stays 0). A missing value
    becomes the mean, 0: the L1 path has no rule of its own for it."""
    from sklearn.preprocessing import StandardScaler

    return np.nan_to_num(StandardScaler().fit_transform(X), nan=0.0)


def smallest_c(X: np.ndarray, y: np.ndarray) -> float:
    """The C below which the L1 logistic regression on X selects nothing."""
    from sklearn.svm import l1_min_c

    return float(l1_min_c(X, y, loss="log"))


def l1_supports(
    X: np.ndarray,
    y: np.ndarray,
    Cs,
    *,
    random_state: int = 0,
    until_iterations: int | None = None,
) -> Iterator[np.ndarray]:
    """The distinct non-empty supports (bool per column) of the L1 logistic regression on X
    along `Cs`, in that order, each the first time it appears; fit when asked for (a caller
    may stop early).

    For K > 2 classes the model is the multinomial L1 logistic regression (saga, each fit
    starting from the previous C's coefficients), and a column is in the support when any
    class's coefficient on it is non-zero.

    `until_iterations`: with two classes, each fit may take this many iterations, and the path
    ends before the first C whose fit needs them all. Such a fit has not converged, so its
    support is not the penalised optimum's, and on (nearly) separable data every larger C's
    fit stops there too, each taking many times a converged fit's time.
    """
    from sklearn.exceptions import ConvergenceWarning

    multinomial = class_count(y) > 2
    model = None
    seen: list[np.ndarray] = []
    with warnings.catch_warnings():
        # saga stops at max_iter on separable data at large C, where the support is (nearly)
        # full either way.
        warnings.simplefilter("ignore", ConvergenceWarning)
        for C in Cs:
            if not multinomial:
                model = l1_logistic(
                    C, random_state=random_state, max_iter=until_iterations or FIT_ITERATIONS
                )
            elif model is None:
                model = l1_logistic(C, random_state=random_state, solver="saga", warm_start=True)
            else:
                model.set_params(C=C)
            model.fit(X, y)
            if until_iterations and not multinomial and model.n_iter_.max() >= until_iterations:
                return
            support = (model.coef_ != 0).any(axis=0)
            if support.any() and not any(np.array_equal(support, other) for other in seen):
                seen.append(support)
                yield support
