"""`python -m costfs.cli.run_snakemake`, through which `costfs run-study`, the benchmark and
reproduction scripts and the workflow tests run snakemake: snakemake's command line without its
default job rate limit for local jobs (whose timers keep its scheduler busy), and unchanged
otherwise."""

import subprocess
from pathlib import Path

import pytest
from snakemake.cli import parse_args

from costfs.cli.run_snakemake import snakemake_command, without_local_rate_limit

RATE_LIMIT_LINE = "Submitting maximum"
"""What snakemake logs (with --verbose) when it starts its job rate limiter."""

SNAKEFILE = 'rule all:\n    output: "done"\n    shell: "touch {output}"\n'


def run(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    (folder / "Snakefile").write_text(SNAKEFILE)
    return subprocess.run(
        snakemake_command(folder / "Snakefile", folder, "--cores", "1", *arguments),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_local_jobs_run_without_the_default_rate_limit(tmp_path):
    result = run(tmp_path, "--verbose")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "done").is_file()
    assert RATE_LIMIT_LINE not in result.stderr


def test_a_limit_of_ones_own_is_kept(tmp_path):
    result = run(tmp_path, "--verbose", "--max-jobs-per-timespan", "50/2s")
    assert result.returncode == 0, result.stderr
    assert f"{RATE_LIMIT_LINE} 50 job(s) over 2.0 second(s)" in result.stderr


def test_snakemakes_errors_and_exit_codes_pass_through(tmp_path):
    result = run(tmp_path, "no_such_target")
    assert result.returncode == 1
    assert "no_such_target" in result.stderr
    result = run(tmp_path, "--no-such-flag")
    assert result.returncode == 2
    assert "usage: snakemake" in result.stderr


@pytest.mark.parametrize(
    ("arguments", "limited"),
    [
        ([], False),
        (["--executor", "local"], False),
        (["--executor", "slurm"], True),
        (["--max-jobs-per-timespan", "10/1m"], True),
        (["--max-jobs-per-second", "5"], True),
    ],
)
def test_only_local_runs_at_the_default_limit_lose_it(arguments, limited):
    _, args = parse_args(["--cores", "1", *arguments])
    assert (without_local_rate_limit(args).max_jobs_per_timespan is not None) is limited
