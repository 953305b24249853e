"""Where FeatBoost's selection on spambase goes: its k-NN evaluator against the rest.

One replicate of config/reproduction.yaml's FeatBoost on spambase: a random two-thirds
training split of data/spambase.csv.gz, uniform costs in the config's `cost_range`, its
budgets and xi grid, its FeatBoost parameters, preparation included, one thread (the
thread limit of a one-thread job; `--threads 2` runs the paths on two, as the workflow's
selection job does). It times the k-NN evaluator's kernel and counts the
(candidate, test row, training row) triples a brute force would score, and prints the
selection's seconds, the kernel's seconds, its nanoseconds per brute-force triple and the
seconds of everything else (XGBoost's fits, the memos, the paths).

The kernel skips the training rows that cannot be among a pair's k nearest (see
`costfs.methods._knn.knn_votes`). `--reach` measures how many it could skip at best: on a
sample of the kernel's calls and of their (candidate, test row) pairs, the share of training
rows whose distance on the selected columns alone is within the pair's k-th distance (the rows
an exact search has to visit: any other row is farther than the k-th with the candidate's column
added), and the share of pairs for which that is more than `NEAR_SHARE` of the rows (the pairs
for which the kernel visits every row).

`--kernels` times other versions of the kernel on the same sample of calls: each source is a
commit or a `_knn.py` file, loaded as a module of its own (as `benchmark_tree_kernels.py`
loads `cart.py`); they run in turn, round after round, so that a slow spell of the machine
falls on all of them alike. Pin it to one core. Per source it prints the median and least
seconds and whether its votes equal the running kernel's:

    .venv/bin/python benchmarks/benchmark_featboost.py [--seed 1] [--reach]
    taskset -c 0 .venv/bin/python benchmarks/benchmark_featboost.py --kernels HEAD /tmp/_knn.py
"""

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from benchmark_tree_kernels import load_kernels

import costfs.methods._knn as knn
from costfs.cli import job_threads
from costfs.core.seeds import derive_rng
from costfs.methods import load_method
from costfs.study.realdata import split_indices, uniform_costs

REPO = Path(__file__).resolve().parents[1]


class KernelMeter:
    """Wraps FeatBoost's k-NN kernel: counts the triples it scores and the seconds it takes."""

    def __init__(self, sample_every: int = 0):
        self.kernel = knn.knn_votes
        self.calls, self.triples, self.seconds = 0, 0, 0.0
        self.lock = threading.Lock()
        self.sample_every = sample_every
        self.sampled = []
        """Every `sample_every`-th call's arguments (none for 0)."""

    def __call__(self, selected_distances, *columns_labels_k_classes_near):
        if self.sample_every and self.calls % self.sample_every == 0:
            # A copy: the evaluator adds the next step's column to these distances in place.
            self.sampled.append((selected_distances.copy(), *columns_labels_k_classes_near))
        test_columns, train_columns = columns_labels_k_classes_near[:2]
        started = time.perf_counter()
        votes = self.kernel(selected_distances, *columns_labels_k_classes_near)
        with self.lock:  # the paths' threads call it at the same time
            self.seconds += time.perf_counter() - started
            self.calls += 1
            self.triples += test_columns.shape[0] * test_columns.shape[1] * train_columns.shape[1]
        return votes

    def reach(self, pairs_per_call: int = 20, seed: int = 0) -> np.ndarray:
        """Per sampled (candidate, test row) pair, the share of training rows whose selected
        distance is at most the pair's k-th distance."""
        rng = np.random.default_rng(seed)
        shares = []
        for selected_distances, test_columns, train_columns, _, k, *_ in self.sampled:
            for _ in range(pairs_per_call):
                candidate = rng.integers(test_columns.shape[0])
                row = rng.integers(test_columns.shape[1])
                selected = selected_distances[row]
                added = (test_columns[candidate, row] - train_columns[candidate]) ** 2
                kth = np.partition(selected + added, k - 1)[k - 1]
                shares.append(np.mean(selected <= kth))
        return np.array(shares)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=REPO / "config" / "reproduction.yaml")
    parser.add_argument("--seed", type=int, default=1, help="seeds the split and the costs")
    parser.add_argument(
        "--reach",
        action="store_true",
        help="also sample every 10th kernel call for the share of training rows an exact "
        "search has to visit",
    )
    parser.add_argument(
        "--kernels",
        nargs="+",
        default=[],
        metavar="SOURCE",
        help="commits or _knn.py files whose kernels to time on every 10th call",
    )
    parser.add_argument("--rounds", type=int, default=4, help="rounds of --kernels")
    parser.add_argument("--threads", type=int, default=1, help="the job's threads")
    args = parser.parse_args()
    config = yaml.safe_load(args.config.read_text())
    real = config["real_data"]
    frame = pd.read_csv(REPO / "data" / "spambase.csv.gz")
    X = frame.drop(columns="target").to_numpy(dtype=float)
    y = frame["target"].to_numpy(dtype=np.int64)
    rng = derive_rng(args.seed, "benchmark_featboost")
    train, _ = split_indices(rng, y.size, real["train_fraction"])
    costs = uniform_costs(rng, X.shape[1], *real["cost_range"])
    modules = kernel_modules(args.kernels)
    meter = KernelMeter(sample_every=10 if args.reach or args.kernels else 0)
    knn.knn_votes = meter
    # A first call compiles or loads the kernels, as any job's first call does; not timed.
    meter.kernel(np.zeros((1, 3)), np.zeros((1, 1)), np.zeros((1, 3)), np.zeros(3, int), 1, 2, 1)
    # With the thread limit of the job, which XGBoost's OpenMP runtime reads as it loads
    # (`costfs.cli.job_threads`).
    with job_threads(args.threads):
        started = time.perf_counter()
        load_method("featboost").prepare_and_select(
            X[train],
            y[train],
            costs,
            real["datasets"]["spambase"]["budgets"],
            config["xi_grid"],
            seed=args.seed,
            n_jobs=args.threads,
            **config["methods"]["featboost"],
        )
        total = time.perf_counter() - started
    print(
        f"FeatBoost on spambase ({train.size} training rows), one replicate, "
        f"{args.threads} thread(s):"
    )
    print(f"  selection, preparation included: {total:.1f} s")
    print(
        f"  k-NN kernel: {meter.seconds:.1f} s (summed over threads) in {meter.calls} calls, "
        f"{meter.triples:.3g} "
        f"triples, {1e9 * meter.seconds / meter.triples:.2f} ns per triple"
    )
    if args.threads == 1:
        print(f"  the rest (XGBoost's fits, memos, paths): {total - meter.seconds:.1f} s")
    if args.reach:
        shares = meter.reach()
        print(
            f"  training rows within reach of the k-th distance, {shares.size} pairs of "
            f"{len(meter.sampled)} calls: mean {shares.mean():.3f}, median "
            f"{np.median(shares):.3f}, 90th percentile {np.quantile(shares, 0.9):.3f}; "
            f"more than NEAR_SHARE = {knn.NEAR_SHARE}: "
            f"{np.mean(shares > knn.NEAR_SHARE):.3f} of the pairs"
        )
    if args.kernels:
        time_kernels(modules, meter, args.rounds)


def kernel_modules(sources: list[str]) -> dict:
    """Each source's kernel module, loaded before the run so that a wrong source fails first."""
    folder = Path(tempfile.gettempdir()) / "costfs-knn-kernels"
    folder.mkdir(exist_ok=True)
    sys.path.insert(0, str(folder))
    return {
        source: load_kernels(source, folder, "src/costfs/methods/_knn.py") for source in sources
    }


def time_kernels(modules: dict, meter: KernelMeter, rounds: int) -> None:
    """Each kernel module on the calls `meter` sampled, in turn, `rounds` times."""
    expected = [meter.kernel(*call) for call in meter.sampled]
    for module in modules.values():  # compiles or loads the kernel before any timing
        module.knn_votes(*meter.sampled[0])
    seconds = {source: [] for source in modules}
    same = dict.fromkeys(modules, True)
    for _ in range(rounds):
        for source, module in modules.items():
            started = time.perf_counter()
            votes = [module.knn_votes(*call) for call in meter.sampled]
            seconds[source].append(time.perf_counter() - started)
            same[source] &= all(map(np.array_equal, votes, expected))
    print(f"  kernels on {len(meter.sampled)} sampled calls, {rounds} rounds:")
    width = max(map(len, modules))
    for source in modules:
        print(
            f"  {source:>{width}}  median {statistics.median(seconds[source]):.2f} s, least "
            f"{min(seconds[source]):.2f} s, votes {'equal' if same[source] else 'DIFFER'}"
        )


if __name__ == "__main__":
    main()
