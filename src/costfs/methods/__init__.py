"""The methods: one module per method, each with one class, a `Method` subclass, and the
contract they share in the private modules beside them (as in scikit-learn's
`feature_selection`):

- `_base`: `Method`, the declaration of a method's parameters and hyperparameter, the
  `Context` of a call and the `Selection` it returns;
- `_selector`: `CostConstrainedSelector`, the scikit-learn selector every method is also, and
  `selector_for`, which makes a method's selector from its class;
- `_bcr`: the benefit-cost ratio and filling a budget from a ranking.

A module's name is its method's name, so adding a method is adding its file: discovery lists
the public modules of this package. `load_method` gives the method as the workflow's jobs use
it, without scikit-learn (which takes about a second to import); `load_selector` gives its
scikit-learn selector (`costfs.AUCFilter`, ...).
"""

import importlib
import pkgutil
import threading
from functools import cache
from typing import TYPE_CHECKING

from costfs.methods._base import Context, Method, Selection, describe_schema, stable_colour
from costfs.methods._tuning import tuning_grid

if TYPE_CHECKING:
    from costfs.methods._selector import CostConstrainedSelector

__all__ = [
    "Context",
    "Method",
    "Selection",
    "all_methods",
    "describe_schema",
    "load_method",
    "load_selector",
    "method_names",
    "stable_colour",
    "tuning_grid",
]


_selectors: dict[str, type] = {}
_SELECTORS_LOCK = threading.Lock()


def method_names() -> list[str]:
    return sorted(
        info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")
    )


@cache
def load_method(name: str) -> Method:
    """The method of module `costfs.methods.<name>`: its class with the declared defaults."""
    if name not in method_names():
        raise ValueError(f"unknown method {name!r}; known methods: {', '.join(method_names())}")
    module = importlib.import_module(f"{__name__}.{name}")
    defined = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Method)
        and value.__module__ == module.__name__
    ]
    if len(defined) != 1:
        raise TypeError(
            f"costfs/methods/{name}.py must define exactly one method class, found {len(defined)}"
        )
    return defined[0]()


def load_selector(name: str) -> "type[CostConstrainedSelector]":
    """The scikit-learn selector of method `name`: the method's class with the face of
    `CostConstrainedSelector`, made once (`costfs.methods._selector.selector_for`; threads
    that ask at once get the same class, which pickling needs)."""
    with _SELECTORS_LOCK:
        if name not in _selectors:
            from costfs.methods._selector import selector_for

            _selectors[name] = selector_for(type(load_method(name)))
        return _selectors[name]


def all_methods() -> list[Method]:
    return [load_method(name) for name in method_names()]
