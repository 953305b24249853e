"""Forward selection's paths on one problem of a study, timed: to compare two commits' code.

Runs `costfs.methods.fs.forward_paths` at ξ ∈ {0, 1} (or `--xi`; common random numbers, racing,
one thread) on a training set and a cost vector a study wrote, and prints its process time, the
forests and trees it grew and a digest of every path's features (equal digests: the same
paths). The package is whichever `costfs` Python imports, so a `git archive` of another
commit's `src` on `PYTHONPATH` runs that commit's code; alternate the two, several rounds:

    git archive 9a03812 src | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old/src .venv/bin/python benchmarks/benchmark_fs_paths.py \\
        --train results/data/simulated/correlated/rep~1/train.npz --costs results/costs/C.npz \\
        --n-trees 500 --budgets 30
    PYTHONPATH=src .venv/bin/python benchmarks/benchmark_fs_paths.py ...  # the same arguments
"""

import argparse
import hashlib
import time

from costfs.cli.storage import read_arrays
from costfs.methods.fs import forward_paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", required=True, help="a study's train.npz")
    parser.add_argument("--costs", required=True, help="a study's costs .npz")
    parser.add_argument("--n-trees", type=int, default=100)
    parser.add_argument("--budgets", nargs="+", type=float, default=[1, 2, 5])
    parser.add_argument("--xi", nargs="+", type=float, default=[0, 1])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    train = read_arrays(args.train)
    costs = read_arrays(args.costs)["costs"]
    started = time.process_time()
    search = forward_paths(
        train["X"],
        train["y"],
        costs,
        args.budgets,
        args.xi,
        seed=args.seed,
        n_trees=args.n_trees,
        racing=True,
        forests="common",
        positive_delta="multiply",
    )
    seconds = time.process_time() - started
    paths = sorted(
        (key, tuple(step.feature for step in path)) for key, path in search.paths.items()
    )
    digest = hashlib.sha1(repr(paths).encode()).hexdigest()[:10]
    print(
        f"{seconds:.1f} s process time, {search.fits} forests, {search.trees} trees, paths {digest}"
    )


if __name__ == "__main__":
    main()
