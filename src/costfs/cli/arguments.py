"""Arguments shared by the command modules (`costfs.cli.<command>`, `costfs.cli.stages.*`).

A command module provides `register(commands)`, which adds its subcommands to the `costfs`
parser; `costfs.cli` imports only the module of the command it runs, so a rule's code hash
covers that module and what it imports (`costfs.study.provenance`).
"""

import json

from costfs.core.validation import check_positive_integer

STUDY_SEED = (["--study-seed"], {"type": int, "required": True})
OUT = (["--out"], {"required": True})


def positive_integer(text: str) -> int:
    # argparse reports the DataError (a ValueError) as an invalid value of the option.
    return check_positive_integer(int(text), text)


THREADS = (
    ["--threads"],
    {
        "type": positive_integer,
        "default": 1,
        "help": "CPU threads to use (default: 1); the answer is the same for any number",
    },
)

QUIET, NORMAL, VERBOSE = 0, 1, 2
"""How much a user command tells on the terminal (`costfs.cli.configure_logging`)."""
VERBOSITY = (
    (
        ["--quiet", "-q"],
        {
            "dest": "verbosity",
            "action": "store_const",
            "const": QUIET,
            "default": NORMAL,
            "help": "warnings and errors only, no progress",
        },
    ),
    (
        ["--verbose", "-v"],
        {
            "dest": "verbosity",
            "action": "store_const",
            "const": VERBOSE,
            "help": "also the library's log lines and every nested progress bar",
        },
    ),
)


def json_value(text: str):
    return json.loads(text)


def _named(text: str, form: str, convert=str) -> tuple[str, object]:
    """NAME=VALUE with VALUE converted, or a ValueError naming the expected `form`."""
    name, separator, value = text.partition("=")
    try:
        if not separator or not name or not value:
            raise ValueError
        return name, convert(value)
    except ValueError:
        raise ValueError(f"expected {form}, got {text!r}") from None


def named_path(text: str) -> tuple[str, str]:
    """NAME=PATH of an output."""
    return _named(text, "NAME=PATH")


def named_value(text: str) -> tuple[str, str]:
    """NAME=VALUE of a wildcard."""
    return _named(text, "NAME=VALUE")


def group_cost(text: str) -> tuple[str, float]:
    """GROUP=COST of a shared-cost group."""
    return _named(text, "GROUP=COST", float)


def check_paths_per_rep(args, *options: str) -> None:
    """Raises ValueError naming each of the path lists `options` (argument names, such as
    "data"), where given, that does not hold one path per `--reps`."""
    wrong = [
        f"--{option}"
        for option in options
        if getattr(args, option) is not None and len(getattr(args, option)) != len(args.reps)
    ]
    if wrong:
        raise ValueError(f"{', '.join(wrong)}: need one path per --reps ({len(args.reps)})")


def add_command(commands, name: str, function, *arguments, help: str | None = None):
    """A subcommand `name` running `function(args)`, with `arguments` as (flags, options);
    listed in `costfs --help` with its `help` line where it has one (the user's commands)."""
    parser = commands.add_parser(name, **({"help": help, "description": help} if help else {}))
    parser.set_defaults(function=function)
    for flags, options in arguments:
        parser.add_argument(*flags, **options)
    return parser
