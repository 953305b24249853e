"""Runs the workflow of this checkout in a working directory, its jobs importing this
checkout's package whatever is installed: for the scripts that run a study of their own
(benchmarks, the reproduction's batches)."""

import os
import subprocess
from pathlib import Path

from costfs.cli.run_snakemake import snakemake_command

REPO = Path(__file__).resolve().parents[1]


def run_workflow(workdir: Path, config_file: Path, *arguments: str, cores: str = "2") -> None:
    """`snakemake` on this checkout's Snakefile in `workdir` with `config_file`, on `cores`,
    with further `arguments` (options, then targets); raises if it fails."""
    command = snakemake_command(
        REPO / "Snakefile", workdir, "--configfile", str(config_file), "--cores", cores, *arguments
    )
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
