"""Optional dependencies: the methods of related work need packages of the `related` extra."""

import importlib
from types import ModuleType


def import_optional(module: str, *, extra: str, needed_by: str) -> ModuleType:
    """`module`, or an ImportError that names what needs it and the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{needed_by} needs the package {module!r}, which is not installed; install it "
            f"with: pip install 'costfs[{extra}]'"
        ) from error
