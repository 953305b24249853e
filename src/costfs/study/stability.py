"""How stable a method's selections are over the replicates: Nogueira, Sechidis & Brown's
index ("On the stability of feature selection algorithms", JMLR 18(174), 2018), 1 for identical
sets and about 0 for sets drawn at random with the same sizes, with their asymptotic normal
interval."""

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

LEVEL = 0.95
"""The coverage of the stability's interval."""

KEYS = ["kind", "problem", "budget", "method", "strategy"]


def selection_matrix(selections: Sequence[Sequence[int]], n_features: int) -> np.ndarray:
    """Replicates x features, True where the replicate selected the feature."""
    matrix = np.zeros((len(selections), n_features), dtype=bool)
    for row, features in enumerate(selections):
        matrix[row, np.asarray(features, dtype=int)] = True
    return matrix


def nogueira_stability(
    selections: Sequence[Sequence[int]], n_features: int
) -> tuple[float, float, float]:
    """Nogueira's stability of the selected sets over replicates, with its 95% interval
    (upper end at most 1, the index's largest value). NaN for fewer than two sets, or when
    every set is empty or every set is all features (the index is undefined there)."""
    from scipy import stats

    selected = selection_matrix(selections, n_features).astype(float)
    n_sets = selected.shape[0]
    frequency = selected.mean(axis=0)
    sizes = selected.sum(axis=1)
    mean_size = sizes.mean() if n_sets else 0.0
    chance = (mean_size / n_features) * (1 - mean_size / n_features)
    if n_sets < 2 or chance == 0:
        return np.nan, np.nan, np.nan
    # The unbiased variance of each feature's selection indicator, relative to its value for
    # random sets of the same mean size.
    stability = 1 - (n_sets / (n_sets - 1)) * np.mean(frequency * (1 - frequency)) / chance
    # Their Theorem 9: each replicate's contribution phi_i, whose spread estimates the variance.
    phi = (
        selected @ frequency / n_features
        - sizes * mean_size / n_features**2
        + stability
        / 2
        * (2 * sizes * mean_size / n_features**2 - sizes / n_features - mean_size / n_features + 1)
    ) / chance
    half_width = stats.norm.ppf((1 + LEVEL) / 2) * np.sqrt(
        4 / n_sets**2 * np.sum((phi - phi.mean()) ** 2)
    )
    return float(stability), float(stability - half_width), float(min(stability + half_width, 1.0))


def stability_table(chosen: pd.DataFrame, n_features: Mapping[str, int]) -> pd.DataFrame:
    """`stability`, `stability_low`, `stability_high` per (kind, problem, budget, method,
    strategy) of the chosen runs, over the replicates; `n_features` per problem."""
    rows = []
    for key, runs in chosen.groupby(KEYS, sort=True, observed=True):
        problem = key[1]
        rows.append((*key, *nogueira_stability(list(runs["features"]), n_features[problem])))
    return pd.DataFrame(rows, columns=[*KEYS, "stability", "stability_low", "stability_high"])
