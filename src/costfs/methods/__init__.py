"""The methods: one module per method, each with one `costfs.method.Method` subclass.

A module's name is its method's name; discovery lists the modules of this package, so adding
a method is adding its file.
"""

import importlib
import pkgutil
from functools import cache

from costfs.method import Method


def method_names() -> list[str]:
    return sorted(info.name for info in pkgutil.iter_modules(__path__))


@cache
def load_method(name: str) -> Method:
    """The method of module `costfs.methods.<name>`."""
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
            f"costfs/methods/{name}.py must define exactly one Method subclass, found "
            f"{len(defined)}"
        )
    return defined[0]()


def all_methods() -> list[Method]:
    return [load_method(name) for name in method_names()]
