"""Runs the workflow of this checkout in a working directory, its jobs importing this
checkout's package whatever is installed: for the scripts that run a study of their own
(benchmarks, the reproduction's batches)."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_workflow(workdir: Path, config_file: Path, *arguments: str, cores: str = "2") -> None:
    """`snakemake` on this checkout's Snakefile in `workdir` with `config_file`, on `cores`,
    with further `arguments` (options, then targets); raises if it fails."""
    command = [sys.executable, "-m", "costfs.cli.run_snakemake"]
    command += ["--snakefile", str(REPO / "Snakefile")]
    command += ["--directory", str(workdir), "--configfile", str(config_file)]
    command += ["--cores", cores, *arguments]
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
