"""Selection on one data set without a study: what `costfs select` computes.

One method, one cost vector and a few budgets: the method's cost-free part once, its
selections for every budget and hyperparameter value, and a Random Forest refit on each
distinct selected set for its OOB error. The tuned value is picked as the study's `tuned`
strategy picks it (`costfs.study.aggregation.choose_strategies`).
"""

import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from costfs.core.costs import FeatureCosts
from costfs.core.validation import check_budgets, check_positive_integer
from costfs.methods import load_method, tuning_grid
from costfs.study.aggregation import choose_strategies
from costfs.study.evaluation import evaluate_feature_sets


def select_once(
    X: np.ndarray,
    y: np.ndarray,
    costs,
    budgets: Sequence[float],
    *,
    method: str = "sts",
    value: float | str = "tuned",
    grid: Sequence[float] | None = None,
    seed: int = 0,
    n_trees: int = 500,
    n_jobs: int = 1,
    engine: str = "auto",
    progress: Callable[[str], None] = lambda message: None,
    **parameters,
) -> pd.DataFrame:
    """Per budget: the selected `features` (column indices), the method's hyperparameter
    `value` (NaN without one), the set's `cost` (`costs`: an array or `FeatureCosts` with
    shared-cost groups) and `oob_mmce`, the OOB error of an `n_trees`-tree Random Forest
    refit on it.

    `value` is a number, or "tuned": the value of `grid` (by default `tuning_grid`: ξ's
    `XI_TUNING_GRID`, another hyperparameter's own grid) whose set has the lowest refit OOB
    error, ties to the lower cost, then the lower value. With the same `seed`, the features are
    those of the method's selector fit with `random_state=seed` (the selector tunes the same
    way). `parameters` are the method's own (its declared defaults otherwise).
    """
    costs = FeatureCosts.of(costs)
    budgets = check_budgets(budgets)
    n_trees = check_positive_integer(n_trees, "n_trees")
    declared = load_method(method)
    hyperparameter = declared.hyperparameter
    if hyperparameter is None:
        values = []
    elif value == "tuned":
        values = [float(v) for v in (grid if grid is not None else tuning_grid(hyperparameter))]
    else:
        values = [float(value)]
    progress(f"{method}: selection for {len(budgets)} budget(s) x {max(len(values), 1)} value(s)")
    _, selection = declared.prepare_and_select(
        X,
        y,
        costs,
        list(budgets),
        values,
        seed=seed,
        n_jobs=n_jobs,
        engine=engine,
        source=method,
        **parameters,
    )
    records = selection.records
    if value != "tuned":
        # one record per budget, as the selector picks it
        records = [
            declared.choose_record([r for r in records if r["budget"] == budget])
            for budget in budgets
        ]
    sets = [tuple(int(j) for j in record["features"]) for record in records]
    progress(f"{method}: {len(set(sets))} Random Forest refit(s) of {n_trees} trees")
    refits = evaluate_feature_sets(
        X, y, None, None, sets, n_trees=n_trees, seed_parts=(seed,), n_jobs=n_jobs, engine=engine
    ).set_index("features")
    runs = pd.DataFrame(
        {
            "problem": "data",
            "rep": 1,
            "method": method,
            "budget": [float(record["budget"]) for record in records],
            "hyperparameter": "" if hyperparameter is None else hyperparameter.name,
            "hyperparameter_value": [
                math.nan if hyperparameter is None else float(record["value"]) for record in records
            ],
            "features": sets,
            "cost": [costs.total(s) for s in sets],
            "oob_mmce": refits.loc[sets, "oob_mmce"].to_numpy(),
        }
    )
    chosen = choose_strategies(runs, ["tuned"])
    return (
        chosen.sort_values("budget")
        .rename(columns={"hyperparameter_value": "value"})[
            ["budget", "value", "features", "cost", "oob_mmce"]
        ]
        .reset_index(drop=True)
    )
