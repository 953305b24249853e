"""Aggregation (RF paper, sections 3.4-3.5): strategies, Monte Carlo summaries, ranks and the
area under the cost-accuracy Pareto curve."""

import gc
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from costfs.core.pareto import area_under_pareto
from costfs.study.stability import stability_table

UNIT = (0.0, 1.0)
"""The range of every test metric: error rate, AUC, Brier score, sensitivity, specificity."""

STRATEGY_VALUES = {"agnostic": 0.0, "simple": 1.0}
"""Strategies that fix the BCR hyperparameter xi; `tuned` picks it by OOB error."""


def t_interval(mean, se, n_replicates) -> tuple:
    """The 95% interval of a mean over independent replicates: mean ± t(0.975, n − 1) · SE,
    Student's t with n − 1 degrees of freedom (at 4 replicates 3.18 SEs, not the normal 1.96).
    One replicate gives no interval (NaN)."""
    # Imported here: scipy.stats adds half a second to every import of this module, and the
    # workflow imports it while it plans.
    from scipy import stats

    n_replicates = np.asarray(n_replicates, dtype=float)
    quantile = stats.t.ppf(0.975, np.where(n_replicates > 1, n_replicates - 1, np.nan))
    return mean - quantile * se, mean + quantile * se


def bounded_interval(mean, se, n_replicates, bounds: tuple[float, float] = (0.0, 1.0)) -> tuple:
    """The 95% interval of a mean of values within `bounds` (an error rate, an AUC, a
    sensitivity): `t_interval` intersected with the bounds, so that it stays within them by
    construction (a plain t interval of an error near 0 reached below 0). The true mean lies
    within the bounds, so the intersection covers it exactly when the t interval does: the
    coverage is the t interval's, and the interval is never wider."""
    low, high = t_interval(np.asarray(mean, dtype=float), se, n_replicates)
    return np.clip(low, *bounds), np.clip(high, *bounds)


NO_SPREAD = 1e-12
"""A standard error at most this is no spread: the values are the same in every replicate (up to
floating-point rounding; a test error moves in steps of one over the test rows), so a t test
has nothing to test."""


def without_spread(se) -> np.ndarray:
    """Whether each standard error is no spread (`NO_SPREAD`)."""
    return np.isclose(np.asarray(se, dtype=float), 0.0, rtol=0.0, atol=NO_SPREAD)


HELD_OUT_SHARE = "held_out_share"
"""The runs' column of Nadeau & Bengio's n_test / n_train: on real data every replicate splits
the same rows, so the replicates' training sets overlap and their spread understates the
uncertainty of a mean over them; 0 where each replicate draws fresh data (a simulated
setting)."""


def held_out_shares(kinds: pd.Series, train_fraction: float) -> np.ndarray:
    """`HELD_OUT_SHARE` per run from its problem's kind: (1 − f) / f for a real data set split
    with training fraction f, 0 for a simulated setting."""
    return np.where(kinds == "real", (1 - train_fraction) / train_fraction, 0.0)


def replicate_se(sd, n_replicates, held_out_share=0.0):
    """The standard error of a mean over `n_replicates` values with standard deviation `sd`:
    sd / sqrt(n) for independent replicates (`held_out_share` 0), else Nadeau & Bengio's
    corrected resampled sd · sqrt(1/n + n_test/n_train) for replicates that split one data set
    (`HELD_OUT_SHARE`)."""
    n_replicates = np.asarray(n_replicates, dtype=float)
    # Written so that a share of 0 gives sd / sqrt(n) to the last bit.
    return sd / np.sqrt(n_replicates) * np.sqrt(1 + n_replicates * held_out_share)


def replicate_intervals(
    values: pd.DataFrame, keys: list[str], column: str, bounds: tuple[float, float] | None = None
) -> pd.DataFrame:
    """Per `keys`, the number of replicates (`n_reps`, one row of `values` each), the mean of
    `column`, its standard error (0 for one replicate) and 95% interval: within `bounds`
    (`bounded_interval`) for a quantity that has them, else the t interval (`t_interval`).

    Where `values` has a `HELD_OUT_SHARE` column, the standard error is the corrected resampled
    one of Nadeau & Bengio (2003), sd · sqrt(1/n + n_test/n_train), since replicates that split
    one data set share training rows; without it the replicates are independent, sd / sqrt(n).
    """
    table = (
        values.assign(_share=values.get(HELD_OUT_SHARE, 0.0))
        .groupby(keys, observed=True)
        .agg(
            n_reps=(column, "size"),
            mean=(column, "mean"),
            sd=(column, "std"),
            share=("_share", "mean"),
        )
        .reset_index()
    )
    table["se"] = replicate_se(table.pop("sd").fillna(0.0), table["n_reps"], table.pop("share"))
    interval = (
        t_interval(table["mean"], table["se"], table["n_reps"])
        if bounds is None
        else bounded_interval(table["mean"], table["se"], table["n_reps"], bounds)
    )
    table["ci_low"], table["ci_high"] = interval
    return table


def paired_p_values(mean, se, n_replicates) -> np.ndarray:
    """Two-sided p values of the paired t test that a mean difference over replicates is 0
    (one-sample t test of the differences: t = mean / SE, n − 1 degrees of freedom). A
    difference without spread (`without_spread`) is the same in every replicate: p = 1, it is
    never significant. One replicate gives NaN."""
    from scipy import stats

    mean = np.asarray(mean, dtype=float)
    se = np.asarray(se, dtype=float)
    n_replicates = np.asarray(n_replicates, dtype=float)
    constant = without_spread(se)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean) / np.where(constant, np.nan, se)
    p = 2 * stats.t.sf(t, np.where(n_replicates > 1, n_replicates - 1, np.nan))
    return np.where(constant & (n_replicates > 1), 1.0, p)


def holm_adjusted(p_values: pd.Series, families: list[pd.Series] | None = None) -> pd.Series:
    """Holm's step-down adjustment of `p_values` within each family (rows with equal values of
    `families`; None: all rows are one family), so that rejecting where the adjusted value is
    below 0.05 keeps the family-wise error rate at 5%. NaN stays NaN and is not counted."""
    from statsmodels.stats.multitest import multipletests

    adjusted = pd.Series(np.nan, index=p_values.index, dtype=float)
    groups = p_values.groupby(families, observed=True) if families else [(None, p_values)]
    # statsmodels' Holm runs a full garbage collection per family, about 50 ms with pandas
    # and scipy loaded (most of a findings job's time); it skips the objects frozen here.
    gc.freeze()
    try:
        for _, family in groups:
            tested = family.dropna()
            if len(tested):
                adjusted[tested.index] = multipletests(tested.to_numpy(), method="holm")[1]
    finally:
        gc.unfreeze()
    return adjusted


def choose_strategies(runs: pd.DataFrame, strategies: list[str]) -> pd.DataFrame:
    """Rows of `runs` picked by each strategy, per (problem, rep, method, budget).

    `agnostic` and `simple` take xi = 0 and xi = 1 (methods whose hyperparameter is xi);
    `tuned` takes the grid value with the lowest OOB error (ties: lower cost, then lower value);
    a method without a hyperparameter grid has the single strategy `fixed`.
    """
    keys = ["problem", "rep", "method", "budget"]
    picked = []
    is_xi = runs["hyperparameter"] == "xi"
    for strategy in strategies:
        if strategy in STRATEGY_VALUES:
            chosen = runs[
                is_xi & np.isclose(runs["hyperparameter_value"], STRATEGY_VALUES[strategy])
            ]
        elif strategy == "tuned":
            tunable = runs[runs["hyperparameter"] != ""]
            order = tunable.sort_values(keys + ["oob_mmce", "cost", "hyperparameter_value"])
            chosen = order.drop_duplicates(keys, keep="first")
        else:
            raise ValueError(f"unknown strategy {strategy!r}")
        picked.append(chosen.assign(strategy=strategy))
    fixed = runs[runs["hyperparameter"] == ""]
    picked.append(fixed.assign(strategy="fixed"))
    return pd.concat(picked, ignore_index=True)


def further_metrics(runs: pd.DataFrame) -> list[str]:
    """The runs' test metric columns besides MMCE (`test_auc`, ...: the config's
    `evaluation.metrics`)."""
    return [c for c in runs.columns if c.startswith("test_") and c != "test_mmce"]


def summarise(chosen: pd.DataFrame) -> pd.DataFrame:
    """Mean MMCE, Monte Carlo SE and 95% CI, mean cost and size (and the mean of each further
    test metric) per (problem, budget, method, strategy); for real data also the rank per
    (problem, budget) and the mean rank over the real cells, among the entries that ran on all
    of them."""
    group = ["kind", "problem", "budget", "method", "strategy"]
    errors = replicate_intervals(chosen, group, "test_mmce", bounds=UNIT).rename(
        columns={"n_reps": "n_runs", "mean": "mmce_mean", "se": "mmce_se"}
    )
    others = (
        chosen.groupby(group, sort=True, observed=True)
        .agg(
            oob_mmce_mean=("oob_mmce", "mean"),
            cost_mean=("cost", "mean"),
            n_selected_mean=("n_selected", "mean"),
            **{f"{column[5:]}_mean": (column, "mean") for column in further_metrics(chosen)},
        )
        .reset_index()
    )
    summary = errors[[*group, "n_runs", "mmce_mean"]].merge(others, on=group)
    summary = summary.merge(errors[[*group, "mmce_se", "ci_low", "ci_high"]], on=group)
    real = summary["kind"] == "real"
    summary["rank"] = np.nan
    summary.loc[real, "rank"] = (
        summary[real].groupby(["problem", "budget"])["mmce_mean"].rank(method="average")
    )
    # A mean over different cells compares nothing: the mean rank ranks, in each cell, only the
    # entries that ran on every real cell, and is NaN for the others.
    summary["mean_rank"] = np.nan
    entry = ["method", "strategy"]
    n_cells = summary[real].groupby(["problem", "budget"]).ngroups
    cells_of_entry = summary[real].groupby(entry)["problem"].transform("size")
    everywhere = real & (cells_of_entry.reindex(summary.index) == n_cells)
    common_rank = (
        summary[everywhere].groupby(["problem", "budget"])["mmce_mean"].rank(method="average")
    )
    summary.loc[everywhere, "mean_rank"] = common_rank.groupby(
        [summary.loc[everywhere, column] for column in entry]
    ).transform("mean")
    return summary


def pareto_areas(
    runs: pd.DataFrame, strategies: Sequence[str] = ("agnostic", "simple", "tuned")
) -> pd.DataFrame:
    """AUP of test MMCE against selected cost per (kind, problem, method, strategy): one
    staircase per rep through its chosen sets at all budgets, cost normalised by the problem's
    largest budget (so methods compare within a problem); mean over reps with Monte Carlo SE.
    One row per (kind, problem, method, strategy), to merge into the summary on those keys."""
    chosen = choose_strategies(runs, list(strategies))
    largest_budget = chosen.groupby("problem")["budget"].transform("max")
    keys = ["kind", "problem", "method", "strategy"]
    per_rep = (
        chosen.assign(max_cost=largest_budget)
        .groupby([*keys, "rep"], sort=True)
        .apply(
            lambda run: area_under_pareto(
                run["cost"], run["test_mmce"], kind="error", reference_cost=run["max_cost"].iloc[0]
            ),
            include_groups=False,
        )
        .rename("aup")
        .reset_index()
    )
    areas = (
        per_rep.groupby(keys, sort=True)
        .agg(n_runs=("aup", "size"), aup_mean=("aup", "mean"), aup_sd=("aup", "std"))
        .reset_index()
    )
    areas["aup_se"] = areas.pop("aup_sd").fillna(0.0) / np.sqrt(areas["n_runs"])
    return areas


def combine_runs(
    tables: Sequence[pd.DataFrame], train_fraction: float | None = None
) -> pd.DataFrame:
    """One runs table from the evaluations' tables (or runs tables), in a fixed row order;
    given the real data's `train_fraction`, with each run's `HELD_OUT_SHARE`."""
    runs = pd.concat(tables, ignore_index=True)
    if train_fraction is not None:
        runs[HELD_OUT_SHARE] = held_out_shares(runs["kind"], train_fraction)
    return runs.sort_values(
        ["kind", "problem", "rep", "method", "hyperparameter_value", "budget"], kind="stable"
    ).reset_index(drop=True)


def summary_table(
    runs: pd.DataFrame, strategies: Sequence[str], n_features: Mapping[str, int]
) -> pd.DataFrame:
    """`summary.parquet`: `summarise` of the strategies' rows with the Pareto areas and the
    selections' stability over the replicates (`n_features` per problem)."""
    chosen = choose_strategies(runs, list(strategies))
    keys = ["kind", "problem", "budget", "method", "strategy"]
    return (
        summarise(chosen)
        .merge(
            pareto_areas(runs, strategies).drop(columns="n_runs"),
            on=["kind", "problem", "method", "strategy"],
            how="left",
        )
        .merge(stability_table(chosen, n_features), on=keys, how="left")
    )
