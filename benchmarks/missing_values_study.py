"""Missing values: each method's own handling against complete-case analysis and median
imputation, on the project's real data sets with values removed.

Per data set, replicate and mechanism, a random third of the features (at least one) lose
values: MCAR, each value with probability 15%; MNAR, with probability 25% in rows of class 1
and 5% in rows of class 0 (a test ordered more often for the sick). The rows are split 2/3 :
1/3, costs drawn U(0.1, 1) and the budget is 25% of the total cost. Each method selects with
`costfs.study.single_run.select_once` (its hyperparameter tuned by refit OOB error) and a
500-tree Random Forest refit on its features gives the test MMCE, for three handlings:

- native: the data with its missing values, each method's own rule (`Method.missing_values`);
- median: every missing value replaced by its training column's median, in training and test;
- complete_case: training rows with any missing value dropped; the test rows keep theirs,
  which the forest (trained without any) sends to the larger child (scikit-learn's rule).

Results are appended to --out (one row per run, so an interrupted run resumes); --summary
writes the mean test MMCE per method, mechanism and handling as a Markdown table.

    .venv/bin/python benchmarks/missing_values_study.py --out missing.csv --summary summary.md
"""

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from costfs.core.errors import DataError
from costfs.core.seeds import derive_rng, derive_seed
from costfs.methods import method_names
from costfs.study.evaluation import evaluate_feature_sets
from costfs.study.realdata import split_indices, table_to_arrays
from costfs.study.single_run import select_once

DATA = Path(__file__).resolve().parents[1] / "data"
MECHANISMS = {"MCAR": (0.15, 0.15), "MNAR": (0.05, 0.25)}
"""Probability that a value of an affected feature is missing, in class 0 and class 1 rows."""
HANDLINGS = ("native", "median", "complete_case")
KEYS = ["dataset", "rep", "mechanism", "handling", "method"]
"""The columns that name a run."""
SETTINGS = {
    "pfi": {"n_trees": 500},
    "sts": {"trees_per_depth": 500},
    "sts_features": {"trees_per_k": 100},
    "fs": {"n_trees": 100},
    "budget_rf": {"n_trees_max": 20},
}
"""Where the default study (config/config.yaml) sets a method's size, the same size."""


def remove_values(X, y, mechanism, rng) -> np.ndarray:
    affected = rng.choice(X.shape[1], size=max(1, X.shape[1] // 3), replace=False)
    chance = np.where(y == 1, MECHANISMS[mechanism][1], MECHANISMS[mechanism][0])
    X = X.copy()
    for column in affected:
        X[rng.random(y.size) < chance, column] = np.nan
    return X


def handled(handling, X_train, y_train, X_test):
    if handling == "median":
        medians = np.nanmedian(X_train, axis=0)
        fill = lambda X: np.where(np.isnan(X), medians, X)  # noqa: E731
        return fill(X_train), y_train, fill(X_test)
    if handling == "complete_case":
        complete = ~np.isnan(X_train).any(axis=1)
        return X_train[complete], y_train[complete], X_test
    return X_train, y_train, X_test


def run(dataset, rep, mechanism, handling, method, n_jobs) -> dict:
    frame = pd.read_csv(DATA / f"{dataset}.csv.gz")
    X, y, _, _ = table_to_arrays(frame, "target", 1, dataset)
    rng = derive_rng(0, "missing", dataset, rep, mechanism)
    X = remove_values(X, y, mechanism, rng)
    train, test = split_indices(rng, y.size, 2 / 3)
    costs = rng.uniform(0.1, 1.0, size=X.shape[1])
    budget = 0.25 * costs.sum()
    X_train, y_train, X_test = handled(handling, X[train], y[train], X[test])
    started = time.perf_counter()
    identity = {
        "dataset": dataset,
        "rep": rep,
        "mechanism": mechanism,
        "handling": handling,
        "method": method,
        "training_rows": y_train.size,
        "missing_share": float(np.isnan(X).mean()),
        "budget": budget,
    }
    try:
        chosen = select_once(
            X_train,
            y_train,
            costs,
            [budget],
            method=method,
            seed=derive_seed(0, "select", dataset, rep),
            n_jobs=n_jobs,
            **SETTINGS.get(method, {}),
        ).iloc[0]
    except DataError as error:
        # Complete-case analysis can leave too few rows of a class for a method's folds.
        return {**identity, "test_mmce": np.nan, "error": str(error)}
    features = tuple(int(j) for j in chosen["features"])
    errors = evaluate_feature_sets(
        X_train, y_train, X_test, y[test], [features], n_trees=500, seed_parts=(dataset, rep)
    ).iloc[0]
    return {
        **identity,
        "n_features": len(features),
        "cost": float(chosen["cost"]),
        "test_mmce": float(errors["test_mmce"]),
        "seconds": time.perf_counter() - started,
        "error": "",
    }


def summary_table(results: pd.DataFrame) -> str:
    """Mean test MMCE per method (rows) and mechanism x handling (columns), in percent."""
    results = results.drop_duplicates(KEYS)
    means = results.pivot_table(
        index="method", columns=["mechanism", "handling"], values="test_mmce", aggfunc="mean"
    )
    columns = [(m, h) for m in MECHANISMS for h in HANDLINGS if (m, h) in means.columns]
    header = "| method | " + " | ".join(f"{m} {h.replace('_', '-')}" for m, h in columns) + " |"
    lines = [header, "|---" * (len(columns) + 1) + "|"]
    for method, row in means[columns].iterrows():
        cells = " | ".join(f"{100 * row[c]:.1f}" for c in columns)
        lines.append(f"| {method} | {cells} |")
    overall = " | ".join(f"{100 * means[c].mean():.1f}" for c in columns)
    lines.append(f"| **all methods** | {overall} |")
    by_dataset = results.pivot_table(
        index="dataset", columns=["mechanism", "handling"], values="test_mmce", aggfunc="mean"
    )
    lines += ["", header.replace("| method |", "| data set (all methods) |"), lines[1]]
    for dataset, row in by_dataset[columns].iterrows():
        cells = " | ".join(f"{100 * row[c]:.1f}" for c in columns)
        lines.append(f"| {dataset} | {cells} |")
    failed = results[results["test_mmce"].isna()]
    if len(failed):
        lines += ["", "Runs without a result (left out of the means):"]
        lines += [
            f"- {r.dataset} rep {r.rep} {r.mechanism} {r.handling} {r.method}: {r.error}"
            for r in failed.itertuples()
        ]
    rows_left = results.groupby(["mechanism", "handling"])["training_rows"].mean()
    lines.append("")
    lines.append(
        "Training rows on average: "
        + "; ".join(f"{m} {h.replace('_', '-')} {rows_left[m, h]:.0f}" for m, h in columns)
    )
    return "\n".join(lines) + "\n"


def append(path: Path, row: dict) -> None:
    """One run's row at the end of the results file, in its columns."""
    exists = path.exists()
    columns = list(pd.read_csv(path, nrows=0).columns) if exists else list(row)
    pd.DataFrame([row]).reindex(columns=columns).to_csv(
        path, mode="a", header=not exists, index=False
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["wdbc", "qsar-biodeg"])
    parser.add_argument("--methods", nargs="+", default=method_names())
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--summary", type=Path)
    args = parser.parse_args()
    done = pd.read_csv(args.out) if args.out.exists() else pd.DataFrame()
    finished = set(map(tuple, done[KEYS].astype(str).to_numpy())) if len(done) else set()
    for dataset in args.datasets:
        for rep in range(1, args.reps + 1):
            for mechanism in MECHANISMS:
                for handling in HANDLINGS:
                    for method in args.methods:
                        key = (dataset, str(rep), mechanism, handling, method)
                        if key in finished:
                            continue
                        row = run(dataset, rep, mechanism, handling, method, args.threads)
                        print(row, flush=True)
                        append(args.out, row)
    if args.summary:
        args.summary.write_text(summary_table(pd.read_csv(args.out)))


if __name__ == "__main__":
    main()
