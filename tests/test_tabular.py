"""Categorical columns and missing values as feature matrices (costfs.core.tabular)."""

import numpy as np
import pandas as pd
import pytest

from costfs.core.tabular import encode_levels, encode_table, missing_as_lowest


def test_levels_become_class_shares_cross_fitted_on_training_rows(rng):
    """A level's value on a training row comes from the other folds, so 300 one-row levels
    carry no class information on the training rows; a level only in the other rows gets
    the overall share."""
    n_rows = 300
    y = rng.integers(0, 2, size=n_rows)
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(n_rows)], "g": np.where(y, "p", "q")})
    X, categorical = encode_table(frame, "t")
    unseen = np.array([[np.nan, 0.0], [n_rows + 1.0, 1.0]])  # missing; a level only here
    train, other = encode_levels(X, y, categorical, seed=0, X_other=unseen)
    identifier = train[:, 0]
    assert np.ptp(identifier) == pytest.approx(0.0)  # every one-row level: the overall share
    assert train[y == 1, 1].min() > train[y == 0, 1].max()
    assert other[:, 0] == pytest.approx([y.mean(), y.mean()])  # neither level was seen


def test_more_than_two_classes_give_one_column_per_categorical(rng):
    """Three classes: one column, the levels' class shares on their first principal component;
    levels with equal shares get equal values, different ones differ."""
    level = rng.choice(["a", "b", "c", "d"], size=400)
    y = pd.Series(level).map({"a": 0, "b": 1, "c": 2, "d": 2}).to_numpy()
    X, categorical = encode_table(pd.DataFrame({"level": level, "x": rng.normal(size=400)}), "t")
    encoded, _ = encode_levels(X, y, categorical, seed=1)
    assert encoded.shape == (400, 2)
    means = pd.Series(encoded[:, 0]).groupby(level).mean()
    assert means["c"] == pytest.approx(means["d"], abs=0.05)
    assert len({round(means[k], 1) for k in "abc"}) == 3


def test_missing_values_sort_below_every_value():
    X = np.array([[1.0, np.nan], [-5.0, 2.0]])
    lowest = missing_as_lowest(X)
    assert lowest[0, 1] == -np.inf and lowest[1, 0] == -5.0
    complete = np.ones((2, 2))
    assert missing_as_lowest(complete) is complete
