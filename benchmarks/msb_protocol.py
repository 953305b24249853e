"""The msB paper's own claim under its own protocol, on the one of its data sets this project
has (spambase, its "Spam filter"): msB's model schedule against the budgeted L1 logistic
regression, scored by the area under the Pareto accuracy staircase (AUP), cost normalised by
the full model's cost.

Per run: a random 60/20/20 split into training, validation and test rows, and feature costs
drawn from U[1, 100]. msB builds its full model schedule on the training rows (its models
scored by OOB error, `costfs.methods.msb.model_schedule`) and each schedule model is refit on
them and scored on the test rows. The baseline fits the L1 logistic regression along its
regularisation path on the training rows; its schedule is the models no cheaper model beats on
the validation rows, each scored by its own test accuracy. A method's AUP is
`costfs.area_under_pareto` of its schedule's test accuracies, over costs from 0 to the full
model's.

The runs re-split one data set, so their training sets overlap: the interval of the mean
difference uses the corrected resampled standard error (n_test / n_train = 1/3).

Example (about 20 minutes on 2 cores):
  .venv/bin/python benchmarks/msb_protocol.py --runs 20 \
      --out reproduction/tables/msb_protocol.csv \
      --summary reproduction/tables/msb_protocol_summary.csv
"""

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from costfs import area_under_pareto
from costfs.cli import storage
from costfs.core.costs import FeatureCosts
from costfs.core.seeds import derive_seed
from costfs.engine.trees import RefitForests
from costfs.methods._l1 import l1_logistic, smallest_c
from costfs.methods.msb import L1_PATH_DECADES, cost_free_parts, model_schedule
from costfs.study.aggregation import replicate_se, t_interval

DATA = Path(__file__).resolve().parents[1] / "data" / "spambase.csv.gz"
SPLIT = (0.6, 0.2, 0.2)
COST_RANGE = (1.0, 100.0)
N_TREES = 200
SEED = 20240607


def split(n_rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    order = rng.permutation(n_rows)
    first, second = int(SPLIT[0] * n_rows), int((SPLIT[0] + SPLIT[1]) * n_rows)
    return order[:first], order[first:second], order[second:]


def aup(costs: FeatureCosts, models: list[tuple[int, ...]], test_errors: list[float]) -> float:
    """The area under the accuracy staircase of the models, cost normalised by the full
    model's."""
    model_costs = [costs.total(model) for model in models]
    full = costs.total(tuple(range(costs.n_features)))
    accuracies = [1.0 - error for error in test_errors]
    return area_under_pareto(model_costs, accuracies, full_cost=full)


def msb_schedule(X, y, costs, seed, train, test, n_jobs):
    prepared = cost_free_parts(
        X[train], y[train], seed=seed, importance_trees=500, l1_path_length=100, n_jobs=n_jobs
    )
    schedule = model_schedule(
        X[train],
        y[train],
        costs,
        seed=seed,
        prepared=prepared,
        n_trees=N_TREES,
        gamma=0.1,
        min_model_size=2,
        n_jobs=n_jobs,
    )
    models = [tuple(model) for model in schedule["features"]]
    refits = RefitForests(X[train], y[train], X[test], y[test], subsets=models)
    errors = [
        refits.errors(
            model, n_trees=N_TREES, seed=derive_seed(seed, "test", *model), n_jobs=n_jobs
        )[1]
        for model in models
    ]
    return models, errors


def l1_schedule(X, y, costs, train, validation, test, path_length=100):
    """The L1 logistic regression's distinct supports along its path, cut to those no cheaper
    support beats on the validation rows, with their test errors."""
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(X[train])
    Z = {
        "train": np.nan_to_num(scaler.transform(X[train])),
        "val": np.nan_to_num(scaler.transform(X[validation])),
        "test": np.nan_to_num(scaler.transform(X[test])),
    }
    Cs = smallest_c(Z["train"], y[train]) * np.logspace(0, L1_PATH_DECADES, path_length)
    seen, rows = set(), []
    for C in Cs:
        model = l1_logistic(C).fit(Z["train"], y[train])
        support = tuple(np.flatnonzero(np.any(model.coef_ != 0, axis=0)).tolist())
        if not support or support in seen:
            continue
        seen.add(support)
        rows.append(
            {
                "features": support,
                "cost": costs.total(support),
                "val_error": float(np.mean(model.predict(Z["val"]) != y[validation])),
                "test_error": float(np.mean(model.predict(Z["test"]) != y[test])),
            }
        )
    table = pd.DataFrame(rows).sort_values(["cost", "val_error"], kind="stable")
    kept = table[table["val_error"] < table["val_error"].cummin().shift(fill_value=np.inf)]
    return list(kept["features"]), list(kept["test_error"])


def run(X, y, index: int, n_jobs: int = 1) -> list[dict]:
    rng = np.random.default_rng(derive_seed(SEED, "run", index))
    train, validation, test = split(len(y), rng)
    costs = FeatureCosts.ungrouped(rng.uniform(*COST_RANGE, size=X.shape[1]))
    seed = derive_seed(SEED, "msb", index)
    out = []
    for method, (models, errors) in (
        ("msb", msb_schedule(X, y, costs, seed, train, test, n_jobs)),
        ("l1_logistic", l1_schedule(X, y, costs, train, validation, test)),
    ):
        out.append(
            {
                "run": index,
                "method": method,
                "aup": aup(costs, models, errors),
                "n_models": len(models),
                "best_test_error": min(errors),
            }
        )
    return out


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per method the mean AUP, and msB minus the baseline per run: mean, corrected SE and 95%
    t interval."""
    wide = runs.pivot(index="run", columns="method", values="aup")
    n = len(wide)
    held_out_share = SPLIT[2] / SPLIT[0]
    rows = []
    for name, values in (
        ("msb", wide["msb"]),
        ("l1_logistic", wide["l1_logistic"]),
        ("msb minus l1_logistic", wide["msb"] - wide["l1_logistic"]),
    ):
        se = float(replicate_se(values.std(ddof=1), n, held_out_share))
        low, high = t_interval(values.mean(), se, n)
        rows.append(
            {
                "quantity": name,
                "n_runs": n,
                "mean": values.mean(),
                "se": se,
                "ci_low": float(low),
                "ci_high": float(high),
                "runs_msb_better": int((wide["msb"] > wide["l1_logistic"]).sum()),
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--n-jobs", type=int, default=1, help="threads (results do not depend)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--summary", type=Path, required=True)
    args = parser.parse_args()
    frame = pd.read_csv(DATA)
    X = frame.drop(columns="target").to_numpy(dtype=float)
    y = frame["target"].to_numpy(dtype=int)
    rows = []
    for index in range(1, args.runs + 1):
        rows += run(X, y, index, args.n_jobs)
        print(f"run {index}: " + ", ".join(f"{r['method']} {r['aup']:.4f}" for r in rows[-2:]))
    runs = pd.DataFrame(rows)
    storage.write_csv(args.out, runs)
    storage.write_csv(args.summary, summary(runs))
    print(summary(runs).to_string(index=False))


if __name__ == "__main__":
    main()
