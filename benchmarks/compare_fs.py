"""A change to forward selection that alters its selections, measured: its paths on replicates
of simulated setting A and their test MMCE, run once at each of two commits and compared.

Per replicate, forward selection (racing, common random numbers, one thread) runs every
(ξ, budget) path of `--xi` x `--budgets` through one memo on setting A's training rows (500 x
200, `benchmark_fs.training_and_test`), and a 1000-tree Random Forest refit of each selected set
gives its test MMCE on 5000 test rows (seeded by the set, so a set scores the same at both
commits). Run it at each commit (the checkout on PYTHONPATH decides the code that runs) and
compare the two tables with `compare_selections.py compare`, which pairs the paths:

    PYTHONPATH=<old checkout>/src .venv/bin/python benchmarks/compare_fs.py --out before.csv
    .venv/bin/python benchmarks/compare_fs.py --out after.csv
    .venv/bin/python benchmarks/compare_selections.py compare before.csv after.csv
"""

import argparse
import time
from pathlib import Path

import pandas as pd
from benchmark_fs import FS_DEFAULTS, training_and_test  # this script's directory is on sys.path
from compare_selections import append_runs

from costfs.core.seeds import derive_seed
from costfs.methods.fs import forward_paths
from costfs.study.evaluation import refit_feature_sets


def run(rep: int, arguments: argparse.Namespace) -> pd.DataFrame:
    X, y, X_test, y_test, costs = training_and_test(arguments.seed, rep)
    started = time.perf_counter()
    search = forward_paths(
        X,
        y,
        costs,
        arguments.budgets,
        arguments.xi,
        seed=derive_seed(arguments.seed, "fs", rep),
        **{**FS_DEFAULTS, "n_trees": arguments.n_trees},
    )
    seconds = time.perf_counter() - started
    paths = {
        key: tuple(sorted(step.feature for step in path)) for key, path in search.paths.items()
    }
    refits = refit_feature_sets(
        X,
        y,
        X_test,
        y_test,
        sorted(set(paths.values())),
        n_trees=1000,
        seed_parts=(arguments.seed, rep),
        engine="numba",  # named, not `auto`: the same refits at both commits
    )
    test_mmce = {tuple(row["features"]): row["test_mmce"] for row in refits}
    return pd.DataFrame(
        [
            {
                "dataset": "A",
                "rep": rep,
                "xi": xi,
                "budget": budget,
                "features": " ".join(map(str, features)),
                "test_mmce": test_mmce[features],
                "selection_seconds": seconds,
                "trees": search.trees,
            }
            for (xi, budget), features in paths.items()
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--xi", nargs="+", type=float, default=[0.0, 1.0, 3.0])
    parser.add_argument("--budgets", nargs="+", type=float, default=[1.0, 2.0, 5.0])
    parser.add_argument("--n-trees", type=int, default=500, help="of the internal forests")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--out", type=Path, required=True)
    arguments = parser.parse_args()
    if arguments.out.exists():
        table = pd.read_csv(arguments.out)
        paths = set(zip(table["xi"], table["budget"], strict=True))
        if paths != {(xi, budget) for xi in arguments.xi for budget in arguments.budgets}:
            raise SystemExit(
                f"{arguments.out} holds other (xi, budget) paths: choose another --out"
            )
    append_runs(
        arguments.out,
        ["rep"],
        [(rep,) for rep in range(1, arguments.reps + 1)],
        lambda rep: run(rep, arguments),
    )


if __name__ == "__main__":
    main()
