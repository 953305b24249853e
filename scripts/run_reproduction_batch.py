"""Runs one batch of the reproduction study (config/reproduction.yaml): some of its replicates,
for the paper's entries or for the related work, and keeps the batch's compact results.

    python scripts/run_reproduction_batch.py --methods paper --first-rep 1 --n-rep 5 \
        --workdir ../batches/paper-1 --cores 2

`--sensitivity` runs a variant of the study on settings C and D for docs/reproduction.md's
sensitivity analysis: `seed` with another study seed (new draws of mu, Sigma and costs), `fs-trees`
forward selection with 500-tree internal forests (the paper's size) instead of 100.

The batch runs in --workdir with the workflow and package of the checkout this script is in
(run it from an unchanging copy, e.g. `git archive`, to keep editing the project meanwhile); an
interrupted batch resumes when run again, even after a kill left Snakemake's lock behind (the
script holds a lock of its own on --workdir, so a second run there stops at once). When it
finishes, its runs table (without the feature names, which the data sets' columns give), its
timings and its costs are written to
docs/reproduction/batches/<methods>-reps-<first>-<last>/ with a `batch.json` saying what ran,
at which commit. `scripts/combine_batches.py` joins the batches.
"""

import argparse
import fcntl
import json
import sys
from pathlib import Path

import yaml
from checkout_workflow import REPO, run_workflow

from costfs.cli import storage
from costfs.study.findings import PAPER_METHODS

DROPPED_COLUMNS = ("feature_names",)
"""Columns a batch's committed runs table leaves out: the names follow from `features` and
the data set's columns, and are most of the table's bytes."""


SENSITIVITY_SETTINGS = ["C", "D"]
SECOND_SEED = 20240608
FS_TREES = 500


def sensitivity_config(config: dict, sensitivity: str) -> dict:
    """The variant `sensitivity` of the study `config` on settings C and D only: "seed" draws
    the simulation anew from another study seed; "fs-trees" grows forward selection's internal
    forests at the paper's 500 trees, forward selection alone."""
    config["simulation"]["settings"] = SENSITIVITY_SETTINGS
    config["real_data"]["datasets"] = {}
    if sensitivity == "seed":
        config["seed"] = SECOND_SEED
    elif sensitivity == "fs-trees":
        config["methods"] = {"fs": {**config["methods"]["fs"], "n_trees": FS_TREES}}
    else:
        raise ValueError(f"unknown sensitivity variant {sensitivity!r}")
    return config


def batch_config(
    source: Path, methods: str, first_rep: int, n_rep: int, sensitivity: str | None = None
) -> dict:
    """The study `source` with replicates first_rep..first_rep + n_rep - 1 and only the paper's
    entries (`methods` "paper") or only the others ("related"), or its `sensitivity` variant
    (`sensitivity_config`)."""
    config = yaml.safe_load(source.read_text())
    config["first_rep"] = first_rep
    config["n_rep"] = n_rep
    config["real_data"]["data_dir"] = str(REPO / "data")
    config["methods"] = {
        name: settings
        for name, settings in config["methods"].items()
        if (name in PAPER_METHODS) == (methods == "paper")
    }
    return sensitivity_config(config, sensitivity) if sensitivity else config


def keep_batch(workdir: Path, out: Path, description: dict) -> None:
    """Writes the batch's compact runs table, timings and costs to `out`."""
    results = workdir / "results"
    runs = storage.read_table(results / "runs.parquet")
    storage.write_table(out / "runs.parquet", runs.drop(columns=list(DROPPED_COLUMNS)))
    storage.write_table(out / "timings.parquet", storage.read_table(results / "timings.parquet"))
    (out / "costs").mkdir(parents=True, exist_ok=True)
    for path in sorted((results / "costs").glob("*.npz")):
        (out / "costs" / path.name).write_bytes(path.read_bytes())
    (out / "batch.json").write_text(json.dumps(description, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--methods", choices=["paper", "related"], required=True)
    parser.add_argument("--first-rep", type=int, required=True)
    parser.add_argument("--n-rep", type=int, required=True)
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--sensitivity", choices=["seed", "fs-trees"])
    parser.add_argument("--cores", default="2")
    parser.add_argument("--config", type=Path, default=REPO / "config" / "reproduction.yaml")
    parser.add_argument(
        "--out",
        type=Path,
        help="where the compact results go (default: docs/reproduction/batches/<batch name> of "
        "the project in the current directory)",
    )
    parser.add_argument("--commit", help="the project commit the checkout is a copy of")
    args = parser.parse_args()
    last_rep = args.first_rep + args.n_rep - 1
    name = f"{args.methods}-reps-{args.first_rep}-{last_rep}"
    if args.sensitivity:
        name = f"{args.sensitivity}-{name}"
    out = args.out or Path.cwd() / "docs" / "reproduction" / "batches" / name
    args.workdir.mkdir(parents=True, exist_ok=True)
    config = batch_config(args.config, args.methods, args.first_rep, args.n_rep, args.sensitivity)
    config_file = args.workdir / "batch.yaml"
    config_file.write_text(yaml.safe_dump(config))
    with open(args.workdir / "batch.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            sys.exit(f"another batch runs in {args.workdir}; wait for it or stop it")
        # No other batch runs here, so a Snakemake lock left by a killed run is stale.
        run_workflow(args.workdir, config_file, "--unlock", cores=args.cores)
        run_workflow(
            args.workdir,
            config_file,
            "--rerun-incomplete",
            "results/runs.parquet",
            cores=args.cores,
        )
    keep_batch(
        args.workdir,
        out,
        {
            "methods": sorted(config["methods"]),
            "sensitivity": args.sensitivity,
            "first_rep": args.first_rep,
            "last_rep": last_rep,
            "config": str(args.config.name),
            "commit": args.commit,
        },
    )
    print(f"batch {name}: {out}")


if __name__ == "__main__":
    main()
