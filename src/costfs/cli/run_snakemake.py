"""`python -m costfs.cli.run_snakemake ARGUMENTS`: snakemake's own command line, except that jobs
run on this machine start without snakemake's job rate limit.

Snakemake's command line always limits how fast jobs start (`--max-jobs-per-timespan`, by
default 100 per second), and while a limit is on, every pass of its scheduler arms a timer for
one more pass a timespan later. Each finished job so starts one more pass per second for the rest
of the run, and every pass checks the inputs of every job that is ready: late in a study of a few
hundred jobs the scheduler wakes hundreds of times a second and takes a third of a core from the
jobs. On this machine the cores already limit the jobs, and snakemake's Python API sets no rate
limit by default; so the default limit is dropped when the jobs run locally. Any other limit,
given on the command line or in a profile, and any run on a cluster executor keep theirs.
"""

import os
import subprocess
import sys
from pathlib import Path

SNAKEMAKE_DEFAULT_LIMIT = (100, 1)
"""Snakemake's default `--max-jobs-per-timespan` (100/1s): jobs and seconds."""


def snakemake_command(snakefile: Path, directory: Path, *arguments: str) -> list[str]:
    """The command that runs the workflow of `snakefile` in `directory` through this module,
    with further snakemake `arguments`."""
    return [
        sys.executable,
        "-m",
        "costfs.cli.run_snakemake",
        "--snakefile",
        str(snakefile),
        "--directory",
        str(directory),
        *arguments,
    ]


def run_checkout_workflow(
    checkout: Path, workdir: Path, config_file: Path, *arguments: str, cores: str = "2"
) -> None:
    """`snakemake` on the workflow of the costfs checkout `checkout` in `workdir` with
    `config_file`, on `cores`, with further `arguments` (options, then targets), its jobs
    importing that checkout's package whatever is installed (the benchmarks and the
    reproduction's batches); raises if it fails."""
    command = snakemake_command(
        checkout / "Snakefile",
        workdir,
        "--configfile",
        str(config_file),
        "--cores",
        cores,
        *arguments,
    )
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": str(checkout / "src")})


def without_local_rate_limit(args):
    limit = args.max_jobs_per_timespan
    runs_locally = args.executor in (None, "local")
    default_limit = (
        limit is not None
        and (limit.max_jobs, limit.timespan) == SNAKEMAKE_DEFAULT_LIMIT
        and args.max_jobs_per_second is None
    )
    if runs_locally and default_limit:
        args.max_jobs_per_timespan = None
    return args


def main(argv: list[str]) -> int:
    """As `snakemake.cli.main`, which runs `parse_args` and `args_to_api` the same way."""
    # Imported here: building the command (`costfs run-study`, the scripts) needs no snakemake.
    from snakemake.cli import args_to_api, parse_args
    from snakemake.exceptions import print_exception

    try:
        parser, args = parse_args(argv)
        return 0 if args_to_api(without_local_rate_limit(args), parser) else 1
    except Exception as error:
        print_exception(error)
        return 1


if __name__ == "__main__":
    sys.argv[0] = "snakemake"  # its usage and error messages name the command people know
    sys.exit(main(sys.argv[1:]))
