"""The evaluation refits of a finished study's selections, timed side by side for two source
trees: per problem, the sets its methods selected in one replicate, refit with the study's trees
and seeds as its evaluation jobs refit them, one thread, the trees alternating round by round.

A change to the tree kernels is measured on the data it meets in a study (spambase's sparse
word frequencies, ada's binary columns, the simulated settings' continuous ones), and each
tree's errors are checked against the study's `runs.parquet`: a faster kernel must give the
same numbers.

    git archive <before> | tar -x -C /tmp/before   # likewise <after> into /tmp/after
    .venv/bin/python benchmarks/benchmark_refits.py RESULTS --code /tmp/before /tmp/after \\
        --problems spambase_c1 ada A --methods auc sts --rep 16 --rounds 2
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def time_refits(results: Path, problem: str, methods: list[str], rep: int, study_seed: int):
    """Seconds for refitting the problem's selected sets of `rep` (every method's, each distinct
    set once, as an evaluation job does per method), and whether every error equals the study's."""
    import numpy as np
    import pandas as pd

    from costfs.study.evaluation import evaluate_feature_sets

    runs = pd.read_parquet(results / "runs.parquet")
    runs = runs[(runs["problem"] == problem) & (runs["rep"] == rep)]
    runs = runs[runs["method"].isin(methods)]
    if runs.empty:
        raise SystemExit(
            f"{results / 'runs.parquet'}: no runs of {methods} on {problem}, rep {rep}"
        )
    kind, dataset = runs["kind"].iloc[0], runs["dataset"].iloc[0]
    data = results / "data" / kind / dataset
    with np.load(data / f"rep~{rep}" / "train.npz") as train:
        X, y = train["X"], train["y"]
    test_path = data / f"rep~{rep}" / "test.npz"
    with np.load(test_path if test_path.exists() else data / "test.npz") as test:
        X_test, y_test = test["X"], test["y"]
    # The kernels compile, or load from their cache, before the clock starts.
    evaluate_feature_sets(X, y, X_test, y_test, [(0,)], n_trees=2, seed_parts=(0,), engine="numba")
    seconds, same = 0.0, True
    for _, run in runs.groupby("method"):
        sets = [tuple(int(j) for j in features) for features in run["features"]]
        started = time.perf_counter()
        errors = evaluate_feature_sets(
            X,
            y,
            X_test,
            y_test,
            sets,
            n_trees=1000,
            seed_parts=(study_seed, dataset, rep),
            engine="numba",
        ).set_index("features")
        seconds += time.perf_counter() - started
        for column in ("oob_mmce", "test_mmce"):
            same &= bool(np.array_equal(errors.loc[sets, column], run[column]))
    return seconds, same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a finished study's results folder")
    parser.add_argument("--code", type=Path, nargs="+", required=True, help="source trees")
    parser.add_argument("--problems", nargs="+", required=True)
    parser.add_argument("--methods", nargs="+", required=True)
    parser.add_argument("--rep", type=int, required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--study-seed", type=int, default=20240607, help="the study's seed (reproduction.yaml's)"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        seconds, same = time_refits(
            args.results, args.problems[0], args.methods, args.rep, args.study_seed
        )
        print(json.dumps({"seconds": seconds, "same": same}))
        return
    times = {(problem, code): [] for problem in args.problems for code in args.code}
    for round_ in range(args.rounds):
        # The trees alternate, and their order turns each round.
        order = args.code if round_ % 2 == 0 else args.code[::-1]
        for problem in args.problems:
            for code in order:
                child = subprocess.run(
                    [sys.executable, __file__, str(args.results), "--child", "--code", str(code)]
                    + ["--problems", problem, "--methods", *args.methods, "--rep", str(args.rep)]
                    + ["--study-seed", str(args.study_seed)],
                    env={**os.environ, "PYTHONPATH": str(code / "src"), "OMP_NUM_THREADS": "1"},
                    capture_output=True,
                    text=True,
                    check=True,
                )
                measured = json.loads(child.stdout.splitlines()[-1])
                if not measured["same"]:
                    raise SystemExit(f"{code}: the refits on {problem} differ from the study's")
                times[problem, code].append(measured["seconds"])
                print(f"round {round_ + 1}: {problem} {code}: {measured['seconds']:.1f} s")
    first = args.code[0]
    header = " | ".join(f"{code} (s)" for code in args.code)
    print(f"\n| problem | {header} | ratio to {first}, per round |")
    print("|---|" + "---|" * (len(args.code) + 1))
    for problem in args.problems:
        medians = [statistics.median(times[problem, code]) for code in args.code]
        ratios = "; ".join(
            ", ".join(
                f"{t / b:.2f}"
                for t, b in zip(times[problem, code], times[problem, first], strict=True)
            )
            for code in args.code[1:]
        )
        print(f"| {problem} | " + " | ".join(f"{m:.1f}" for m in medians) + f" | {ratios} |")


if __name__ == "__main__":
    main()
