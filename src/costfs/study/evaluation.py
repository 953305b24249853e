"""Evaluation (RF paper, section 3.5): one Random Forest refit per distinct selected set."""

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from costfs.core import columns
from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.core.errors import DataError
from costfs.core.metrics import classification_metrics
from costfs.core.progress import progress_bar
from costfs.engine.trees import RefitForests, refit_seed

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


def check_selection(selection: Mapping, costs: FeatureCosts, source: str) -> None:
    """Every selected set of `selection` (a table or a mapping of columns with `features`
    and `budget`) names distinct columns of the data and fits its budget; raises
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
    **refit_options,
) -> "pd.DataFrame":
    """`refit_feature_sets` (the same arguments) as a table: a row per distinct set, with the
    columns `features`, `oob_mmce`, `test_mmce`, `test_<metric>` of each further metric and
    `seconds`."""
    import pandas as pd  # here: the evaluation job takes the rows and needs no pandas

    further = [metric for metric in refit_options.get("metrics", ()) if metric != "mmce"]
    columns = ["features", "oob_mmce", "test_mmce", *(f"test_{m}" for m in further), "seconds"]
    rows = refit_feature_sets(X, y, X_test, y_test, feature_sets, **refit_options)
    return pd.DataFrame(rows, columns=columns)


def refit_feature_sets(
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
) -> list[dict]:
    """One forest per distinct set, in the order of the sorted sets: a row (a dict) with the
    set as `features`, its OOB and test error, seeded from the sorted set itself,
    `test_<metric>` of each further metric of `costfs.core.metrics.METRICS` on the test
    data (AUC, Brier score, ...) and the `seconds` it took.

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
    return rows


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
    selection: "pa.Table",
    refits: Sequence[Mapping],
    costs: np.ndarray,
    *,
    identity: dict,
    engine: str,
    feature_names: Sequence[str],
    extra_columns: Mapping | None = None,
) -> "pa.Table":
    """The rows of `runs.parquet` for one selection table: the selection, `extra_columns` of
    the method's own model, the run's `identity` (problem, kind, dataset, rep, method), and per
    row the set's size, cost, refit errors (the rows of `refit_feature_sets`) and
    `feature_names` (the selected columns by name).

    A pyarrow Table, typed as pandas would type these columns (`costfs.core.columns`), so
    that the evaluation job imports no pandas and `runs.parquet` reads the same."""
    import pyarrow as pa

    sets = [tuple(int(j) for j in features) for features in selection["features"].to_pylist()]
    by_set = {refit["features"]: refit for refit in refits}
    errors = [name for name in refits[0] if name.startswith(("oob_", "test_"))]
    table = {name: selection[name] for name in selection.column_names if name != "selection_engine"}
    for name in extra_columns if extra_columns is not None else ():
        table[name] = columns.value_column(list(extra_columns[name]), name)
    for name, value in identity.items():
        table[name] = columns.value_column([value] * len(sets), name)
    table["n_selected"] = columns.integer_column([len(s) for s in sets])
    feature_costs = FeatureCosts.of(costs)
    table["cost"] = columns.float_column([feature_costs.total(s) for s in sets])
    for name in errors:
        table[name] = columns.float_column([by_set[s][name] for s in sets])
    table["engine"] = columns.text_column([engine] * len(sets))
    table["selection_engine"] = selection["selection_engine"]
    table["feature_names"] = columns.text_lists_column(
        [[str(feature_names[j]) for j in s] for s in sets]
    )
    table["hyperparameter_value"] = table.pop("value")
    order = RUN_KEYS + [name for name in table if name not in RUN_KEYS]
    return pa.table({name: table[name] for name in order})
