"""What a study recommends buying: per problem, budget and method, the features its replicates
agree on, what they cost, the held-out error with its interval, how stable the selections are,
and which method is best only where the replicates support it."""

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.study.aggregation import (
    HELD_OUT_SHARE,
    UNIT,
    further_metrics,
    holm_adjusted,
    paired_p_values,
    replicate_intervals,
    replicate_se,
)
from costfs.study.comparisons import ALPHA
from costfs.study.stability import KEYS, nogueira_stability, selection_matrix

MAJORITY = 0.5
"""A feature is recommended when at least this share of the replicates selected it."""

VERDICTS = ("best", "no significant difference", "worse", "one replicate: not tested")


def consensus_set(
    selections: Sequence[Sequence[int]], costs: FeatureCosts, budget: float
) -> tuple[list[int], np.ndarray]:
    """The features selected by at least `MAJORITY` of the replicates, most often selected
    first (ties: the cheaper, then the lower index), each added while the set's true cost
    (shared costs paid once) fits `budget`; and every feature's selection frequency."""
    frequency = selection_matrix(selections, costs.n_features).mean(axis=0)
    standalone = costs.standalone()
    candidates = np.flatnonzero(frequency >= MAJORITY)
    order = candidates[np.lexsort((candidates, standalone[candidates], -frequency[candidates]))]
    chosen: list[int] = []
    for feature in order:
        if costs.total([*chosen, feature]) <= budget + BUDGET_TOLERANCE:
            chosen.append(int(feature))
    return chosen, frequency


def verdicts(chosen: pd.DataFrame) -> pd.Series:
    """Per (kind, problem, budget, method, strategy) of the chosen runs: "best" when the entry
    with the lowest mean test MMCE is significantly lower than every other, "worse" when an
    entry is significantly higher than that lowest, else "no significant difference". Paired
    t tests over the replicates (the entries of a budget share each replicate's split), Holm
    corrected over the budget's comparisons at a family-wise ALPHA; a difference that is the
    same in every replicate has no variance to test and is never significant."""
    results = {}
    for (kind, problem, budget), runs in chosen.groupby(KEYS[:3], sort=True, observed=True):
        errors = runs.pivot_table(
            index="rep", columns=["method", "strategy"], values="test_mmce", observed=True
        ).dropna()
        entries = list(errors.columns)
        if len(errors) < 2:
            results.update({(kind, problem, budget, *e): VERDICTS[3] for e in entries})
            continue
        lowest = errors.mean().idxmin()
        others = [entry for entry in entries if entry != lowest]
        differences = errors[others].sub(errors[lowest], axis=0)
        share = runs[HELD_OUT_SHARE].mean() if HELD_OUT_SHARE in runs else 0.0
        se = replicate_se(differences.std(), len(errors), share)
        p_values = paired_p_values(differences.mean(), se, len(errors))
        rejected = holm_adjusted(pd.Series(p_values)) < ALPHA
        for entry, significant in zip(others, rejected, strict=True):
            results[(kind, problem, budget, *entry)] = VERDICTS[2] if significant else VERDICTS[1]
        results[(kind, problem, budget, *lowest)] = (
            VERDICTS[0] if others and rejected.all() else VERDICTS[1]
        )
    return pd.Series(results, name="verdict", dtype=object).rename_axis(KEYS)


def recommendations(
    chosen: pd.DataFrame,
    names: Mapping[str, Sequence[str]],
    costs: Mapping[str, FeatureCosts],
) -> pd.DataFrame:
    """One row per (problem, budget, method) at the method's main strategy (the chosen runs:
    tuned, or fixed without a hyperparameter): the features to buy (`consensus_set`, by name,
    `;`-separated) with how often the replicates selected each, the set's true cost, the
    replicates' mean selected cost, the procedure's held-out test MMCE (mean and 95% t interval
    over the replicates: the error of each replicate's own selection, refit on its training
    data), how many replicates chose the recommended set itself and its mean test MMCE on
    those replicates (NaN where none did), the selections' stability with its interval, each
    further test metric (`test_auc`, ...) with its interval, and the budget's verdict."""
    intervals = {
        column: replicate_intervals(chosen, KEYS, column, bounds=UNIT).set_index(KEYS)
        for column in ["test_mmce", *further_metrics(chosen)]
    }
    rows = []
    for key, runs in chosen.groupby(KEYS, sort=True, observed=True):
        problem, budget = key[1], key[2]
        problem_costs = costs[problem]
        selections = list(runs["features"])
        features, frequency = consensus_set(selections, problem_costs, budget)
        same_set = np.array([set(selection) == set(features) for selection in selections])
        stability = nogueira_stability(selections, problem_costs.n_features)
        metrics = {}
        for column in further_metrics(runs):
            mean, low, high = intervals[column].loc[key, ["mean", "ci_low", "ci_high"]]
            metrics |= {column: mean, f"{column}_low": low, f"{column}_high": high}
        rows.append(
            (
                *key,
                len(runs),
                "; ".join(str(names[problem][j]) for j in features),
                "; ".join(f"{frequency[j]:.2f}" for j in features),
                len(features),
                problem_costs.total(features),
                runs["cost"].mean(),
                *intervals["test_mmce"].loc[key, ["mean", "ci_low", "ci_high"]],
                int(same_set.sum()),
                runs["test_mmce"][same_set].mean() if same_set.any() else np.nan,
                *stability,
                metrics,
            )
        )
    columns = [*KEYS, "n_reps", "features", "frequencies", "n_features", "cost"]
    columns += ["mean_selected_cost", "test_mmce", "ci_low", "ci_high"]
    columns += ["n_reps_with_set", "set_test_mmce"]
    columns += ["stability", "stability_low", "stability_high", "metrics"]
    table = pd.DataFrame(rows, columns=columns)
    table = pd.concat(
        [table.drop(columns="metrics"), pd.DataFrame(list(table["metrics"]), index=table.index)],
        axis=1,
    )
    table = table.merge(verdicts(chosen).reset_index(), on=KEYS, how="left")
    order = table["kind"].map({"real": 0, "simulated": 1})
    # Equal errors computed along different paths can differ in the last bit: rounded, they
    # tie, and the method's name orders them.
    return (
        table.assign(order=order, error=table["test_mmce"].round(12))
        .sort_values(["order", "problem", "budget", "error", "method"], kind="stable")
        .drop(columns=["order", "error"])
        .reset_index(drop=True)
    )
