"""Evaluation (RF paper, sections 3.4-3.5): refits of selected sets, strategies, summaries."""

import time

import numpy as np
import pandas as pd

from costfs.forest import forest_errors
from costfs.seeds import derive_seed

STRATEGY_VALUES = {"agnostic": 0.0, "simple": 1.0}
"""Strategies that fix the BCR hyperparameter xi; `tuned` picks it by OOB error."""

Z_95 = 1.959963984540054


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


def choose_strategies(runs: pd.DataFrame, strategies: list[str]) -> pd.DataFrame:
    """Rows of `runs` picked by each strategy, per (problem, rep, method, budget).

    `agnostic` and `simple` take xi = 0 and xi = 1 (methods whose hyperparameter is xi);
    `tuned` takes the grid value with the lowest OOB error (ties: lower cost, then lower value);
    a method without a hyperparameter grid has the single strategy `fixed`.
    """
    keys = ["problem", "rep", "method", "budget"]
    picked = []
    is_xi = runs["hyperparameter"] == "xi"
    for strategy in strategies:
        if strategy in STRATEGY_VALUES:
            chosen = runs[
                is_xi & np.isclose(runs["hyperparameter_value"], STRATEGY_VALUES[strategy])
            ]
        elif strategy == "tuned":
            tunable = runs[runs["hyperparameter"] != ""]
            order = tunable.sort_values(keys + ["oob_mmce", "cost", "hyperparameter_value"])
            chosen = order.drop_duplicates(keys, keep="first")
        else:
            raise ValueError(f"unknown strategy {strategy!r}")
        picked.append(chosen.assign(strategy=strategy))
    fixed = runs[runs["hyperparameter"] == ""]
    picked.append(fixed.assign(strategy="fixed"))
    return pd.concat(picked, ignore_index=True)


def summarise(chosen: pd.DataFrame) -> pd.DataFrame:
    """Mean MMCE, Monte Carlo SE and 95% CI, mean cost and size per (problem, budget, method,
    strategy); for real data also the rank per (problem, budget) and the mean rank."""
    group = ["kind", "problem", "budget", "method", "strategy"]
    summary = (
        chosen.groupby(group, sort=True, observed=True)
        .agg(
            n_runs=("test_mmce", "size"),
            mmce_mean=("test_mmce", "mean"),
            mmce_sd=("test_mmce", "std"),
            oob_mmce_mean=("oob_mmce", "mean"),
            cost_mean=("cost", "mean"),
            n_selected_mean=("n_selected", "mean"),
        )
        .reset_index()
    )
    summary["mmce_se"] = summary["mmce_sd"].fillna(0.0) / np.sqrt(summary["n_runs"])
    summary["ci_low"] = summary["mmce_mean"] - Z_95 * summary["mmce_se"]
    summary["ci_high"] = summary["mmce_mean"] + Z_95 * summary["mmce_se"]
    summary = summary.drop(columns="mmce_sd")
    real = summary["kind"] == "real"
    summary["rank"] = np.nan
    summary.loc[real, "rank"] = (
        summary[real].groupby(["problem", "budget"])["mmce_mean"].rank(method="average")
    )
    summary["mean_rank"] = np.nan
    summary.loc[real, "mean_rank"] = (
        summary[real].groupby(["method", "strategy"])["rank"].transform("mean")
    )
    return summary
