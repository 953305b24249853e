"""Where FeatBoost's selection on spambase goes: its k-NN evaluator against the rest.

One replicate of config/reproduction.yaml's FeatBoost on spambase: a random two-thirds
training split of data/spambase.csv.gz, uniform costs in the config's `cost_range`, its
budgets and xi grid, its FeatBoost parameters, preparation included, one thread. It counts the
(candidate, test row, training row) triples the k-NN evaluator's kernel scores and times the
kernel, and prints the selection's seconds, the kernel's seconds, its nanoseconds per triple
and the seconds of everything else (XGBoost's fits, the memos, the paths).

The kernel's work is fixed by the algorithm (every candidate column of every fold's test rows
against every training row), so its triples times its time per triple is what the selection
cannot go below without a different evaluator.

    .venv/bin/python scripts/benchmark_featboost.py [--seed 1]
"""

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

import costfs.methods.featboost as featboost
from costfs.core.seeds import derive_rng
from costfs.methods import load_method
from costfs.study.realdata import split_indices, uniform_costs

REPO = Path(__file__).resolve().parents[1]


class KernelMeter:
    """Wraps FeatBoost's k-NN kernel: counts the triples it scores and the seconds it takes."""

    def __init__(self):
        self.kernel = featboost._knn_votes
        self.calls, self.triples, self.seconds = 0, 0, 0.0

    def __call__(self, selected_distances, test_columns, train_columns, *rest):
        started = time.perf_counter()
        votes = self.kernel(selected_distances, test_columns, train_columns, *rest)
        self.seconds += time.perf_counter() - started
        self.calls += 1
        self.triples += test_columns.shape[0] * test_columns.shape[1] * train_columns.shape[1]
        return votes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=REPO / "config" / "reproduction.yaml")
    parser.add_argument("--seed", type=int, default=1, help="seeds the split and the costs")
    args = parser.parse_args()
    config = yaml.safe_load(args.config.read_text())
    real = config["real_data"]
    frame = pd.read_csv(REPO / "data" / "spambase.csv.gz")
    X = frame.drop(columns="target").to_numpy(dtype=float)
    y = frame["target"].to_numpy(dtype=np.int64)
    rng = derive_rng(args.seed, "benchmark_featboost")
    train, _ = split_indices(rng, y.size, real["train_fraction"])
    costs = uniform_costs(rng, X.shape[1], *real["cost_range"])
    meter = KernelMeter()
    featboost._knn_votes = meter
    # A first call compiles or loads the kernels, as any job's first call does; not timed.
    meter.kernel(np.zeros((1, 3)), np.zeros((1, 1)), np.zeros((1, 3)), np.zeros(3, int), 1, 2)
    started = time.perf_counter()
    load_method("featboost").prepare_and_select(
        X[train],
        y[train],
        costs,
        real["datasets"]["spambase"]["budgets"],
        config["xi_grid"],
        seed=args.seed,
        **config["methods"]["featboost"],
    )
    total = time.perf_counter() - started
    print(f"FeatBoost on spambase ({train.size} training rows), one replicate, one thread:")
    print(f"  selection, preparation included: {total:.1f} s")
    print(
        f"  k-NN kernel: {meter.seconds:.1f} s in {meter.calls} calls, {meter.triples:.3g} "
        f"triples, {1e9 * meter.seconds / meter.triples:.2f} ns per triple"
    )
    print(f"  the rest (XGBoost's fits, memos, paths): {total - meter.seconds:.1f} s")


if __name__ == "__main__":
    main()
