"""Tables as feature matrices: missing values and categorical columns.

A categorical column (strings, booleans or a pandas categorical) stays one column, so it is one
feature with one cost however a model uses it. `encode_table` codes its levels in sorted order;
`encode_levels`, fitted on training rows, replaces the codes by each level's class shares
(scikit-learn's `TargetEncoder`, shrunk towards the overall shares for rare levels) and, for
more than two classes, by their first principal component, so one threshold on the column
splits its levels by their classes (ranger's `respect.unordered.factors = "order"`). The
training rows get cross-fitted values (5 folds): a level's value never comes from the row's
own class, so a column of many rare levels (an identifier) does not look informative. A
missing value is a level of its own; a level the training rows lack gets the overall shares.
"""

from typing import TYPE_CHECKING

import numpy as np

from costfs.core.errors import DataError

if TYPE_CHECKING:
    import pandas as pd


def missing_as_lowest(X: np.ndarray) -> np.ndarray:
    """X with its missing values (NaN) as -inf, below every value: a tree that splits between
    values then puts the rows missing the value with the lowest ones, or splits them off."""
    missing = np.isnan(X)
    return np.where(missing, -np.inf, X) if missing.any() else X


def is_categorical(values: "pd.Series") -> bool:
    """Strings, booleans or a pandas categorical: a column of levels, not of numbers."""
    import pandas as pd  # here: a stage job that reads no table needs no pandas

    return not pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values)


def encode_table(frame: "pd.DataFrame", source: str) -> tuple[np.ndarray, np.ndarray]:
    """The feature matrix of a table (NaN where a value is missing) and the positions of its
    categorical columns, which hold the index of each row's level in the sorted levels."""
    import pandas as pd

    X = np.empty(frame.shape, dtype=float)
    categorical = []
    for position, column in enumerate(frame.columns):
        values = frame[column]
        if not is_categorical(values):
            X[:, position] = values.to_numpy(dtype=float)
            continue
        present = values.dropna()
        numbers = pd.to_numeric(present.astype(str), errors="coerce")
        typed = pd.api.types.is_bool_dtype(values) or isinstance(values.dtype, pd.CategoricalDtype)
        if not typed and numbers.notna().all():
            X[:, position] = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
            continue
        if not typed and numbers.notna().any():
            text = present[numbers.isna()]
            raise DataError(
                f"{source}: column {column!r} mixes numbers and text (e.g. {text.iloc[0]!r} in "
                f"row {text.index[0]}); if {text.iloc[0]!r} marks a missing value, list it in "
                "the data set's missing_values (--missing-values for costfs select), else make "
                "the column all text so it is read as categorical"
            )
        labels = values.astype("string")
        column_levels = np.array(sorted(labels.dropna().unique()), dtype=object)
        codes = pd.Categorical(labels, categories=column_levels).codes
        X[:, position] = np.where(codes < 0, np.nan, codes)
        categorical.append(position)
    return X, np.array(categorical, dtype=int)


LEVEL_FOLDS = 5


def encode_levels(
    X: np.ndarray,
    y: np.ndarray,
    categorical: np.ndarray,
    *,
    seed: int,
    X_other: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """X (training rows, class codes `y`) and X_other (rows to apply the fit to) with their
    `categorical` columns' level codes replaced by the levels' class shares: cross-fitted on
    X, fitted on all of X for X_other."""
    if categorical.size == 0:
        return X, X_other
    # Imported here: every command imports this module, few meet a categorical column, and
    # scikit-learn takes about a second to import.
    from sklearn.model_selection import StratifiedKFold
    from sklearn.preprocessing import TargetEncoder

    n_classes = max(2, int(y.max()) + 1)
    encoder = TargetEncoder(
        target_type="binary" if n_classes == 2 else "multiclass",
        cv=StratifiedKFold(LEVEL_FOLDS, shuffle=True, random_state=seed % 2**32),
    )
    encoded = encoder.fit_transform(X[:, categorical], y)
    X = X.copy()
    X[:, categorical] = _one_column_each(encoded, encoded, categorical.size)
    if X_other is not None:
        X_other = X_other.copy()
        other = encoder.transform(X_other[:, categorical])
        X_other[:, categorical] = _one_column_each(other, encoded, categorical.size)
    return X, X_other


def _one_column_each(shares: np.ndarray, training: np.ndarray, n_columns: int) -> np.ndarray:
    """Per column, its K class-share columns (K > 2; feature-major) as their score on the
    first principal component of the training rows' shares; two classes: unchanged."""
    n_shares = shares.shape[1] // n_columns
    if n_shares == 1:
        return shares
    scores = np.empty((shares.shape[0], n_columns))
    for column in range(n_columns):
        block = slice(column * n_shares, (column + 1) * n_shares)
        centre = training[:, block].mean(axis=0)
        _, _, directions = np.linalg.svd(training[:, block] - centre, full_matrices=False)
        scores[:, column] = (shares[:, block] - centre) @ directions[0]
    return scores
