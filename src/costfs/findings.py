"""The paper's findings as tables (RF paper, sections 4-5): the value of tuning xi over the fixed
strategies, method comparisons by data type and budget, and real-data ranks; and what the study's
computing cost per stage and method.

Every interval is a 95% Monte Carlo t interval over replicates (`costfs.aggregation.t_interval`):
a replicate's figure is its mean over the problems and budgets of a cell (those share the
replicate's training data), and the replicates are independent.
"""

import numpy as np
import pandas as pd

from costfs.aggregation import summarise, t_interval
from costfs.costs import FeatureCosts

GROUP_ORDER = ["independent", "correlated", "real"]
"""Problem groups: simulated settings by data type (A, B independent; C, D correlated), then
the real data sets."""

BEST_STRATEGIES = ("tuned", "fixed")
"""What a method is compared with: its tuned hyperparameter, or its only configuration."""


def problem_groups(rows: pd.DataFrame) -> pd.Series:
    return pd.Series(
        np.where(rows["kind"] == "real", "real", rows["dataset"]), index=rows.index, name="group"
    )


def _interval(per_rep: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    """Mean, standard error and 95% interval of `value` over replicates, per `keys`."""
    table = (
        per_rep.groupby(keys, observed=True)[value]
        .agg(n_reps="size", mean="mean", sd="std")
        .reset_index()
    )
    table["se"] = table.pop("sd").fillna(0.0) / np.sqrt(table["n_reps"])
    table["ci_low"], table["ci_high"] = t_interval(table["mean"], table["se"], table["n_reps"])
    return table


def tuning_gains(chosen: pd.DataFrame, by_budget: bool = False) -> pd.DataFrame:
    """Test MMCE of each fixed-xi strategy minus that of the tuned one, per (group, method,
    baseline[, budget]): positive means tuning xi helps. Also the share of (problem, budget,
    replicate) cells where tuning is strictly better and strictly worse."""
    cells = ["problem", "budget", "rep", "method"]
    rows = chosen.assign(group=problem_groups(chosen))
    tuned = rows[rows["strategy"] == "tuned"].set_index(cells)["test_mmce"]
    tables = []
    for baseline in ("agnostic", "simple"):
        fixed = rows[rows["strategy"] == baseline].set_index(cells)
        if fixed.empty:
            continue
        paired = fixed[["group"]].assign(
            gain=fixed["test_mmce"] - tuned.reindex(fixed.index), baseline=baseline
        )
        paired = paired.dropna(subset=["gain"]).reset_index()
        keys = ["group", "method", "baseline"] + (["budget"] if by_budget else [])
        per_rep = paired.groupby(keys + ["rep"], observed=True)["gain"].mean().reset_index()
        table = _interval(per_rep, keys, "gain")
        shares = paired.groupby(keys, observed=True)["gain"].agg(
            tuned_better=lambda g: float((g > 0).mean()),
            tuned_worse=lambda g: float((g < 0).mean()),
        )
        tables.append(table.merge(shares.reset_index(), on=keys))
    if not tables:  # a study without the fixed strategies
        return pd.DataFrame(columns=["group", "method", "baseline", "n_reps", "mean"])
    return _ordered(pd.concat(tables, ignore_index=True))


def compare_methods(
    chosen: pd.DataFrame, methods: list[str] | None = None, by_budget: bool = False
) -> pd.DataFrame:
    """Test MMCE and mean rank of methods, each at its best strategy (tuned, else fixed), per
    group[, budget], on the group's cells (problem, budget, replicate) where all of them ran.

    `methods` None compares, in each group, every method that ran in it. Rank 1 is the lowest
    MMCE of a cell (ties share the mean rank)."""
    cells = ["problem", "budget", "rep"]
    rows = chosen[chosen["strategy"].isin(BEST_STRATEGIES)]
    if methods is not None:
        rows = rows[rows["method"].isin(methods)]
    rows = rows.assign(group=problem_groups(rows))
    in_group = rows.groupby("group")["method"].transform("nunique")
    expected = len(methods) if methods is not None else in_group
    rows = rows[rows.groupby(cells)["method"].transform("nunique") == expected].copy()
    rows["rank"] = rows.groupby(cells)["test_mmce"].rank(method="average")
    keys = ["group", "method"] + (["budget"] if by_budget else [])
    per_rep = rows.groupby(keys + ["rep"], observed=True)[["test_mmce", "rank"]].mean()
    table = _interval(per_rep.reset_index(), keys, "test_mmce")
    ranks = rows.groupby(keys, observed=True).agg(
        mean_rank=("rank", "mean"), n_cells=("rank", "size"), n_problems=("problem", "nunique")
    )
    return _ordered(table.merge(ranks.reset_index(), on=keys))


def per_setting(chosen: pd.DataFrame) -> pd.DataFrame:
    """Test MMCE per (problem, budget, method, strategy) over the replicates, with its SE and
    interval, mean cost and size (the RF paper's Additional file 1, for every strategy): the
    summary's columns under the findings tables' names."""
    keys = ["kind", "problem", "budget", "method", "strategy"]
    names = {"n_runs": "n_reps", "mmce_mean": "mean", "mmce_se": "se"}
    columns = [*keys, *names.values(), "ci_low", "ci_high", "cost_mean", "n_selected_mean"]
    return summarise(chosen).rename(columns=names)[columns]


def describe_problem(X: np.ndarray, y: np.ndarray, costs: FeatureCosts) -> dict:
    """A problem's row of the data overview (the RF paper's Table 2): rows, features, classes,
    the smallest class's share, the mean absolute correlation over the pairs of non-constant
    features, and the costs (smallest and largest standalone cost, the cost of all features,
    shared-cost groups)."""
    X = np.asarray(X, dtype=float)
    varying = X.std(axis=0) > 0
    correlations = np.corrcoef(X[:, varying], rowvar=False) if varying.sum() > 1 else None
    pairs = (
        np.abs(correlations[np.triu_indices_from(correlations, k=1)])
        if correlations is not None
        else np.empty(0)
    )
    counts = np.bincount(np.asarray(y))
    standalone = costs.standalone()
    return {
        "rows": X.shape[0],
        "features": X.shape[1],
        "classes": int(np.count_nonzero(counts)),
        "smallest_class_share": float(counts[counts > 0].min() / counts.sum()),
        "mean_abs_correlation": float(pairs.mean()) if pairs.size else np.nan,
        "cost_min": float(standalone.min()),
        "cost_max": float(standalone.max()),
        "cost_all": costs.total(np.arange(costs.n_features)),
        "cost_groups": costs.shared.size,
    }


def _ordered(table: pd.DataFrame) -> pd.DataFrame:
    table["group"] = pd.Categorical(table["group"], GROUP_ORDER, ordered=True)
    keys = [column for column in ("group", "baseline", "budget", "method") if column in table]
    return table.sort_values(keys, kind="stable").reset_index(drop=True)


def stage_costs(timings: pd.DataFrame, n_rep: int) -> pd.DataFrame:
    """Time per (rule, method) from Snakemake's benchmark records (`timings.parquet`): jobs,
    summed wall hours of the jobs (the time they hold their cores) also per replicate (the
    summed hours over the replicates: this scales a study to another number of replicates),
    Snakemake's CPU hours (sampled from the job's processes, so short jobs are undercounted),
    the longest job and the largest memory."""
    columns = ["rule", "method", "jobs", "wall_hours", "wall_hours_per_rep", "cpu_hours"]
    columns += ["max_job_seconds", "max_rss_mb"]
    if timings.empty:
        return pd.DataFrame(columns=columns)
    parts = timings["job"].str.split("/", expand=True)
    table = (
        timings.assign(rule=parts[1], method=parts[2])
        .groupby(["rule", "method"], sort=True)
        .agg(
            jobs=("s", "size"),
            wall_hours=("s", "sum"),
            cpu_hours=("cpu_time", "sum"),
            max_job_seconds=("s", "max"),
            max_rss_mb=("max_rss", "max"),
        )
        .reset_index()
    )
    table[["wall_hours", "cpu_hours"]] /= 3600
    table["wall_hours_per_rep"] = table["wall_hours"] / n_rep
    return table[columns]


TABLES = {
    "tuning": lambda chosen, timings, context: tuning_gains(chosen),
    "tuning_by_budget": lambda chosen, timings, context: tuning_gains(chosen, by_budget=True),
    "methods": lambda chosen, timings, context: compare_methods(chosen),
    "methods_by_budget": lambda chosen, timings, context: compare_methods(chosen, by_budget=True),
    "common_methods": lambda chosen, timings, context: compare_methods(
        chosen, context["common_methods"]
    ),
    "common_methods_by_budget": lambda chosen, timings, context: compare_methods(
        chosen, context["common_methods"], by_budget=True
    ),
    "per_setting": lambda chosen, timings, context: per_setting(chosen),
    "stage_costs": lambda chosen, timings, context: stage_costs(timings, context["n_rep"]),
}
"""The findings tables by name (`results/findings/<name>.csv`): each from the strategies' rows
of the runs table, the jobs' timings and the study's `context` (`common_methods`, `n_rep`)."""
