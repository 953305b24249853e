"""How well a selection does on data it has not seen: the whole selection (its hyperparameter
tuning included) repeated on training splits, each selected set scored by a Random Forest refit
on held-out rows, per budget; what `costfs select` reports and `costfs.cost_accuracy_curve`
returns."""

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from costfs.core.metrics import check_metrics, classification_metrics
from costfs.core.pareto import on_pareto_front
from costfs.core.progress import progress_bar
from costfs.core.tabular import encode_levels, encode_table
from costfs.core.validation import check_budgets, check_class_target, check_features
from costfs.engine.trees import refit_errors, refit_seed
from costfs.methods._path import entry_at
from costfs.study.aggregation import bounded_interval, replicate_se

SPLITS = 10
"""Default number of random training/held-out splits."""

LOWER_IS_BETTER = ("mmce", "brier")
"""Metrics of which less is better (the others: more)."""

HELD_OUT = 1 / 3
"""Default share of the rows a split holds out (stratified by class)."""


def cost_accuracy_curve(
    selector,
    X,
    y,
    budgets: Sequence[float],
    *,
    cv=None,
    metrics: Sequence[str] = ("mmce",),
    n_trees: int = 500,
    random_state: int = 0,
    n_jobs: int = 1,
    engine: str = "auto",
) -> pd.DataFrame:
    """Per budget, what `selector` (a costfs selector, its `budget` set to each of `budgets`)
    buys and how well a Random Forest on its selection predicts rows it did not see.

    `cv` splits the rows as scikit-learn's model selection does (an integer: stratified
    k-fold; a splitter such as `RepeatedStratifiedKFold`); None: `SPLITS` stratified random
    splits holding out `HELD_OUT` of the rows. On each split the selector is fit on the
    training rows (a tuned hyperparameter is tuned there) and an `n_trees`-tree forest on the
    selected columns of the training rows scores the held-out rows by `metrics`
    (`costfs.core.metrics.METRICS`). Categorical columns of a DataFrame are encoded on each
    split's training rows only.

    The selector is fit once per split: each budget's set is read off its budget path
    (`path_`; where the path is not exact, it is read over `budgets`), and each distinct set
    of a split is refit once.

    One row per budget: the number of splits, the mean true cost and size of the selected
    sets, how many distinct sets the splits selected (`distinct_sets`), per metric its mean
    over the splits with a 95% interval (`<metric>_low`, `<metric>_high`), and
    `on_pareto_front`: whether the budget's mean of the first metric beats that of every
    budget of lower mean cost (the Pareto front of the curve, with its intervals). The
    interval is the corrected resampled t interval of Nadeau & Bengio (2003): the splits
    share training rows, so their spread understates the uncertainty, and the variance is
    inflated by n_test / n_train.

    To choose a budget by cost and accuracy, read the table: e.g. the cheapest budget whose
    interval overlaps that of the lowest error.
    """
    from sklearn.model_selection import check_cv

    columns = X.columns if isinstance(X, pd.DataFrame) else None
    if columns is not None:
        codes, categorical = encode_table(X, "X")
    else:
        codes, categorical = np.asarray(X, dtype=float), np.array([], dtype=int)
    codes = check_features(codes)
    labels = check_class_target(y, codes.shape[0])
    splitter = (
        held_out_splits(SPLITS, random_state)
        if cv is None
        else check_cv(cv, labels, classifier=True)
    )
    return assess_selection(
        selector,
        codes,
        labels,
        budgets,
        categorical=categorical,
        columns=columns,
        cv=splitter,
        metrics=metrics,
        n_trees=n_trees,
        random_state=random_state,
        n_jobs=n_jobs,
        engine=engine,
    )


def held_out_splits(n_splits: int, seed: int):
    """`n_splits` stratified random splits, each holding out `HELD_OUT` of the rows."""
    from sklearn.model_selection import StratifiedShuffleSplit

    return StratifiedShuffleSplit(n_splits=n_splits, test_size=HELD_OUT, random_state=seed)


def assess_selection(
    selector,
    codes: np.ndarray,
    labels: np.ndarray,
    budgets: Sequence[float],
    *,
    categorical: Sequence[int] = (),
    columns: Sequence[str] | None = None,
    cv,
    metrics: Sequence[str] = ("mmce",),
    n_trees: int = 500,
    random_state: int = 0,
    n_jobs: int = 1,
    engine: str = "auto",
    recommended: Mapping[float, Sequence[int]] | None = None,
) -> pd.DataFrame:
    """`cost_accuracy_curve` on checked data: `codes` (categorical columns at `categorical` as
    level codes), class codes `labels`, a splitter `cv`; `columns` names the columns for a
    selector whose costs are keyed by name.

    With the set `recommended` at each budget (e.g. the selection on all rows), each budget's
    row also says how many splits chose that very set (`same_set_splits`) and its mean held-out
    metrics on those splits (`<metric>_same_set`, NaN where none did): the recommended set's
    own error, beside the procedure's, whose splits may have chosen other sets."""
    from sklearn.base import clone

    check_metrics(metrics)
    budgets = check_budgets(budgets)
    splits = list(cv.split(codes, labels))
    rows = []
    with progress_bar("held-out splits", total=len(splits), unit="split") as shown:
        for split, (train, test) in enumerate(splits):
            X_train, X_test = encode_levels(
                codes[train],
                labels[train],
                np.asarray(categorical, dtype=int),
                seed=random_state,
                X_other=codes[test],
            )
            fit_on = X_train if columns is None else pd.DataFrame(X_train, columns=columns)
            # One fit per split: every budget's set is read off its budget path (exact, or
            # over the budgets asked for); a `precomputed` the selector was given is of
            # other rows.
            reused = {"precomputed": None} if "precomputed" in selector.get_params() else {}
            fitted = (
                clone(selector)
                .set_params(budget=max(budgets), path_budgets=list(budgets), **reused)
                .fit(fit_on, labels[train])
            )
            path = fitted.path_.to_dict("records")
            scored: dict[tuple[int, ...], dict] = {}
            for budget in budgets:
                entry = entry_at(path, budget)
                features = tuple(int(j) for j in entry["feature_indices"])
                if features not in scored:
                    _, _, shares = refit_errors(
                        X_train[:, list(features)],
                        labels[train],
                        X_test[:, list(features)],
                        labels[test],
                        n_trees=n_trees,
                        seed=refit_seed((random_state, split), features),
                        n_jobs=n_jobs,
                        engine=engine,
                    )
                    scored[features] = classification_metrics(labels[test], shares, tuple(metrics))
                rows.append(
                    {
                        "budget": budget,
                        "split": split,
                        "features": features,
                        "cost": entry["cost"],
                        "held_out_share": len(test) / len(train),
                        **scored[features],
                    }
                )
            shown.update(1)
    return _per_budget(pd.DataFrame(rows), list(metrics), recommended)


def _per_budget(
    per_split: pd.DataFrame,
    metrics: list[str],
    recommended: Mapping[float, Sequence[int]] | None = None,
) -> pd.DataFrame:
    rows = []
    for budget, runs in per_split.groupby("budget", sort=True):
        n_splits = len(runs)
        row = {
            "budget": budget,
            "n_splits": n_splits,
            "cost": runs["cost"].mean(),
            "n_features": runs["features"].map(len).mean(),
            "distinct_sets": runs["features"].map(frozenset).nunique(),
        }
        share = runs["held_out_share"].mean()
        for metric in metrics:
            values = runs[metric].dropna()
            se = replicate_se(values.std(), len(values), share) if len(values) > 1 else np.nan
            low, high = bounded_interval(values.mean(), se, len(values))
            row |= {metric: values.mean(), f"{metric}_low": low, f"{metric}_high": high}
        if recommended is not None:
            same = runs["features"].map(set) == set(recommended[budget])
            row["same_set_splits"] = int(same.sum())
            row |= {f"{metric}_same_set": runs.loc[same, metric].mean() for metric in metrics}
        rows.append(row)
    table = pd.DataFrame(rows)
    if len(table):
        first = metrics[0]
        kind = "error" if first in LOWER_IS_BETTER else "accuracy"
        known = table[first].notna()
        front = np.zeros(len(table), dtype=bool)
        front[known.to_numpy()] = on_pareto_front(
            table.loc[known, "cost"], table.loc[known, first], kind=kind
        )
        table["on_pareto_front"] = front
    return table
