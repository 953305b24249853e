"""A model to take away: the Random Forest refit on one selection's columns as a scikit-learn
pipeline that reads the table as it comes (text columns and missing values included), and the
check that a new table has the columns it was fit on.

The pipeline is the scikit-learn counterpart of the refits that estimate a selection's error:
a text column's levels become their class shares (`TargetEncoder`, cross-fitted on the
training rows, a level it never saw gets the overall shares; a missing value is a level of its
own), and the forest has `floor(sqrt(p))` candidate columns per split, nodes down to one row
and bootstrap samples. A missing number is sent down whichever side of each split did better
in training (scikit-learn's own handling) rather than ranked below every value.
"""

from collections.abc import Sequence

import numpy as np
import pandas as pd

from costfs.core.errors import DataError
from costfs.core.names import some_names
from costfs.core.tabular import LEVEL_FOLDS, is_categorical


def model_columns(frame: pd.DataFrame, features: Sequence[str], categorical: Sequence[str]):
    """`frame`'s model columns as the pipeline reads them: text columns as objects with NaN
    where missing, the others as floats."""
    columns = {}
    for name in features:
        values = frame[name]
        if name in categorical:
            text = values.astype("string")
            columns[name] = text.astype(object).where(text.notna(), np.nan)
        else:
            columns[name] = values.astype(float)
    return pd.DataFrame(columns, index=frame.index, columns=list(features))


def fit_model(
    frame: pd.DataFrame,
    features: Sequence[str],
    categorical: Sequence[str],
    labels: np.ndarray,
    *,
    n_trees: int,
    seed: int,
    n_jobs: int = 1,
):
    """The pipeline refit on `frame`'s `features` (those in `categorical` as text) and the
    class `labels`; with no features, a model that gives every row the training shares."""
    from sklearn.compose import ColumnTransformer
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import TargetEncoder

    X = model_columns(frame, features, categorical)
    if not features:
        return Pipeline([("model", DummyClassifier(strategy="prior"))]).fit(X, labels)
    text = [name for name in features if name in categorical]
    numbers = [name for name in features if name not in categorical]
    columns = ColumnTransformer(
        [
            (
                "levels",
                TargetEncoder(
                    cv=StratifiedKFold(LEVEL_FOLDS, shuffle=True, random_state=seed % 2**32)
                ),
                text,
            ),
            ("numbers", "passthrough", numbers),
        ],
        verbose_feature_names_out=False,
    )
    forest = RandomForestClassifier(
        n_estimators=n_trees, max_features="sqrt", random_state=seed % 2**32, n_jobs=n_jobs
    )
    return Pipeline([("columns", columns), ("forest", forest)]).fit(X, labels)


SHOWN_COLUMNS, SHOWN_VALUES = 8, 3
"""How many columns, and values, an error message lists before it cuts the list short."""


def check_model_columns(
    frame: pd.DataFrame, features: Sequence[str], categorical: Sequence[str], source: str
) -> pd.DataFrame:
    """`frame`'s model columns (`model_columns`); raises `DataError` naming `source` and the
    columns where a feature is absent or text stands in a column the model read as numbers."""
    absent = [name for name in features if name not in frame.columns]
    if absent:
        raise DataError(
            f"{source}: the model needs column(s) {absent}, which this file lacks (its "
            f"{len(frame.columns)} columns: {some_names(frame.columns, SHOWN_COLUMNS)})"
        )
    for name in features:
        values = frame[name]
        if name in categorical or not is_categorical(values):
            continue
        numbers = pd.to_numeric(values.astype(str), errors="coerce")
        stray = np.flatnonzero((values.notna() & numbers.isna()).to_numpy())
        if stray.size:
            examples = ", ".join(
                f"{values.iloc[position]!r} in row {position + 1}"
                for position in stray[:SHOWN_VALUES]
            )
            raise DataError(
                f"{source}: column {name!r} holds text where the model was fit on numbers: "
                f"{stray.size} value(s), e.g. {examples} (rows counted from 1 after the "
                "header); a mark of a missing value goes in --missing-values, and numbers "
                "with a decimal comma need --decimal ,"
            )
        frame = frame.assign(**{name: pd.to_numeric(values, errors="coerce")})
    return model_columns(frame, features, categorical)
