"""costfs: cost-constrained feature selection for Random Forests.

`costfs select` picks the features to buy for a budget on your own data (`--path`: at every
budget, `--save-model`: a model on them that `costfs predict` applies to new rows);
`costfs init-study` writes a study config for it, and `costfs run-study` runs that study.
"""

import argparse
import contextlib
import importlib
import logging
import os
import sys
import warnings

from threadpoolctl import threadpool_limits

from costfs.cli.arguments import NORMAL, QUIET, VERBOSE
from costfs.core.errors import DataError

log = logging.getLogger("costfs")

USER_COMMANDS = {
    "select": "select",
    "predict": "model",
    "init-study": "init_study",
    "run-study": "run_study",
    "combine-batches": "batches",
}
"""The commands a person runs -> their module in `costfs.cli`."""
STAGE_COMMANDS = {
    "simulate-design": "stages.simulate",
    "simulate-data": "stages.simulate",
    "load-dataset": "stages.realdata",
    "split-data": "stages.realdata",
    "draw-costs": "stages.costs",
    "prepare-method": "stages.selection",
    "select-features": "stages.selection",
    "evaluate": "stages.evaluate",
    "aggregate": "stages.aggregate",
    "tabulate-findings": "stages.aggregate",
    "describe-problems": "stages.aggregate",
    "recommend-features": "stages.aggregate",
    "collect-schedules": "stages.aggregate",
    "figures": "stages.figures",
}
"""The workflow's stage commands (`workflow/rules/<stage>.smk` calls `costfs.cli.stages.<stage>`)
-> their module: callable as `costfs <command>`, but not listed in `costfs --help`."""
COMMANDS = {**USER_COMMANDS, **STAGE_COMMANDS}
EPILOG = (
    "The workflow's rules also call stage commands (docs/development.md), which this list leaves "
    "out; `costfs <stage command> --help` describes each."
)


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of `command` (all commands when None); only the modules it needs are
    imported, so that a stage job does not load what other stages use."""
    parser = argparse.ArgumentParser(prog="costfs", description=__doc__, epilog=EPILOG)
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="{" + ",".join(USER_COMMANDS) + "}"
    )
    modules = sorted(set(COMMANDS.values())) if command not in COMMANDS else [COMMANDS[command]]
    for module in modules:
        importlib.import_module(f"costfs.cli.{module}").register(commands)
    return parser


@contextlib.contextmanager
def job_threads(threads: int):
    """A job uses the threads Snakemake gave it and no more: BLAS's or OpenMP's own threads
    would compete with the other jobs (and slow the many small products of the selection
    steps). threadpoolctl limits the pools loaded so far; an OpenMP runtime loaded later in the
    job (XGBoost's, scikit-learn's) reads `OMP_NUM_THREADS` as it loads. Without it, XGBoost
    handled its data on every core beside its one-thread training, and with the other jobs
    competing for the cores a FeatBoost fit took 1.4x as long."""
    previous = os.environ.get("OMP_NUM_THREADS")
    os.environ["OMP_NUM_THREADS"] = str(threads)
    try:
        with threadpool_limits(limits=threads):
            yield
    finally:
        if previous is None:
            del os.environ["OMP_NUM_THREADS"]
        else:
            os.environ["OMP_NUM_THREADS"] = previous


JOB_LOG_FORMAT = "%(asctime)s %(levelname)s %(message)s"


class _TerminalFormat(logging.Formatter):
    """A user command's lines on a terminal: its own news plain, warnings and errors named."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        return text if record.levelno == logging.INFO else f"{record.levelname.lower()}: {text}"


def configure_logging(command: str, verbosity: int) -> None:
    """A stage job logs everything, with times, to its log file. A user command tells what it
    does and found (`costfs.cli` at INFO) and what went wrong (warnings), not the library's
    details (`costfs` at INFO), which `--verbose` adds; `--quiet` keeps warnings only."""
    logging.basicConfig(level=logging.INFO)
    library, own = logging.getLogger("costfs"), logging.getLogger("costfs.cli")
    user = command in USER_COMMANDS
    library.setLevel(logging.INFO if not user or verbosity == VERBOSE else logging.WARNING)
    own.setLevel(
        logging.NOTSET if not user else logging.WARNING if verbosity == QUIET else logging.INFO
    )
    format = _TerminalFormat() if user else logging.Formatter(JOB_LOG_FORMAT)
    for handler in logging.getLogger().handlers:
        if type(handler) is logging.StreamHandler:
            handler.setFormatter(format)


def main(argv: list[str] | None = None) -> int:
    # sklearnex logs every accelerated call, and warns whenever some row's OOB vote share of a
    # class is 0 (a routine outcome, not a lack of OOB votes).
    logging.getLogger("sklearnex").setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", message="Some inputs do not have OOB scores")
    argv = sys.argv[1:] if argv is None else argv
    # What follows `--` goes to the tool a command runs (run-study's Snakemake) as it is:
    # split off here, so that the command's own options may come before or after its path.
    passed = argv[argv.index("--") + 1 :] if "--" in argv else None
    own = argv[: argv.index("--")] if "--" in argv else argv
    command_parser = parser(own[0] if own else None)
    args = command_parser.parse_args(own)
    if passed is not None:
        if not hasattr(args, "passed_on"):
            command_parser.error(f"costfs {args.command} takes no arguments after --")
        args.passed_on = passed
    configure_logging(args.command, getattr(args, "verbosity", NORMAL))
    try:
        with job_threads(getattr(args, "threads", 1)):
            args.function(args)
    except DataError as error:
        log.error("%s", error)
        return 2
    return 0
