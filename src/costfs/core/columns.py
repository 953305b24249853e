"""Arrow columns from numpy arrays and Python values, built from their buffers.

The selection and evaluation jobs only pass tables on, and pandas' import would be most
of a cheap job's start. pyarrow imports pandas as it converts its first Python or numpy
value (`pa.array` checks whether the value is a pandas object; apache/arrow#34994), but not
as it assembles arrays from buffers, reads or writes Parquet. The columns get the types pandas
gives the same values, with NaN and None as null, so that a table reads in pandas as a table
pandas built would.
"""

from collections.abc import Sequence
from numbers import Integral, Real

import numpy as np
import pyarrow as pa


def _offsets(lengths: Sequence[int], dtype) -> pa.Buffer:
    offsets = np.zeros(len(lengths) + 1, dtype=dtype)
    np.cumsum(lengths, out=offsets[1:])
    return pa.py_buffer(offsets)


def float_column(values) -> pa.Array:
    """float64, NaN and None as null."""
    floats = np.array([np.nan if value is None else value for value in values], dtype=np.float64)
    present = ~np.isnan(floats)
    missing = int(floats.size - np.count_nonzero(present))
    validity = pa.py_buffer(np.packbits(present, bitorder="little")) if missing else None
    return pa.Array.from_buffers(
        pa.float64(), floats.size, [validity, pa.py_buffer(floats)], null_count=missing
    )


def integer_column(values) -> pa.Array:
    integers = np.array(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), integers.size, [None, pa.py_buffer(integers)])


def text_column(values, *, large: bool = True) -> pa.Array:
    """large_string (what pandas' `str` columns become), or string (pandas' lists of str)."""
    encoded = [str(value).encode() for value in values]
    offsets = _offsets([len(text) for text in encoded], np.int64 if large else np.int32)
    return pa.Array.from_buffers(
        pa.large_string() if large else pa.string(),
        len(encoded),
        [None, offsets, pa.py_buffer(b"".join(encoded))],
    )


def integer_lists_column(lists) -> pa.Array:
    """list<int64>, as pandas writes lists of Python ints."""
    lengths = [len(items) for items in lists]
    flat = np.concatenate([np.asarray(items, dtype=np.int64) for items in lists] or [[]])
    return pa.Array.from_buffers(
        pa.list_(pa.int64()),
        len(lists),
        [None, _offsets(lengths, np.int32)],
        children=[integer_column(flat)],
    )


def text_lists_column(lists) -> pa.Array:
    """list<string>, as pandas writes lists of str."""
    lengths = [len(items) for items in lists]
    flat = [item for items in lists for item in items]
    return pa.Array.from_buffers(
        pa.list_(pa.string()),
        len(lists),
        [None, _offsets(lengths, np.int32)],
        children=[text_column(flat, large=False)],
    )


def _is_integer(value) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool | np.bool_)


def _is_number(value) -> bool:
    return value is None or (isinstance(value, Real) and not isinstance(value, bool | np.bool_))


def value_column(values: Sequence, name: str) -> pa.Array:
    """A column of scalars typed as pandas types it: null if all are None, int64 if all are
    integers, float64 if all are numbers (None and NaN as null), large_string if all are str;
    anything else raises `TypeError` naming the column `name`."""
    values = list(values)
    if values and all(value is None for value in values):
        return pa.nulls(len(values))
    if values and all(_is_integer(value) for value in values):
        return integer_column(values)
    if all(_is_number(value) for value in values):
        return float_column(values)
    if all(isinstance(value, str) for value in values):
        return text_column(values)
    kinds = sorted({type(value).__name__ for value in values})
    raise TypeError(f"column {name!r}: values of types {kinds} have no column type here")
