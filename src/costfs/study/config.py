"""Study config checks with one-line errors that name the key and the allowed values."""

from costfs.core.schema import explain_error, validator


class ConfigError(ValueError):
    """A study config that does not describe a valid study."""


def check_config(config: dict, schema: dict) -> None:
    """Raises ConfigError for the first problem, in the order of the config's keys."""
    errors = sorted(validator(schema).iter_errors(config), key=lambda e: [str(p) for p in e.path])
    if errors:
        raise ConfigError(explain_error(errors[0]))
