"""A change that alters selections, measured: one method's tuned selections and their test
MMCE on real data sets, run once at each of two commits and compared.

Per data set and replicate the rows are split 2/3 : 1/3 and costs drawn U(0.1, 1) (seeded by
data set and replicate, the same at every commit); `select_once` selects per budget with the
method's hyperparameter tuned by refit OOB error, and a 500-tree Random Forest refit gives the
test MMCE. Run it at each commit (the checkout on PYTHONPATH decides the code that runs) and
compare the two tables:

    PYTHONPATH=<old checkout>/src python benchmarks/compare_selections.py run --method featboost \
        --datasets qsar-biodeg spambase --reps 10 --out before.csv
    python benchmarks/compare_selections.py run ... --out after.csv
    python benchmarks/compare_selections.py compare before.csv after.csv

`compare` reports how many (data set, replicate, budget) sets changed and the mean change in
test MMCE over the runs (data set x replicate, budgets averaged) with its 95% t interval; tables
of `compare_fs.py` pair (replicate, xi, budget) paths and also give the trees grown.
`--set key=value` passes a method parameter (a YAML value), as a study's config would;
`--engine` is the refits' engine (sklearnex by default, at both commits).
"""

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy import stats

from costfs.core.seeds import derive_rng, derive_seed
from costfs.study.evaluation import evaluate_feature_sets
from costfs.study.realdata import split_indices, table_to_arrays
from costfs.study.single_run import select_once

DATA = Path(__file__).resolve().parents[1] / "data"
BUDGETS = [1, 2, 3, 5, 10]
"""The reproduction study's real-data budgets."""
KEYS = ["dataset", "rep", "budget"]


def run(method, dataset, rep, parameters, engine) -> pd.DataFrame:
    frame = pd.read_csv(DATA / f"{dataset}.csv.gz")
    X, y, _, _ = table_to_arrays(frame, "target", 1, dataset)
    rng = derive_rng(0, "compare", dataset, rep)
    train, test = split_indices(rng, y.size, 2 / 3)
    costs = rng.uniform(0.1, 1.0, size=X.shape[1])
    started = time.perf_counter()
    chosen = select_once(
        X[train],
        y[train],
        costs,
        BUDGETS,
        method=method,
        seed=derive_seed(0, "select", dataset, rep),
        engine=engine,
        **parameters,
    )
    seconds = time.perf_counter() - started
    sets = [tuple(int(j) for j in features) for features in chosen["features"]]
    errors = evaluate_feature_sets(
        X[train],
        y[train],
        X[test],
        y[test],
        sets,
        n_trees=500,
        seed_parts=(dataset, rep),
        engine=engine,
    )
    test_mmce = dict(zip(map(tuple, errors["features"]), errors["test_mmce"], strict=True))
    return pd.DataFrame(
        {
            "dataset": dataset,
            "rep": rep,
            "budget": BUDGETS,
            "features": [" ".join(map(str, s)) for s in sets],
            "test_mmce": [test_mmce[s] for s in sets],
            "selection_seconds": seconds,
        }
    )


def append_runs(out: Path, columns: list[str], keys, run_one) -> None:
    """`run_one(*key)` for each key (values of `columns`) that `out` does not hold yet, its
    rows appended one run at a time, so that an interrupted comparison resumes."""
    done = set()
    if out.exists():
        done = set(pd.read_csv(out)[columns].itertuples(index=False, name=None))
    for key in keys:
        if key in done:
            continue
        rows = run_one(*key)
        rows.to_csv(out, mode="a", header=not out.exists(), index=False)
        named = ", ".join(f"{column} {value}" for column, value in zip(columns, key, strict=True))
        print(f"{named}: {rows['selection_seconds'].iloc[0]:.1f} s", flush=True)


def grown_trees(both: pd.DataFrame) -> "pd.Series | None":
    """Trees grown in all runs before and after, where the tables count them (`compare_fs.py`)."""
    if "trees_before" not in both.columns:
        return None
    return both.groupby(["dataset", "rep"])[["trees_before", "trees_after"]].first().sum()


def compare(before: pd.DataFrame, after: pd.DataFrame) -> str:
    # Tables with an `xi` column (`compare_fs.py`) hold a row per (xi, budget) path.
    keys = [*KEYS, "xi"] if "xi" in before.columns else KEYS
    both = before.merge(after, on=keys, suffixes=("_before", "_after"))
    changed = both["features_before"].fillna("") != both["features_after"].fillna("")
    both["difference"] = both["test_mmce_after"] - both["test_mmce_before"]
    per_run = both.groupby(["dataset", "rep"])["difference"].mean()
    mean = per_run.mean()
    half = stats.t.ppf(0.975, per_run.size - 1) * per_run.std(ddof=1) / np.sqrt(per_run.size)
    lines = [
        f"{changed.sum()} of {len(both)} selected sets changed "
        f"({both.loc[changed, ['dataset', 'rep']].drop_duplicates().shape[0]} of "
        f"{per_run.size} runs).",
        f"test MMCE after - before, mean over {per_run.size} runs (their sets averaged): "
        f"{100 * mean:+.2f} points, 95% t interval [{100 * (mean - half):+.2f}, "
        f"{100 * (mean + half):+.2f}]",
        *(
            [f"trees grown, after / before: {trees['trees_after'] / trees['trees_before']:.2f}"]
            if (trees := grown_trees(both)) is not None
            else []
        ),
        "",
        "| data set | runs | sets changed | MMCE before | MMCE after | selection s before | "
        "selection s after |",
        "|---|---|---|---|---|---|---|",
    ]
    both["changed"] = changed
    for dataset, rows in both.groupby("dataset"):
        lines.append(
            f"| {dataset} | {rows['rep'].nunique()} | {rows['changed'].sum()} of {len(rows)} | "
            f"{100 * rows['test_mmce_before'].mean():.2f} | "
            f"{100 * rows['test_mmce_after'].mean():.2f} | "
            f"{rows.groupby('rep')['selection_seconds_before'].first().mean():.1f} | "
            f"{rows.groupby('rep')['selection_seconds_after'].first().mean():.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run")
    run_parser.add_argument("--method", required=True)
    run_parser.add_argument("--datasets", nargs="+", required=True)
    run_parser.add_argument("--reps", type=int, default=10)
    run_parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    run_parser.add_argument(
        "--engine",
        default="sklearnex",
        help="engine of the refits (the same at both commits, so that only the selections "
        "differ; `auto` may mean another engine at each)",
    )
    run_parser.add_argument("--out", type=Path, required=True)
    compare_parser = commands.add_parser("compare")
    compare_parser.add_argument("before", type=Path)
    compare_parser.add_argument("after", type=Path)
    arguments = parser.parse_args()
    # oneDAL's refits warn for every row no tree left out of its bag; the test error is what
    # is compared here.
    warnings.filterwarnings("ignore", message="Some inputs do not have OOB scores")
    if arguments.command == "compare":
        print(compare(pd.read_csv(arguments.before), pd.read_csv(arguments.after)))
        return
    parameters = {
        key: yaml.safe_load(value) for key, value in (item.split("=", 1) for item in arguments.set)
    }
    append_runs(
        arguments.out,
        ["dataset", "rep"],
        [(dataset, rep) for dataset in arguments.datasets for rep in range(arguments.reps)],
        lambda dataset, rep: run(arguments.method, dataset, rep, parameters, arguments.engine),
    )


if __name__ == "__main__":
    main()
