"""Timings of STS on one replicate of simulated setting C (correlated data, independent costs).

Measures the cost-free base ensembles (STS and its feature-limited variant) with 1 and 2
threads, the selection for all 5 budgets x 13 xi values, and one evaluation refit (1000 trees on
all 200 features, OOB error and 5000 test rows) as the yardstick for the selection time.

    .venv/bin/python scripts/benchmark_sts.py [--seed 1]
"""

import argparse
import time

import numpy as np

from costfs.engine.forest import forest_errors, resolve_engine
from costfs.methods import load_method
from costfs.study.simulate import draw_design, draw_samples

BUDGETS = [1, 2, 5, 10, 30]
XI_GRID = np.arange(0.0, 3.0 + 1e-9, 0.25).tolist()


def setting_c(seed: int):
    rng = np.random.default_rng(seed)
    design = draw_design(
        rng,
        n_features=200,
        n_informative=100,
        beta_sd=0.5,
        beta_bound=1.0,
        n_blocks=20,
        cost_min=0.1,
        cost_max=1.0,
        cost_noise_sd=0.2,
    )
    train = draw_samples(rng, 500, design["mu"], design["sigma_correlated"])
    test = draw_samples(rng, 5000, design["mu"], design["sigma_correlated"])
    return train, test, design["costs_independent"]


def timed(function, *args, **kwargs):
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - started


def benchmark_method(name, X, y, costs, seed, refit):
    """Table rows of one method, and its selected set sizes per budget over the xi grid."""
    method = load_method(name)
    defaults = method.defaults()
    ensemble = method.stage_parameters(defaults, "prepare")
    prepared, serial = timed(
        method.prepare, X, y, seed=seed, n_jobs=1, engine="sklearn", **ensemble
    )
    threaded, parallel = timed(
        method.prepare, X, y, seed=seed, n_jobs=2, engine="sklearn", **ensemble
    )
    if not all(np.array_equal(prepared[key], threaded[key]) for key in prepared):
        raise RuntimeError(f"{name}: the base ensemble depends on the number of threads")
    selection_result, selection = timed(
        method.select,
        X,
        y,
        costs,
        BUDGETS,
        XI_GRID,
        prepared=prepared,
        seed=seed,
        n_jobs=1,
        engine="sklearn",
        **method.stage_parameters(defaults, "select"),
    )
    records = selection_result.records
    n_trees = prepared["votes"].shape[0]
    rows = [
        (f"{name}: base ensemble ({n_trees} trees), n_jobs=1", f"{serial:.2f} s"),
        (f"{name}: base ensemble ({n_trees} trees), n_jobs=2", f"{parallel:.2f} s"),
        (f"{name}: selection ({len(BUDGETS)} budgets x {len(XI_GRID)} xi)", f"{selection:.2f} s"),
        (f"{name}: selection / evaluation refit", f"{selection / refit:.2f}"),
    ]
    sizes = {budget: [] for budget in BUDGETS}
    for record in records:
        sizes[record["budget"]].append(record["features"].size)
    return rows, sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    (X, y), (X_test, y_test), costs = setting_c(args.seed)
    _, refit = timed(forest_errors, X, y, X_test, y_test, n_trees=1000, seed=args.seed, n_jobs=1)
    rows = [(f"evaluation refit (1000 trees, 200 features, {resolve_engine()})", f"{refit:.2f} s")]
    sizes = {}
    for name in ("sts", "sts_features"):
        method_rows, sizes[name] = benchmark_method(name, X, y, costs, args.seed, refit)
        rows += method_rows
    print(f"Setting C, seed {args.seed}: 500 training rows x 200 features, 5000 test rows\n")
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value:>8}")
    print("\nselected features per budget (fewest-most over the xi grid):")
    for name, per_budget in sizes.items():
        print(f"  {name}: " + ", ".join(f"{b}: {min(n)}-{max(n)}" for b, n in per_budget.items()))


if __name__ == "__main__":
    main()
