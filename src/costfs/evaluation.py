"""Evaluation (RF paper, section 3.5): one Random Forest refit per distinct selected set."""

import time

import numpy as np
import pandas as pd

from costfs.forest import forest_errors
from costfs.seeds import derive_seed


def evaluate_feature_sets(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    feature_sets: list[tuple[int, ...]],
    *,
    n_trees: int,
    seed_parts: tuple,
    n_jobs: int = 1,
    engine: str = "auto",
) -> pd.DataFrame:
    """One forest per distinct set: its OOB and test error, seeded from the sorted set itself.

    Seeding from the set (not from the method or the order of evaluation) gives the same
    numbers for the same set wherever it is selected.
    """
    rows = []
    for features in sorted(set(feature_sets)):
        columns = list(features)
        started = time.perf_counter()
        oob, test = forest_errors(
            X[:, columns],
            y,
            X_test[:, columns],
            y_test,
            n_trees=n_trees,
            seed=derive_seed(*seed_parts, "evaluate", features),
            n_jobs=n_jobs,
            engine=engine,
        )
        rows.append(
            {
                "features": features,
                "oob_mmce": oob,
                "test_mmce": test,
                "seconds": time.perf_counter() - started,
            }
        )
    return pd.DataFrame(rows, columns=["features", "oob_mmce", "test_mmce", "seconds"])
