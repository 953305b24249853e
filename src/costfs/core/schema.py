"""One-line explanations of JSON Schema errors, naming the key or parameter, its value and what
is allowed: the study config and every method's parameters are checked against schemas."""

import functools
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jsonschema


@functools.cache
def _finite_number_validator() -> type:
    # Imported on first use: a stage job checks no schema, and jsonschema's import costs it
    # about 0.05 s of its start.
    import jsonschema

    def finite_number(checker, instance) -> bool:
        return jsonschema.Draft202012Validator.TYPE_CHECKER.is_type(
            instance, "number"
        ) and math.isfinite(instance)

    return jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("number", finite_number),
    )


def validator(schema: dict) -> "jsonschema.protocols.Validator":
    """A validator of `schema`, JSON Schema (draft 2020-12) in which a number is finite: NaN
    and infinity are no value of any parameter or config key, though Python and YAML (`.nan`)
    can write them."""
    return _finite_number_validator()(schema)


def _key(path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def explain_error(
    error: "jsonschema.ValidationError", prefix: str = "", noun: str = "config key"
) -> str:
    """One line naming the `noun` (under `prefix`), the value and what is allowed."""
    path = [prefix, *error.absolute_path] if prefix else list(error.absolute_path)
    key = _key(path)
    schema = error.schema
    if error.validator == "additionalProperties":
        allowed = ", ".join(schema.get("properties", {})) or "none"
        unknown = sorted(set(error.instance) - set(schema.get("properties", {})))
        where = f"under {key}" if path else "at the top level"
        return f"unknown {noun} {', '.join(map(repr, unknown))} {where}; allowed: {allowed}"
    if isinstance(error.instance, float) and not math.isfinite(error.instance):
        return f"{noun} {key}: {error.instance!r} is not a finite number"
    if error.validator == "enum":
        allowed = ", ".join(map(str, schema["enum"]))
        return f"{noun} {key}: {error.instance!r} is not allowed; allowed values: {allowed}"
    return f"{noun} {key}: {error.message}"
