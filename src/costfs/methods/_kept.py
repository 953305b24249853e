"""The last few results of a computation that depends on its inputs only, kept in memory.

A fit's budget path asks a method for its selection at many budgets in turn
(`costfs.methods._path`). Where part of that selection does not depend on the budget (the L1
regularisation path, forward selection's forests), the method keeps it here between the calls,
keyed by a digest of everything it depends on, so the path costs little more than one call.
A kept result is the one the inputs would give again: keeping it changes no selection.
"""

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

KEPT_RESULTS = 4
"""Results each `Kept` holds, the most recently used: a fit's hyperparameter values."""


def digest(*arrays: np.ndarray, **values: object) -> bytes:
    """A key for `arrays` (their dtype, shape and bytes) and `values` (by their repr)."""
    hashed = hashlib.blake2b(digest_size=16)
    for array in arrays:
        contiguous = np.ascontiguousarray(array)
        hashed.update(repr((contiguous.dtype.str, contiguous.shape)).encode())
        hashed.update(contiguous.tobytes())
    hashed.update(repr(sorted(values.items())).encode())
    return hashed.digest()


class Kept:
    """Up to `size` results by key, the least recently used dropped first."""

    instances: ClassVar[list["Kept"]] = []

    def __init__(self, size: int = KEPT_RESULTS):
        self.size = size
        self._results: OrderedDict[bytes, Any] = OrderedDict()
        Kept.instances.append(self)

    def __contains__(self, key: bytes) -> bool:
        return key in self._results

    def __getitem__(self, key: bytes) -> Any:
        """The result kept for `key`, now the most recently used."""
        self._results.move_to_end(key)
        return self._results[key]

    def keep(self, key: bytes, result: Any) -> None:
        """Keeps `result` for `key` as the most recently used, dropping the least recently used
        beyond `size`."""
        self._results[key] = result
        self._results.move_to_end(key)
        while len(self._results) > self.size:
            self._results.popitem(last=False)

    def get(self, key: bytes, compute: Callable[[], Any]) -> Any:
        """The result kept for `key`, or `compute()`'s, then kept."""
        if key not in self._results:
            self.keep(key, compute())
        return self[key]

    def clear(self) -> None:
        self._results.clear()


def clear_all() -> None:
    """Forgets every kept result: the next fit computes all afresh, as a first fit does."""
    for kept in Kept.instances:
        kept.clear()
