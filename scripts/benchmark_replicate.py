"""What one replicate of the reproduction study costs: job-hours per rule and method.

Runs config/reproduction.yaml with one replicate and every method on every problem (its
`problems` limits removed: BudgetRF on ada and spambase, FeatBoost on spambase put back) in a
fresh working directory, with the workflow and package of this checkout, and copies the
study's `results/findings/stage_costs.csv` (wall and CPU hours per rule x method, from
Snakemake's benchmarks) to --out. Run it at two commits on one machine to compare them:

    .venv/bin/python scripts/benchmark_replicate.py --workdir /tmp/replicate --out before.csv
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import yaml

REPO = Path(__file__).resolve().parents[1]


def replicate_config(source: Path) -> dict:
    config = yaml.safe_load(source.read_text())
    config["n_rep"] = 1
    config["real_data"]["data_dir"] = str(REPO / "data")
    for settings in config["methods"].values():
        settings.pop("problems", None)
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--cores", default="2")
    parser.add_argument("--config", type=Path, default=REPO / "config" / "reproduction.yaml")
    args = parser.parse_args()
    if args.workdir.exists():
        shutil.rmtree(args.workdir)
    args.workdir.mkdir(parents=True)
    config_file = args.workdir / "replicate.yaml"
    config_file.write_text(yaml.safe_dump(replicate_config(args.config)))
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(args.workdir),
            "--configfile",
            str(config_file),
            "--cores",
            args.cores,
        ],
        check=True,
        # The jobs import this checkout's package, whatever is installed.
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
    )
    elapsed = time.perf_counter() - started
    costs = pd.read_csv(args.workdir / "results" / "findings" / "stage_costs.csv")
    costs.to_csv(args.out, index=False)
    print(
        f"one replicate: {costs['wall_hours'].sum():.3f} job-hours, "
        f"{costs['cpu_hours'].sum():.3f} CPU-hours, {elapsed / 3600:.3f} h elapsed on "
        f"{args.cores} cores"
    )


if __name__ == "__main__":
    main()
