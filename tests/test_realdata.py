import numpy as np
import pandas as pd
import pytest

from costfs.core.validation import DataError
from costfs.study.realdata import costs_from_table, split_indices, table_to_arrays

EXPECTED = {  # rows, features, positives (data/README.md)
    "ada": (4562, 48, 1132),
    "analcatdata_authorship": (841, 70, 317),
    "qsar-biodeg": (1055, 41, 356),
    "spambase": (4601, 57, 1813),
    "tokyo1": (959, 44, 613),
    "wdbc": (569, 30, 212),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_data_sets_load_with_their_documented_shape(data_sets, name):
    frame = pd.read_csv(data_sets / f"{name}.csv.gz")
    X, y, names, _ = table_to_arrays(frame, "target", 1, name)
    rows, features, positives = EXPECTED[name]
    assert X.shape == (rows, features) and len(names) == features
    assert int(y.sum()) == positives


def test_sklearn_breast_cancer_with_inverted_labels_equals_the_csv(data_sets):
    from sklearn.datasets import load_breast_cancer

    csv = table_to_arrays(pd.read_csv(data_sets / "wdbc.csv.gz"), "target", 1, "csv")
    builtin = table_to_arrays(load_breast_cancer(as_frame=True).frame, "target", 0, "sklearn")
    assert np.allclose(csv[0], builtin[0]) and np.array_equal(csv[1], builtin[1])


def test_label_mapping_positive_class_and_errors():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "Class": ["x", "y", "x"]})
    _, y, names, _ = table_to_arrays(frame, "Class", "x", "t")
    assert y.tolist() == [1, 0, 1] and names == ["a"]
    with pytest.raises(DataError, match="no target column 'label'"):
        table_to_arrays(frame, "label", "x", "t")
    with pytest.raises(DataError, match="positive class 'z' does not occur"):
        table_to_arrays(frame, "Class", "z", "t")
    with pytest.raises(DataError, match="1 class .*; at least two are needed"):
        table_to_arrays(frame.assign(Class="x"), "Class", "x", "t")


def test_without_positive_class_each_label_is_a_class():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "Class": ["b", "c", "a", "b"]})
    _, y, _, _ = table_to_arrays(frame, "Class", None, "t")
    assert y.tolist() == [1, 2, 0, 1]
    _, y, _, _ = table_to_arrays(frame, "Class", "b", "t")
    assert y.tolist() == [1, 0, 0, 1]


def test_text_columns_are_categorical_and_missing_values_stay_missing():
    frame = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": ["v", "u", None], "target": [0, 1, 0]})
    X, _, names, categorical = table_to_arrays(frame, "target", 1, "t")
    assert names == ["a", "b"] and list(categorical) == [1]
    np.testing.assert_array_equal(X, [[1.0, 1.0], [np.nan, 0.0], [3.0, np.nan]])
    frame["b"] = ["u", 2, 3]
    with pytest.raises(DataError, match="column 'b' mixes numbers and text"):
        table_to_arrays(frame, "target", 1, "t")
    frame = pd.DataFrame({"a": [1.0, np.inf], "target": [0, 1]})
    with pytest.raises(DataError, match="column 'a' has an infinite value"):
        table_to_arrays(frame, "target", 1, "t")


def test_split_is_two_thirds_disjoint_and_seeded():
    train, test = split_indices(np.random.default_rng(1), 569, 2 / 3)
    assert train.size == 379 and test.size == 190
    assert np.intersect1d(train, test).size == 0
    assert np.array_equal(np.sort(np.r_[train, test]), np.arange(569))
    again, _ = split_indices(np.random.default_rng(1), 569, 2 / 3)
    other, _ = split_indices(np.random.default_rng(2), 569, 2 / 3)
    assert np.array_equal(train, again) and not np.array_equal(train, other)


def test_a_cost_row_for_a_mistyped_name_names_the_close_column():
    table = pd.DataFrame({"feature": ["mean radius ", "texture"], "cost": [1.0, 2.0]})
    with pytest.raises(DataError, match=r"did you mean 'mean radius'\?"):
        costs_from_table(table, ["mean radius", "texture"], "costs.csv")


def test_a_column_without_a_cost_is_dropped_with_a_quoted_name():
    table = pd.DataFrame({"feature": ["texture"], "cost": [2.0]})
    with pytest.raises(
        DataError, match=r"--drop 'area error'; in a study, drop: \[\"area error\"\]"
    ):
        costs_from_table(table, ["area error", "texture"], "costs.csv")


def test_a_missing_target_value_is_named_by_its_row():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "target": [0, None, 1, 0]})
    with pytest.raises(DataError, match=r"no value in 1 row\(s\), e.g. row\(s\) \[2\]"):
        table_to_arrays(frame, "target", None, "data.csv")


def test_a_missing_target_names_a_few_columns_and_how_many_more():
    frame = pd.DataFrame({f"feature {index}": [1.0, 2.0] for index in range(10)})
    with pytest.raises(DataError, match=r"columns are feature 0, .*, feature 7 and 2 more$"):
        table_to_arrays(frame, "target", None, "data.csv")
