"""Arrow columns built from buffers (`costfs.core.columns`) hold what pandas would write for the
same values: the same Arrow types, and the same frame when read back."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from costfs.cli import storage
from costfs.core import columns


def written_by_pandas(tmp_path, values) -> tuple[pa.Schema, pd.DataFrame]:
    storage.write_table(tmp_path / "pandas.parquet", pd.DataFrame({"c": values}))
    return read_back(tmp_path / "pandas.parquet")


def read_back(path) -> tuple[pa.Schema, pd.DataFrame]:
    return pq.read_schema(path).remove_metadata(), storage.read_table(path)


@pytest.mark.parametrize(
    "values",
    [
        [0.5, np.nan, 2.0],
        [1, 2, np.int64(3)],
        [1, None, 3],
        [1, 2.5],
        [None, None],
        ["xi", "", "é"],
        [np.float64(0.25), 1],
    ],
)
def test_a_column_of_values_is_typed_and_read_as_pandas_writes_it(tmp_path, values):
    storage.write_table(
        tmp_path / "built.parquet", pa.table({"c": columns.value_column(values, "c")})
    )
    schema, frame = read_back(tmp_path / "built.parquet")
    expected_schema, expected = written_by_pandas(tmp_path, values)
    assert schema == expected_schema
    pd.testing.assert_frame_equal(frame, expected)


@pytest.mark.parametrize(
    ("build", "lists"),
    [
        (columns.integer_lists_column, [[3, 1], [], [np.int32(7)]]),
        (columns.integer_lists_column, [[], []]),
        (columns.text_lists_column, [["a", "bb"], [], ["é"]]),
    ],
)
def test_a_column_of_lists_is_typed_and_read_as_pandas_writes_it(tmp_path, build, lists):
    storage.write_table(tmp_path / "built.parquet", pa.table({"c": build(lists)}))
    schema, frame = read_back(tmp_path / "built.parquet")
    plain = [
        [item.item() if isinstance(item, np.generic) else item for item in items] for items in lists
    ]
    expected_schema, expected = written_by_pandas(tmp_path, plain)
    if not any(plain):
        # pandas cannot tell the element type of empty lists (it writes list<null>)
        assert schema.field("c").type == pa.list_(pa.int64())
        assert [list(items) for items in frame["c"]] == plain
        return
    assert schema == expected_schema
    assert [list(items) for items in frame["c"]] == [list(items) for items in expected["c"]]
    assert [items.dtype for items in frame["c"]] == [items.dtype for items in expected["c"]]


def test_a_column_of_other_values_is_refused_by_its_name():
    with pytest.raises(TypeError, match=r"column 'flag': values of types \['bool'\]"):
        columns.value_column([True, False], "flag")
    with pytest.raises(TypeError, match=r"column 'mixed': values of types \['float', 'str'\]"):
        columns.value_column([1.0, "a"], "mixed")
