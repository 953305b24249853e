"""Column names as a reader sees them in a list: a name that holds a comma or a quote, or
begins or ends with a space, is quoted, so that where one name ends is never in doubt."""

import json
from collections.abc import Iterable


def shown_name(name: object) -> str:
    text = str(name)
    blurred = not text or text != text.strip() or any(mark in text for mark in ',"')
    return json.dumps(text) if blurred else text


def name_list(names: Iterable[object], prefix: str = "") -> str:
    """The names, each after `prefix`, comma-separated."""
    return ", ".join(f"{prefix}{shown_name(name)}" for name in names)


def some_names(names: Iterable[object], shown: int = 8) -> str:
    """The first `shown` names as `name_list` gives them, and how many more there are."""
    names = list(names)
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"{name_list(names[:shown])}{more}"
