"""Study config checks with one-line errors that name the key and the allowed values."""

import jsonschema


class ConfigError(ValueError):
    """A study config that does not describe a valid study."""


def _key(path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _explain(error: jsonschema.ValidationError) -> str:
    key = _key(error.absolute_path)
    schema = error.schema
    if error.validator == "additionalProperties":
        allowed = ", ".join(schema.get("properties", {})) or "none"
        unknown = sorted(set(error.instance) - set(schema.get("properties", {})))
        where = f"under {key}" if error.absolute_path else "at the top level"
        return f"unknown config key {', '.join(map(repr, unknown))} {where}; allowed: {allowed}"
    if error.validator == "enum":
        allowed = ", ".join(map(str, schema["enum"]))
        return f"config key {key}: {error.instance!r} is not allowed; allowed values: {allowed}"
    if error.validator == "required":
        return f"config key {key}: {error.message}"
    return f"config key {key}: {error.message}"


def check_config(config: dict, schema: dict) -> None:
    """Raises ConfigError for the first problem, in the order of the config's keys."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.path])
    if errors:
        raise ConfigError(_explain(errors[0]))
