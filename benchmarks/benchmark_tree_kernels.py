"""The numba tree kernels of several commits, timed side by side in one process.

Timed in separate processes, one after the other, the same code on this machine varies by
10-40% between runs (the host's load moves), more than the changes to the tree kernels that
need measuring. This script loads `src/costfs/engine/cart.py` of each commit (or a file) as a
module of its own, builds each one's `TreeGrower` on the same data and grows the same forests
with each in turn, round after round, so that a slow spell of the machine falls on all of them
alike. Pin it to one core. Per commit it prints the median and least seconds of each workload
and a digest of every tree's votes (equal digests: the same trees):

    taskset -c 1 .venv/bin/python benchmarks/benchmark_tree_kernels.py 9a03812 HEAD --data C
    taskset -c 1 .venv/bin/python benchmarks/benchmark_tree_kernels.py HEAD /tmp/cart.py --data ada

Workloads: `forest`, 1000 trees on every column with sqrt(p) candidates per node (the
permutation importance's and a refit's forests); `sets`, 2000 trees on random sets of 1-14
columns with sqrt(size) candidates, voting on held-out rows too (forward selection's forests
and the refits of small selections). Data: `C`, setting C of config/paper.yaml (500 training
rows, 200 correlated continuous features), or a data set of `data/` (two thirds of its rows to
train on). Each loaded `cart.py` imports the checkout's `costfs.engine.forest`.
"""

import argparse
import hashlib
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
CART = "src/costfs/engine/cart.py"
WORKLOADS = ("forest", "sets")


def load_kernels(source: str, folder: Path, path: str = CART):
    """The module at `path` (the cart module by default) of a commit, or of a file if `source`
    is one; its compiled kernels are cached beside its copy in `folder`, so a second run does
    not compile them again."""
    if Path(source).is_file():
        text = Path(source).read_text()
    else:
        text = subprocess.run(
            ["git", "-C", str(REPO), "show", f"{source}:{path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    name = f"{Path(path).stem.lstrip('_')}_" + hashlib.sha1(text.encode()).hexdigest()[:12]
    path = folder / f"{name}.py"
    if not path.exists():
        path.write_text(text)
    return importlib.import_module(name)


def benchmark_data(name: str, rng: np.random.Generator):
    """Training rows, their classes and held-out rows."""
    if name == "C":
        import inspect

        import yaml

        from costfs.study.simulate import draw_design, draw_samples

        simulation = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["simulation"]
        design_keys = inspect.signature(draw_design).parameters
        design = draw_design(rng, **{k: v for k, v in simulation.items() if k in design_keys})
        sigma = design["sigma_correlated"]
        X, y = draw_samples(rng, simulation["n_train"], design["mu"], sigma)
        X_test, _ = draw_samples(rng, simulation["n_test"], design["mu"], sigma)
        return X, y, X_test
    import pandas as pd

    from costfs.study.realdata import split_indices, table_to_arrays

    X, y, _, _ = table_to_arrays(pd.read_csv(REPO / "data" / f"{name}.csv.gz"), "target", 1, name)
    train, test = split_indices(rng, y.size, 2 / 3)
    return X[train], y[train], X[test]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", help="commits (or cart.py files) to compare")
    parser.add_argument("--data", default="C", help="C, or a data set of data/ (e.g. ada)")
    parser.add_argument("--rounds", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "src"))
    folder = Path(tempfile.gettempdir()) / "costfs-tree-kernels"
    folder.mkdir(exist_ok=True)
    sys.path.insert(0, str(folder))
    modules = [load_kernels(source, folder) for source in args.sources]

    rng = np.random.default_rng(args.seed)
    X, y, X_test = benchmark_data(args.data, rng)
    n_features = X.shape[1]
    column_sets = [
        rng.choice(n_features, size=size, replace=False)
        for size in rng.integers(1, min(14, n_features) + 1, size=2000)
    ]
    workloads = {
        "forest": dict(
            seeds=np.arange(1000),
            column_sets=None,
            max_features=int(np.sqrt(n_features)),
            max_depth=None,
        ),
        "sets": dict(
            seeds=np.arange(2000),
            column_sets=column_sets,
            max_features=np.array([max(1, int(np.sqrt(c.size))) for c in column_sets]),
            max_depth=None,
            X_test=X_test,
        ),
    }
    growers = [module.TreeGrower(X, y) for module in modules]
    for grower in growers:  # compiles or loads the kernels before any timing
        grower.grow(seeds=np.arange(2), column_sets=None, max_features=1, max_depth=None)
    seconds = {(source, w): [] for source in args.sources for w in WORKLOADS}
    digests = {}
    for _ in range(args.rounds):
        for source, grower in zip(args.sources, growers, strict=True):
            digest = hashlib.sha1()
            for workload in WORKLOADS:
                started = time.perf_counter()
                batch = grower.grow(**workloads[workload])
                seconds[source, workload].append(time.perf_counter() - started)
                digest.update(batch.votes.tobytes())
                if batch.test_votes is not None:
                    digest.update(batch.test_votes.tobytes())
            digests[source] = digest.hexdigest()[:10]
    print(f"{args.data}: {X.shape[0]} x {n_features} training rows, {args.rounds} rounds")
    for source in args.sources:
        cells = [
            f"{w} {statistics.median(seconds[source, w]):.3f} s "
            f"(least {min(seconds[source, w]):.3f})"
            for w in WORKLOADS
        ]
        print(f"{source:>12}  " + "  ".join(cells) + f"  votes {digests[source]}")


if __name__ == "__main__":
    main()
