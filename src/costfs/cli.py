"""The `costfs` command: `costfs select` and `costfs init-study` for one data set, and the
subcommands the workflow rules call (`costfs <subcommand> ...`).

Each subcommand lives in a module of `costfs.commands` (reading files, calling the package,
writing files atomically); only the module of the subcommand that runs is imported. Every
subcommand logs to stderr (a rule redirects it to its log file).
"""

import argparse
import importlib
import logging
import sys
import warnings

from threadpoolctl import threadpool_limits

from costfs.validation import DataError

log = logging.getLogger("costfs")

COMMANDS = {
    "simulate-design": "simulate",
    "simulate-data": "simulate",
    "load-dataset": "realdata",
    "split-data": "realdata",
    "draw-costs": "costs",
    "prepare-method": "methods",
    "select-features": "methods",
    "select": "select",
    "init-study": "select",
    "evaluate": "evaluate",
    "aggregate": "aggregate",
    "tabulate-findings": "aggregate",
    "collect-schedules": "aggregate",
    "figures": "figures",
}
"""Subcommand -> its module in `costfs.commands`."""


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of `command` (all subcommands when None)."""
    parser = argparse.ArgumentParser(prog="costfs", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    modules = sorted(set(COMMANDS.values())) if command not in COMMANDS else [COMMANDS[command]]
    for module in modules:
        importlib.import_module(f"costfs.commands.{module}").register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    # sklearnex logs every accelerated call, and warns whenever some row's OOB vote share of a
    # class is 0 (a routine outcome, not a lack of OOB votes).
    logging.getLogger("sklearnex").setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", message="Some inputs do not have OOB scores")
    argv = sys.argv[1:] if argv is None else argv
    args = parser(argv[0] if argv else None).parse_args(argv)
    # A job uses the threads Snakemake gave it and no more: BLAS's own threads would compete
    # with the other jobs (and slow the many small products of the selection steps).
    try:
        with threadpool_limits(limits=getattr(args, "threads", 1)):
            args.function(args)
    except DataError as error:
        log.error("%s", error)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
