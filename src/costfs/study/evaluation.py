"""Evaluation (RF paper, section 3.5): one Random Forest refit per distinct selected set."""

import time
from collections.abc import Sequence

import numpy as np
import pandas as pd

from costfs.core.costs import FeatureCosts
from costfs.core.errors import DataError
from costfs.core.metrics import classification_metrics
from costfs.core.progress import progress_bar
from costfs.engine.trees import RefitForests, refit_seed
from costfs.methods._bcr import BUDGET_TOLERANCE


def check_selection(selection: pd.DataFrame, costs: FeatureCosts, source: str) -> None:
    """Every selected set names distinct columns of the data and fits its budget; raises
    `DataError` naming `source` (a selection file that changed after it was written is never
    evaluated)."""
    for features, budget in zip(selection["features"], selection["budget"], strict=True):
        columns = [int(j) for j in features]
        outside = [j for j in columns if not 0 <= j < costs.n_features]
        if outside:
            raise DataError(
                f"{source}: the set {columns} names column(s) {outside}, but the data has "
                f"{costs.n_features} columns; rebuild the file (snakemake --forcerun)"
            )
        if len(set(columns)) != len(columns):
            raise DataError(
                f"{source}: the set {columns} names a column twice; rebuild the file "
                "(snakemake --forcerun)"
            )
        cost = costs.total(columns)
        if cost > budget + BUDGET_TOLERANCE:
            raise DataError(
                f"{source}: the set {columns} costs {cost:g}, over its budget {budget:g}; "
                "rebuild the file (snakemake --forcerun)"
            )


def evaluate_feature_sets(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray | None,
    y_test: np.ndarray | None,
    feature_sets: list[tuple[int, ...]],
    *,
    n_trees: int,
    seed_parts: tuple,
    n_jobs: int = 1,
    engine: str = "auto",
    metrics: Sequence[str] = (),
) -> pd.DataFrame:
    """One forest per distinct set: its OOB and test error, seeded from the sorted set itself,
    and `test_<metric>` of each further metric of `costfs.core.metrics.METRICS` on the test
    data (AUC, Brier score, ...).

    Seeding from the set (not from the method or the order of evaluation) gives the same
    numbers for the same set wherever it is selected. Without test data the test error is NaN.
    """
    further = [metric for metric in metrics if metric != "mmce"]
    if further and X_test is None:
        raise ValueError(f"metrics {further} need test data")
    rows = []
    distinct = sorted(set(feature_sets))
    refits = RefitForests(X, y, X_test, y_test, subsets=distinct, engine=engine)
    with progress_bar("Random Forest refits", total=len(distinct), unit="forest") as shown:
        for features in distinct:
            started = time.perf_counter()
            oob, test, shares = refits.errors(
                features,
                n_trees=n_trees,
                seed=refit_seed(seed_parts, features),
                n_jobs=n_jobs,
            )
            rows.append(
                {
                    "features": features,
                    "oob_mmce": oob,
                    "test_mmce": test,
                    **{
                        f"test_{metric}": value
                        for metric, value in (
                            classification_metrics(y_test, shares, tuple(further)).items()
                            if further
                            else ()
                        )
                    },
                    "seconds": time.perf_counter() - started,
                }
            )
            shown.update(1)
    columns = ["features", "oob_mmce", "test_mmce", *(f"test_{m}" for m in further), "seconds"]
    return pd.DataFrame(rows, columns=columns)


RUN_KEYS = [
    "problem",
    "kind",
    "dataset",
    "rep",
    "method",
    "hyperparameter",
    "hyperparameter_value",
    "budget",
]
"""The leading columns of `runs.parquet`: what identifies a row."""


def run_table(
    selection: pd.DataFrame,
    results: pd.DataFrame,
    costs: np.ndarray,
    *,
    identity: dict,
    engine: str,
    feature_names: Sequence[str],
    extra_columns: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The rows of `runs.parquet` for one selection table: the selection, `extra_columns` of
    the method's own model, the run's `identity` (problem, kind, dataset, rep, method), and per
    row the set's size, cost, refit errors (`results` of `evaluate_feature_sets`) and
    `feature_names` (the selected columns by name)."""
    sets = [tuple(int(j) for j in features) for features in selection["features"]]
    if extra_columns is not None:
        selection = pd.concat([selection, extra_columns.set_axis(selection.index)], axis=1)
    by_set = results.set_index("features")
    selection_engine = selection.pop("selection_engine")
    runs = selection.assign(
        **identity,
        n_selected=[len(s) for s in sets],
        cost=[FeatureCosts.of(costs).total(s) for s in sets],
        oob_mmce=by_set.loc[sets, "oob_mmce"].to_numpy(),
        test_mmce=by_set.loc[sets, "test_mmce"].to_numpy(),
        **{
            column: by_set.loc[sets, column].to_numpy()
            for column in by_set.columns
            if column.startswith("test_") and column != "test_mmce"
        },
        engine=engine,
        selection_engine=selection_engine,
        feature_names=[[str(feature_names[j]) for j in s] for s in sets],
    ).rename(columns={"value": "hyperparameter_value"})
    return runs[RUN_KEYS + [column for column in runs.columns if column not in RUN_KEYS]]
