"""One module per method; its name is its config key, wildcard value and `method` column.

Each module provides `select(X, y, costs, budgets, grid, *, prepared, seed, ...)` returning one
record per (grid value, budget) with keys `value`, `budget`, `features` (sorted indices), and
`HYPERPARAMETER` (the grid's name) and `STRATEGIES`. A module with a cost-free part also has
`prepare(X, y, *, seed, ...)` -> dict of arrays, computed once per data set.
"""

import importlib
import pkgutil
from types import ModuleType


def method_names() -> list[str]:
    return sorted(info.name for info in pkgutil.iter_modules(__path__))


def load_method(name: str) -> ModuleType:
    if name not in method_names():
        raise ValueError(f"unknown method {name!r}; known methods: {', '.join(method_names())}")
    return importlib.import_module(f"{__name__}.{name}")
