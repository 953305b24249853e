"""Benchmark of Random Forest forward selection (FS) on one replicate of simulated setting A.

Parts (choose with --parts):
  fit     seconds of one internal forest (OOB error only, one thread) by feature set size;
  grid    fits and seconds for (a) xi in {0, 1} and (b) xi = 0, 0.25, ..., 3, both over the
          budgets, all paths of each through one memo;
  modes   selections of forward selection's modes (`forests` x exact/racing) against the first
          mode's over replicates: how often the sets differ, and the paired difference of test
          MMCE (1000-tree refit, 5000 test rows) with a t interval over the replicates.

When the grid runs with fewer trees than --full-trees, it also prints an EXTRAPOLATED time at
--full-trees: its fits (their number depends on the paths, not on forest size) priced by the
measured one-thread fit time per set size at --full-trees, divided by the measured speed-up of
--n-jobs threads on such forests.

Example (the full-size figures; hours on 2 cores):
  .venv/bin/python benchmarks/benchmark_fs.py --n-trees 500 --n-jobs 2
"""

import argparse
import logging
import statistics
import time

import numpy as np
from scipy import stats

from costfs.core.seeds import derive_rng, derive_seed
from costfs.engine.forest import forest_errors, oob_errors, resolve_engine
from costfs.methods import fs, load_method
from costfs.study.evaluation import evaluate_feature_sets
from costfs.study.simulate import draw_design, draw_samples

SETTING_A = dict(
    n_features=200,
    n_informative=100,
    beta_sd=0.5,
    beta_bound=1.0,
    n_blocks=20,
    cost_min=0.1,
    cost_max=1.0,
    cost_noise_sd=0.2,
)
SIMPLE_GRID = [0.0, 1.0]
FULL_GRID = [step * 0.25 for step in range(13)]
TIMED_SIZES = (1, 5, 10, 20, 40, 80, 160)
FS_DEFAULTS = load_method("fs").defaults()
"""Forward selection's declared parameter values; a run overrides some of them."""


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", nargs="+", default=["fit", "grid", "modes"])
    parser.add_argument("--budgets", nargs="+", type=float, default=[1, 2, 5, 10, 30])
    parser.add_argument("--n-trees", type=int, default=500, help="internal forests of the grid")
    parser.add_argument("--full-trees", type=int, default=500, help="size to extrapolate to")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument(
        "--modes",
        nargs="+",
        default=["per_set:exact", "common:exact", "common:racing"],
        help="forests:search pairs compared by the modes part, the first is the baseline",
    )
    parser.add_argument("--replicates", type=int, default=20, help="of the modes part")
    parser.add_argument("--mode-budgets", nargs="+", type=float, default=[1, 2, 5])
    parser.add_argument("--mode-trees", type=int, default=100, help="of the modes part")
    parser.add_argument("--quiet", action="store_true", help="no per-step progress lines")
    return parser.parse_args()


def training_and_test(seed: int, replicate: int):
    design = draw_design(derive_rng(seed, "design"), **SETTING_A)
    X, y = draw_samples(derive_rng(seed, "train", replicate), 500, design["mu"], None)
    X_test, y_test = draw_samples(derive_rng(seed, "test"), 5000, design["mu"], None)
    return X, y, X_test, y_test, design["costs_independent"]


def median_seconds(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def fit_seconds_by_size(X, y, n_trees: int, repeats: int) -> dict[int, float]:
    """Median seconds of one n_trees forest (OOB error, one thread) per feature set size."""
    return {
        size: median_seconds(
            lambda size=size: oob_errors(X, y, [range(size)], n_trees=[n_trees], seeds=[size]),
            repeats,
        )
        for size in TIMED_SIZES
    }


def parallel_speed_up(X, y, n_trees: int, n_jobs: int) -> float:
    """One-thread over n_jobs-thread seconds of a batch of 10-feature forests."""
    count = 4 * n_jobs

    def batch(jobs: int) -> None:
        oob_errors(
            X, y, [range(10)] * count, n_trees=[n_trees] * count, seeds=range(count), n_jobs=jobs
        )

    return median_seconds(lambda: batch(1), repeats=3) / median_seconds(lambda: batch(n_jobs), 3)


def price(search: fs.ForwardSearch, seconds_by_size: dict[int, float]) -> float:
    """Single-thread seconds of the search's forests, interpolated from per-size fit times."""
    sizes = np.array(list(seconds_by_size))
    seconds = np.array(list(seconds_by_size.values()))
    grown = [len(features) for features, _ in search.errors if features]
    return float(np.interp(grown, sizes, seconds).sum())


def run_fit(X, y, args) -> None:
    columns = X[:, :10]
    engine = resolve_engine("auto")
    print(f"engine: {engine}")
    oob_only = median_seconds(
        lambda: oob_errors(columns, y, [range(10)], n_trees=[500], seeds=[1]), repeats=10
    )
    full_api = median_seconds(
        lambda: forest_errors(columns, y, n_trees=500, seed=1, n_jobs=1), repeats=10
    )
    print(f"one 500-tree fit on 500 x 10 with OOB error, one thread: {oob_only:.3f} s")
    print(f"  (forest_errors, the scikit-learn API of the same engine: {full_api:.3f} s)")
    for trees in sorted({args.n_trees, args.full_trees}):
        by_size = fit_seconds_by_size(X, y, trees, repeats=3)
        shown = ", ".join(f"|S|={size}: {seconds:.3f}" for size, seconds in by_size.items())
        print(f"{trees}-tree fit seconds by set size: {shown}")


def run_grid(X, y, costs, args) -> None:
    reports = {}
    for label, grid in (("(a) xi in {0, 1}", SIMPLE_GRID), ("(b) xi = 0..3 by 0.25", FULL_GRID)):
        started = time.perf_counter()
        search = fs.forward_paths(
            X,
            y,
            costs,
            args.budgets,
            grid,
            seed=derive_seed(args.seed, "fs"),
            n_jobs=args.n_jobs,
            **{**FS_DEFAULTS, "n_trees": args.n_trees},
        )
        seconds = time.perf_counter() - started
        reports[label] = (search, seconds)
        lengths = {budget: [] for budget in args.budgets}
        for (_, budget), path in search.paths.items():
            lengths[budget].append(len(path))
        print(
            f"{label} x budgets {args.budgets}, {args.n_trees} trees, {args.n_jobs} threads: "
            f"{seconds:.1f} s, {search.fits} forests grown, {search.requested} requested by the "
            f"paths ({search.requested - search.fits} saved by the memo, "
            f"{1 - search.fits / search.requested:.0%})"
        )
        print(f"  steps per path by budget: {lengths}")
    (simple, simple_seconds), (full, full_seconds) = reports.values()
    print(
        f"(b) / (a): {full_seconds / simple_seconds:.2f} x time, "
        f"{full.fits / simple.fits:.2f} x fits"
    )
    if args.n_trees != args.full_trees:
        target = fit_seconds_by_size(X, y, args.full_trees, repeats=3)
        speed_up = parallel_speed_up(X, y, args.full_trees, args.n_jobs)
        for label, (search, _) in reports.items():
            one_thread = price(search, target)
            print(
                f"EXTRAPOLATED {label} at {args.full_trees} trees: {one_thread / 60:.0f} min on "
                f"one thread, ~{one_thread / speed_up / 60:.0f} min on {args.n_jobs} threads "
                f"(measured speed-up {speed_up:.2f})"
            )


def parse_mode(mode: str) -> dict:
    """ "forests:racing" as forward_paths' keyword arguments, e.g. "common:racing"."""
    forests, search = mode.split(":")
    return {"forests": forests, "racing": search == "racing"}


def replicate_means(gaps: list[tuple[int, float]]) -> np.ndarray:
    replicates = sorted({replicate for replicate, _ in gaps})
    return np.array([np.mean([g for r, g in gaps if r == replicate]) for replicate in replicates])


def run_modes(args) -> None:
    """Selections of each mode against the first one's over replicates: how often the sets
    differ and the paired test MMCE difference, with a t interval over the replicates (the
    replicate's mean over its (xi, budget) paths: paths of one replicate share the data)."""
    baseline, *others = args.modes
    gaps: dict[str, list[tuple[int, float]]] = {mode: [] for mode in others}
    differ = dict.fromkeys(others, 0)
    trees = dict.fromkeys(args.modes, 0)
    seconds = dict.fromkeys(args.modes, 0.0)
    total = 0
    for replicate in range(args.replicates):
        X, y, X_test, y_test, costs = training_and_test(args.seed, replicate)
        selections = {}
        for mode in args.modes:
            started = time.perf_counter()
            search = fs.forward_paths(
                X,
                y,
                costs,
                args.mode_budgets,
                SIMPLE_GRID,
                seed=derive_seed(args.seed, "fs", replicate),
                n_jobs=args.n_jobs,
                **{**FS_DEFAULTS, "n_trees": args.mode_trees, **parse_mode(mode)},
            )
            seconds[mode] += time.perf_counter() - started
            trees[mode] += search.trees
            selections[mode] = {
                path: tuple(sorted(step.feature for step in steps))
                for path, steps in search.paths.items()
            }
        refits = evaluate_feature_sets(
            X,
            y,
            X_test,
            y_test,
            [features for chosen in selections.values() for features in chosen.values()],
            n_trees=1000,
            seed_parts=(args.seed, replicate),
            n_jobs=args.n_jobs,
        ).set_index("features")["test_mmce"]
        for path, baseline_set in selections[baseline].items():
            total += 1
            line = f"replicate {replicate}, xi={path[0]:g}, budget={path[1]:g}: test MMCE "
            line += f"{baseline} {refits[baseline_set]:.4f}"
            for mode in others:
                chosen = selections[mode][path]
                differ[mode] += chosen != baseline_set
                gaps[mode].append((replicate, refits[chosen] - refits[baseline_set]))
                line += f", {mode} {refits[chosen]:.4f}"
            print(line, flush=True)
    print(
        f"\n{args.replicates} replicates x xi in {SIMPLE_GRID} x budgets {args.mode_budgets}, "
        f"{args.mode_trees}-tree internal forests; baseline {baseline}"
    )
    print(
        "| mode | different set | test MMCE - baseline: mean [95% t interval over "
        "replicates] | trees grown / baseline | seconds / baseline |"
    )
    print("|---|---|---|---|---|")
    for mode in others:
        means = replicate_means(gaps[mode])
        half = stats.t.ppf(0.975, means.size - 1) * means.std(ddof=1) / np.sqrt(means.size)
        print(
            f"| {mode} | {differ[mode]} of {total} | {means.mean():+.4f} "
            f"[{means.mean() - half:+.4f}, {means.mean() + half:+.4f}] | "
            f"{trees[mode] / trees[baseline]:.2f} | {seconds[mode] / seconds[baseline]:.2f} |"
        )


def main() -> None:
    args = parse_arguments()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s")
    if not args.quiet:
        logging.getLogger("costfs").setLevel(logging.INFO)
    X, y, _, _, costs = training_and_test(args.seed, replicate=0)
    if "fit" in args.parts:
        run_fit(X, y, args)
    if "grid" in args.parts:
        run_grid(X, y, costs, args)
    if "modes" in args.parts:
        run_modes(args)


if __name__ == "__main__":
    main()
