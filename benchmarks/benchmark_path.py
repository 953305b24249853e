"""What a selector's whole budget path costs beside one budget's selection, per method.

For each method whose path is exact, fits its selector (default parameters, one thread) on a
real data set with costs drawn U[1, 100], both ways in each round: as `fit` runs (the path up
to the budget, found exactly) and reading the fitted budget only (the selector told its path
is not exact, with no other budget: one `select` call, what a fit cost before paths). A round
fits each way for at least 0.2 s (a millisecond fit many times) and takes the mean. Prints
per method the median over rounds of each and their ratio, and checks that both give the
same selection:

    .venv/bin/python benchmarks/benchmark_path.py --data data/wdbc.csv.gz --rounds 3
"""

import argparse
import math
import statistics
import time

import numpy as np
import pandas as pd

from costfs.methods import load_method, load_selector, method_names
from costfs.methods._kept import clear_all
from costfs.study import realdata

ROUND_SECONDS = 0.2
"""A round of a method fits it this long at least, each kind."""

EXACT_SETTINGS = {"fs": {"racing": False}, "sts": {"depth_bound": "none"}}
"""The settings under which a method whose defaults read its path over a grid has an exact
one (`docs/design.md`, "Budget paths")."""


def fit_seconds(selector, X, y, single_budget: bool) -> tuple[float, tuple]:
    # Every fit computes what methods keep between a path's calls afresh, as a first fit does.
    clear_all()
    if single_budget:
        # The selector's class told its path is not exact: one select call at the budget.
        selector.path_is_exact = lambda values: False
    started = time.perf_counter()
    selector.fit(X, y)
    return time.perf_counter() - started, tuple(selector.selected_features_)


def round_seconds(
    make_selector, X, y, single_budget: bool, fits: int
) -> tuple[float, tuple, object]:
    """The mean seconds of `fits` fits of fresh selectors, the selection and the last one."""
    total = 0.0
    for _ in range(fits):
        selector = make_selector()
        seconds, chosen = fit_seconds(selector, X, y, single_budget)
        total += seconds
    return total / fits, chosen, selector


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/wdbc.csv.gz")
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--budget-share",
        type=float,
        default=0.5,
        help="the fitted budget as a share of the total cost",
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    frame = pd.read_csv(args.data)
    X, y, _, _ = realdata.table_to_arrays(frame, "target", None, args.data)
    costs = np.round(np.random.default_rng(args.seed).uniform(1, 100, X.shape[1]), 2)
    budget = float(args.budget_share * costs.sum())
    methods = args.methods or [
        name for name in method_names() if type(load_method(name)).exact_path
    ]
    print(f"{args.data}: {X.shape[0]} rows x {X.shape[1]} features, budget {budget:.1f}")
    print("method\tpath steps\tone budget s\twhole path s\tratio")
    for name in methods:
        selector_class = load_selector(name)
        settings = EXACT_SETTINGS.get(name, {})

        def make_selector(selector_class=selector_class, settings=settings):
            return selector_class(feature_costs=costs, budget=budget, random_state=0, **settings)

        # A first fit of each kind (compiling and importing what it needs) sets how many fits
        # a round takes: enough for ROUND_SECONDS, so a millisecond fit is timed in bulk.
        first = min(round_seconds(make_selector, X, y, single, 1)[0] for single in (True, False))
        fits = max(1, math.ceil(ROUND_SECONDS / first))
        times = {False: [], True: []}
        steps = 0
        for _ in range(args.rounds):
            chosen = {}
            for single in (True, False):
                seconds, chosen[single], selector = round_seconds(make_selector, X, y, single, fits)
                times[single].append(seconds)
                if not single:
                    steps = len(selector.path_)
            if chosen[True] != chosen[False]:
                raise SystemExit(f"{name}: the path's selection differs from one budget's")
        one, whole = (statistics.median(times[single]) for single in (True, False))
        print(f"{name}\t{steps}\t{one:.4f}\t{whole:.4f}\t{whole / one:.2f}", flush=True)


if __name__ == "__main__":
    main()
