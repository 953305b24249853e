"""Study config checks with one-line errors that name the key and the allowed values."""

import jsonschema


class ConfigError(ValueError):
    """A study config that does not describe a valid study."""


def _key(path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def explain_error(
    error: jsonschema.ValidationError, prefix: str = "", noun: str = "config key"
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
    if error.validator == "enum":
        allowed = ", ".join(map(str, schema["enum"]))
        return f"{noun} {key}: {error.instance!r} is not allowed; allowed values: {allowed}"
    return f"{noun} {key}: {error.message}"


def check_config(config: dict, schema: dict) -> None:
    """Raises ConfigError for the first problem, in the order of the config's keys."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.path])
    if errors:
        raise ConfigError(explain_error(errors[0]))
