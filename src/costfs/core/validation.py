"""Checks on user data and costs: every failure names the offending column, key or value."""

from typing import TYPE_CHECKING

import numpy as np

from costfs.core.costs import FeatureCosts
from costfs.core.errors import DataError
from costfs.core.tabular import is_categorical

if TYPE_CHECKING:
    import pandas as pd


def check_unique_names(names, source: str) -> None:
    """Column names, each once."""
    names = [str(name) for name in names]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise DataError(
            f"{source}: column name(s) {repeated} appear more than once in the header; rename or "
            "drop the copies"
        )


def check_feature_frame(frame: "pd.DataFrame", source: str) -> None:
    """Columns of numbers (missing values allowed, infinite ones not) or of levels
    (`costfs.core.tabular`), each with at least one value; raises naming the first bad
    column of `source`."""
    check_unique_names(frame.columns, source)
    if len(frame) == 0:
        raise DataError(f"{source}: has no data rows (only a header)")
    for column in frame.columns:
        values = frame[column]
        if values.isna().all():
            raise DataError(f"{source}: column {column!r} has no values (all missing); drop it")
        if is_categorical(values):
            continue
        infinite = np.isinf(values.to_numpy(dtype=float))
        if infinite.any():
            row = int(np.flatnonzero(infinite)[0])
            raise DataError(
                f"{source}: column {column!r} has an infinite value ({values.iloc[row]} in row "
                f"{row}); leave the cell empty if the value is missing"
            )


def check_features(X: np.ndarray, source: str = "X") -> np.ndarray:
    """A float matrix of shape (n, p): missing values (NaN) allowed, infinite ones not."""
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as error:
        raise DataError(f"{source}: features must be numeric ({error})") from None
    if X.ndim != 2:
        raise DataError(f"{source}: expected a 2-d feature matrix, got shape {X.shape}")
    if X.shape[1] == 0:
        raise DataError(f"{source}: has no feature columns")
    infinite = np.isinf(X)
    if infinite.any():
        row, column = (int(i) for i in np.argwhere(infinite)[0])
        raise DataError(
            f"{source}: value {float(X[row, column])} in row {row}, column {column} is "
            "infinite; use NaN for a missing value"
        )
    empty = np.flatnonzero(np.isnan(X).all(axis=0))
    if empty.size:
        raise DataError(f"{source}: column {int(empty[0])} has no values (all missing); drop it")
    return X


MAX_CLASSES = 100
"""More classes than this is taken for a mistaken target column (class votes are int8)."""


def check_class_target(y: np.ndarray, n_rows: int, source: str = "y") -> np.ndarray:
    """Labels of K >= 2 classes, returned as codes 0..K-1 in sorted label order (for two
    classes: the larger label is 1)."""
    y = np.asarray(y)
    if y.ndim != 1 or y.size != n_rows:
        raise DataError(f"{source}: expected {n_rows} labels in one column, got shape {y.shape}")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise DataError(f"{source}: target has missing or infinite values")
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        shown = ", ".join(repr(c) for c in classes.tolist())
        raise DataError(
            f"{source}: target has {classes.size} class ({shown}); at least two are needed"
        )
    if classes.size > MAX_CLASSES:
        raise DataError(
            f"{source}: target has {classes.size} classes, more than {MAX_CLASSES}; is it a "
            "numeric outcome rather than a class label?"
        )
    return codes.astype(np.int8)


def check_costs(
    costs: object,
    n_features: int,
    source: str = "feature_costs",
    feature_names: np.ndarray | None = None,
) -> np.ndarray:
    """Positive finite costs, one per feature.

    Costs given as a mapping or a pandas Series keyed by feature name are put in the order of
    `feature_names`; every feature needs a cost and every key must be a feature.
    """
    import pandas as pd  # here: the stage jobs that check no user input need no pandas

    if isinstance(costs, dict | pd.Series):
        costs = _costs_by_name(pd.Series(costs), feature_names, source)
    try:
        costs = np.asarray(costs, dtype=float)
    except (TypeError, ValueError) as error:
        raise DataError(f"{source}: costs must be numbers ({error})") from None
    if costs.ndim != 1 or costs.size != n_features:
        raise DataError(
            f"{source}: expected {n_features} costs (one per feature), got shape {costs.shape}"
        )
    bad = ~np.isfinite(costs) | (costs < 0)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"{source}: cost of feature {index} is {float(costs[index])}; costs must be finite "
            "numbers >= 0 (0: a free feature)"
        )
    return costs


def _costs_by_name(
    costs: "pd.Series", feature_names: np.ndarray | None, source: str
) -> "pd.Series":
    if feature_names is None:
        raise DataError(
            f"{source}: costs keyed by feature name need X with column names (a DataFrame); "
            "give an array of costs in column order instead"
        )
    names = [str(name) for name in feature_names]
    keys = [str(key) for key in costs.index]
    missing = [name for name in names if name not in keys]
    unknown = [key for key in keys if key not in names]
    if missing or unknown:
        raise DataError(
            f"{source}: cost names do not match the feature names of X: no cost for "
            f"{missing[:5]}, costs for unknown features {unknown[:5]}"
        )
    return costs.set_axis(keys).loc[names]


def check_feature_groups(
    own_costs: np.ndarray,
    feature_groups: object,
    group_costs: object,
    feature_names: np.ndarray | None,
    source: str = "feature_groups",
) -> FeatureCosts:
    """The costs with shared-cost groups: `feature_groups` maps a feature (by column name) to
    its group, or gives one group per column (None: no group); `group_costs` maps each group
    to its shared cost. Neither given: the plain costs."""
    if feature_groups is None and not group_costs:
        return FeatureCosts.ungrouped(own_costs)
    import pandas as pd

    if feature_groups is None or group_costs is None:
        raise DataError(
            f"{source}: feature_groups and group_costs go together; got only "
            f"{'group_costs' if feature_groups is None else 'feature_groups'}"
        )
    if isinstance(feature_groups, dict | pd.Series):
        if feature_names is None:
            raise DataError(
                f"{source}: groups keyed by feature name need X with column names (a DataFrame)"
            )
        names = [str(name) for name in feature_names]
        unknown = sorted(str(key) for key in dict(feature_groups) if str(key) not in names)
        if unknown:
            raise DataError(f"{source}: unknown features {unknown[:5]}")
        by_name = {str(key): group for key, group in dict(feature_groups).items()}
        groups = [by_name.get(name) for name in names]
    else:
        groups = list(feature_groups)
        if len(groups) != own_costs.size:
            raise DataError(
                f"{source}: expected {own_costs.size} entries (one per column), got {len(groups)}"
            )
    if not isinstance(group_costs, dict | pd.Series):
        raise DataError(f"group_costs: a mapping group -> shared cost, got {group_costs!r}")
    return FeatureCosts.grouped(own_costs, groups, group_costs, source="group_costs")


def check_budgets(budgets, source: str = "budgets") -> list[float]:
    """One or more budgets, each a finite number >= 0, no two the same."""
    values = [check_budget(budget, source) for budget in np.atleast_1d(budgets).tolist()]
    if not values:
        raise DataError(f"{source}: give at least one budget")
    repeated = sorted({value for value in values if values.count(value) > 1})
    if repeated:
        raise DataError(f"{source}: budget(s) {repeated} given more than once")
    return values


def check_positive_integer(value: object, source: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise DataError(f"{source}: must be a positive integer, got {value!r}")
    return int(value)


def check_budget(budget: object, source: str = "budget") -> float:
    """A finite number >= 0: a budget of 0 buys the free features only ("what do the free
    features give?")."""
    try:
        value = float(budget)
    except (TypeError, ValueError):
        raise DataError(f"{source}: must be a number >= 0, got {budget!r}") from None
    if not np.isfinite(value) or value < 0:
        raise DataError(f"{source}: must be a number >= 0, got {budget!r}")
    return value
