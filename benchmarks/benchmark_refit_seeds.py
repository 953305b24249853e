"""What common random numbers in the evaluation refits do to paired method comparisons.

Takes a finished study's results directory, and per (problem, replicate, budget, xi) the sets
that `--methods` selected there. Each draw refits every set once more under two seedings:
"set" (each forest seeded from the set, as `costfs.study.evaluation` does) and "run" (common random
numbers: every forest of the draw from one seed, so that the refits can share their bootstrap
samples). Over `--draws` draws it reports, per seeding, the standard deviation
of a method difference (test MMCE of one method's set minus another's) that comes from the
refits alone, and against it the standard deviation of the same differences across the study's
replicates (selection and refit together), which sets the SE of a paired comparison.

Example (the default study's results; about 5 minutes on 2 cores):
  .venv/bin/python benchmarks/benchmark_refit_seeds.py ../check/results --problems A C \
      --methods auc pfi sts --draws 6 --n-jobs 2 --out docs/reproduction/refit_seeds.csv
"""

import argparse
import itertools
from pathlib import Path

import pandas as pd

from costfs.cli import storage
from costfs.core.seeds import derive_seed
from costfs.engine.forest import forest_errors


def refit_differences(runs, results, problems, methods, draws, n_trees, n_jobs, engine):
    """One row per cell, method pair, seeding and draw: the refits' test MMCE difference."""
    rows = []
    for (problem, dataset, rep), run in runs.groupby(["problem", "dataset", "rep"]):
        if problem not in problems:
            continue
        data = Path(results, "data", run["kind"].iloc[0], dataset)
        train = storage.read_arrays(data / f"rep~{rep}" / "train.npz")
        test_path = data / "test.npz"
        test = storage.read_arrays(
            test_path if test_path.exists() else data / f"rep~{rep}" / "test.npz"
        )
        sets = sorted({tuple(int(j) for j in s) for s in run["features"]})
        for draw in range(draws):
            for seeding in ("set", "run"):
                errors = {
                    features: forest_errors(
                        train["X"][:, list(features)],
                        train["y"],
                        test["X"][:, list(features)],
                        test["y"],
                        n_trees=n_trees,
                        seed=derive_seed(
                            "refit-seeds", problem, rep, draw, *([features] * (seeding == "set"))
                        ),
                        n_jobs=n_jobs,
                        engine=engine,
                    )[1]
                    for features in sets
                }
                for (budget, xi), cell in run.groupby(["budget", "hyperparameter_value"]):
                    by_method = dict(zip(cell["method"], map(tuple, cell["features"]), strict=True))
                    for first, second in itertools.combinations(methods, 2):
                        rows.append(
                            {
                                "problem": problem,
                                "rep": rep,
                                "budget": budget,
                                "xi": xi,
                                "pair": f"{first}-{second}",
                                "seeding": seeding,
                                "draw": draw,
                                "difference": errors[by_method[first]] - errors[by_method[second]],
                                "same_set": by_method[first] == by_method[second],
                            }
                        )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("results", help="a finished study's results directory")
    parser.add_argument("--problems", nargs="+", default=["A", "C"])
    parser.add_argument("--methods", nargs="+", default=["auc", "pfi", "sts"])
    parser.add_argument("--draws", type=int, default=8)
    parser.add_argument("--n-trees", type=int, default=500)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--engine", default="auto", help="forest engine of the refits")
    parser.add_argument("--out", help="also write the table to this CSV file")
    args = parser.parse_args()

    runs = storage.read_table(Path(args.results, "runs.parquet"))
    runs = runs[runs["method"].isin(args.methods) & runs["problem"].isin(args.problems)]
    differences = refit_differences(
        runs,
        args.results,
        args.problems,
        args.methods,
        args.draws,
        args.n_trees,
        args.n_jobs,
        args.engine,
    )
    differences = differences[~differences["same_set"]]
    cell = ["problem", "rep", "budget", "xi", "pair"]
    refit_sd = differences.groupby(["seeding", *cell])["difference"].std().groupby("seeding").mean()
    study = runs.pivot_table(
        index=["problem", "rep", "budget", "hyperparameter_value"],
        columns="method",
        values="test_mmce",
    )
    across = []
    for first, second in itertools.combinations(args.methods, 2):
        difference = (study[first] - study[second]).rename("difference").reset_index()
        across.append(
            difference.groupby(["problem", "budget", "hyperparameter_value"])["difference"].std()
        )
    across_sd = pd.concat(across).mean()
    table = pd.DataFrame(
        {
            "problem": " ".join(args.problems),
            "method": " ".join(args.methods),
            "cells": differences.groupby(cell).ngroups,
            "draws": args.draws,
            "seeding": ["set", "run"],
            "refit_sd": [refit_sd["set"], refit_sd["run"]],
            "across_replicates_sd": across_sd,
        }
    )
    table["refit_variance_share"] = table["refit_sd"] ** 2 / table["across_replicates_sd"] ** 2
    print(
        "standard deviation of a method difference in test MMCE from the refits alone, per "
        "seeding, and across the study's replicates (selection and refit; cells: problem x "
        "replicate x budget x xi x method pair with different sets)"
    )
    print(table.to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False, float_format="%.5g")


if __name__ == "__main__":
    main()
