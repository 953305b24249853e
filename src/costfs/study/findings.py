"""The paper's findings as tables (RF paper, sections 4-5): the value of tuning xi over the fixed
strategies, method comparisons by data type and budget, and real-data ranks; and what the study's
computing cost per stage and method.

Every interval is a 95% Monte Carlo t interval over replicates
(`costfs.study.aggregation.t_interval`): a replicate's figure is its mean over the problems and
budgets of a cell (those share the replicate's training data), and the replicates are independent.
"""

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from costfs.core.costs import FeatureCosts
from costfs.study import comparisons
from costfs.study.aggregation import (
    HELD_OUT_SHARE,
    holm_adjusted,
    paired_p_values,
    replicate_intervals,
    summarise,
    without_spread,
)

GROUP_ORDER = ["independent", "correlated", "real"]
"""Problem groups: simulated settings by data type (A, B independent; C, D correlated), then
the real data sets."""

BEST_STRATEGIES = ("tuned", "fixed")
"""What a method is compared with: its tuned hyperparameter, or its only configuration."""

PAPER_ENTRIES = (
    ("auc", "tuned"),
    ("pfi", "tuned"),
    ("sts", "tuned"),
    ("fs", "agnostic"),
    ("fs", "simple"),
)
"""The RF paper's methods as its Fig. 3 compares them: AUC, pFI and STS with tuned xi, forward
selection at xi = 0 (FS-0) and xi = 1 (FS-1)."""

PAPER_METHODS = frozenset(method for method, _ in PAPER_ENTRIES)
"""The paper's own methods; the others are related work."""

PAPER_BASELINES = (("auc", "agnostic"), ("pfi", "agnostic"), ("sts", "agnostic"))
"""With PAPER_ENTRIES the eight entries of the paper's real-data mean ranks (its Fig. 5): the
cost-agnostic baselines AUC-0, pFI-0, STS-0 besides FS-0."""

FIXED_XI_PAIRS = tuple(((m, "agnostic"), (m, "simple")) for m in ("auc", "pfi", "sts"))
"""xi = 0 against xi = 1 for the paper's filters: is either generally superior (its Aim 1)?"""

RECOMMENDED = (("pfi", "tuned"), ("sts", "tuned"))
"""The paper's recommendation, which every other method is compared with pairwise."""


def entry_label(method: str, strategy: str) -> str:
    """An entry's name as the paper writes it: `fs-0` at xi = 0, `fs-1` at xi = 1, else the
    method's name."""
    return method + {"agnostic": "-0", "simple": "-1"}.get(strategy, "")


def problem_groups(rows: pd.DataFrame) -> pd.Series:
    return pd.Series(
        np.where(rows["kind"] == "real", "real", rows["dataset"]), index=rows.index, name="group"
    )


def _shares(rows: pd.DataFrame) -> list[str]:
    """The held-out share column where `rows` have it: a paired frame built from them keeps it,
    so that its intervals and tests on real data are Nadeau & Bengio's corrected ones."""
    return [HELD_OUT_SHARE] if HELD_OUT_SHARE in rows else []


def _separate(first: pd.DataFrame, second: pd.DataFrame, keys: list[str]) -> pd.Series:
    """The RF paper's rule, per `keys`: whether two entries' 95% intervals of their mean test
    MMCE over the replicates do not overlap. `first` and `second` hold one `error` per
    (*keys, rep), the same rows in both."""
    low, high = (
        replicate_intervals(errors, keys, "error").set_index(keys) for errors in (first, second)
    )
    return ((low["ci_high"] < high["ci_low"]) | (high["ci_high"] < low["ci_low"])).rename(
        "separate"
    )


def _tested(table: pd.DataFrame, family: list[str]) -> pd.DataFrame:
    """The paired t test of each row's mean difference (`paired_p_values`): `constant` (no
    spread, never significant), `p_value`, and `p_holm`, Holm-adjusted within the rows that
    share `family` (one comparison across the setups of a problem group)."""
    table["constant"] = without_spread(table["se"])
    table["p_value"] = paired_p_values(table["mean"], table["se"], table["n_reps"])
    table["p_holm"] = holm_adjusted(table["p_value"], [table[column] for column in family])
    return table


def tuning_gains(chosen: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Test MMCE of each fixed-xi strategy minus that of the tuned one, per (group, method,
    baseline, *by), `by` from "problem" and "budget": positive means tuning xi helps. A paired
    comparison: the differences are taken within each run, and the interval is over the
    replicates' mean differences, with its paired t test (`_tested`: Holm over the rows of a
    group, method and baseline) and the RF paper's non-overlap rule (`separate`). Also the
    share of (problem, budget, replicate) cells where tuning is strictly better and strictly
    worse."""
    cells = ["problem", "budget", "rep", "method"]
    rows = chosen.assign(group=problem_groups(chosen))
    tuned = rows[rows["strategy"] == "tuned"].set_index(cells)["test_mmce"]
    tables = []
    for baseline in ("agnostic", "simple"):
        fixed = rows[rows["strategy"] == baseline].set_index(cells)
        if fixed.empty:
            continue
        paired = fixed[["group", *_shares(fixed)]].assign(
            fixed=fixed["test_mmce"],
            tuned=tuned.reindex(fixed.index),
            gain=fixed["test_mmce"] - tuned.reindex(fixed.index),
            baseline=baseline,
        )
        paired = paired.dropna(subset=["gain"]).reset_index()
        keys = ["group", "method", "baseline", *by]
        values = ["gain", "fixed", "tuned", *_shares(paired)]
        per_rep = paired.groupby(keys + ["rep"], observed=True)[values]
        per_rep = per_rep.mean().reset_index()
        table = replicate_intervals(per_rep, keys, "gain")
        separate = _separate(
            *(per_rep.rename(columns={entry: "error"}) for entry in ("fixed", "tuned")), keys
        )
        shares = paired.groupby(keys, observed=True)["gain"].agg(
            tuned_better=lambda g: float((g > 0).mean()),
            tuned_worse=lambda g: float((g < 0).mean()),
        )
        table = table.merge(shares.reset_index(), on=keys).join(separate, on=keys)
        tables.append(table)
    if not tables:  # a study without the fixed strategies
        return pd.DataFrame(columns=["group", "method", "baseline", "n_reps", "mean"])
    table = pd.concat(tables, ignore_index=True)
    return _ordered(_tested(table, ["group", "method", "baseline"]))


def best_rows(chosen: pd.DataFrame) -> pd.DataFrame:
    """The rows of each method's best strategy: tuned, else its only configuration."""
    return chosen[chosen["strategy"].isin(BEST_STRATEGIES)]


def compare_methods(
    chosen: pd.DataFrame, methods: list[str] | None = None, by_budget: bool = False
) -> pd.DataFrame:
    """Test MMCE and mean rank of methods, each at its best strategy (tuned, else fixed), per
    group[, budget], on the group's cells (problem, budget, replicate) where all of them ran.

    `methods` None compares, in each group, every method that ran in it. Rank 1 is the lowest
    MMCE of a cell (ties share the mean rank)."""
    cells = ["problem", "budget", "rep"]
    rows = best_rows(chosen)
    if methods is not None:
        rows = rows[rows["method"].isin(methods)]
    rows = rows.assign(group=problem_groups(rows))
    in_group = rows.groupby("group")["method"].transform("nunique")
    expected = len(methods) if methods is not None else in_group
    rows = rows[rows.groupby(cells)["method"].transform("nunique") == expected].copy()
    rows["rank"] = rows.groupby(cells)["test_mmce"].rank(method="average")
    keys = ["group", "method"] + (["budget"] if by_budget else [])
    per_rep = rows.groupby(keys + ["rep"], observed=True)[["test_mmce", "rank"]].mean()
    table = replicate_intervals(per_rep.reset_index(), keys, "test_mmce")
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


def xi_curves(runs: pd.DataFrame) -> pd.DataFrame:
    """Test MMCE against xi (the RF paper's Fig. 2): mean, SE and t interval over replicates
    per (problem, budget, method, xi), for the methods whose hyperparameter is xi, and per
    curve whether the value is the curve's minimum."""
    rows = runs[runs["hyperparameter"] == "xi"].rename(columns={"hyperparameter_value": "xi"})
    keys = ["kind", "problem", "budget", "method", "xi"]
    table = replicate_intervals(rows, keys, "test_mmce")
    curve = ["problem", "budget", "method"]
    table["is_minimum"] = table["mean"] == table.groupby(curve)["mean"].transform("min")
    return table


def tuned_against_curves(chosen: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Tuned xi against the best fixed xi in hindsight (the RF paper: tuned "is generally lower
    than any point on the curves"), per (problem, budget, method) of the methods whose
    hyperparameter is xi. `best_xi` is the curve's minimum (`xi_curves`; the smallest xi on a
    tie) and `n_minima` the number of tied minima. The difference is tuned minus the error at
    `best_xi` within each run, with its t interval, paired test (`_tested`: Holm over a group
    and method) and the paper's rule (`separate`); `below_curve`: the tuned mean is below the
    curve's lowest mean. The best xi is chosen on the test errors themselves, which favours
    the curve."""
    curves = xi_curves(runs)
    curve = ["problem", "budget", "method"]
    minima = curves[curves["is_minimum"]].sort_values("xi", kind="stable")
    best = minima.groupby(curve, observed=True).agg(
        best_xi=("xi", "first"), n_minima=("xi", "size"), curve_minimum=("mean", "first")
    )
    cells = ["problem", "budget", "method", "rep"]
    xi_rows = runs[runs["hyperparameter"] == "xi"].join(best["best_xi"], on=curve)
    at_best = xi_rows[np.isclose(xi_rows["hyperparameter_value"], xi_rows["best_xi"])]
    tuned = chosen[(chosen["strategy"] == "tuned") & chosen["method"].isin(curves["method"])]
    tuned = tuned.assign(group=problem_groups(tuned)).set_index(cells)
    paired = tuned[["group", "kind", *_shares(tuned)]].assign(
        tuned=tuned["test_mmce"], error=at_best.set_index(cells)["test_mmce"]
    )
    paired = paired.dropna(subset=["error"]).reset_index()
    paired["difference"] = paired["tuned"] - paired["error"]
    keys = ["group", "kind", "problem", "budget", "method"]
    table = replicate_intervals(paired, keys, "difference")
    separate = _separate(
        paired, paired.drop(columns="error").rename(columns={"tuned": "error"}), keys
    )
    table = table.join(separate, on=keys).join(best, on=curve)
    tuned_mean = replicate_intervals(paired, keys, "tuned").set_index(keys)["mean"]
    table["below_curve"] = table.join(tuned_mean.rename("tuned_mean"), on=keys).eval(
        "tuned_mean < curve_minimum"
    )
    return _ordered(_tested(table, ["group", "method"]))


def method_differences(chosen: pd.DataFrame) -> pd.DataFrame:
    """Paired differences of test MMCE per (problem, budget): `method` (at `strategy`) minus
    `versus_method` (at `versus_strategy`) within each run, with the t interval over the
    replicates. Pairs: every two of PAPER_ENTRIES, xi = 0 against xi = 1 for the paper's
    filters (`FIXED_XI_PAIRS`), and every other method at its best strategy
    against each RECOMMENDED entry. `lower` and `higher` say whether the interval lies wholly
    below or above 0 (the first entry is significantly better or worse, by a paired test at
    5% per comparison, not corrected for the number of comparisons: `comparisons` has the
    family-wise tests across problems). A difference that is the same in every replicate
    (`constant`: no spread, so no interval to test) is never `lower` or `higher`. `separate`
    is the RF paper's own rule: the two entries' 95% intervals of their mean test MMCE (each
    over the replicates) do not overlap."""
    cells = ["problem", "budget", "rep"]
    present = set(zip(chosen["method"], chosen["strategy"], strict=True))
    paper = [entry for entry in PAPER_ENTRIES if entry in present]
    others = sorted(
        (method, strategy)
        for method, strategy in present
        if strategy in BEST_STRATEGIES and method not in PAPER_METHODS
    )
    pairs = [(a, b) for i, a in enumerate(paper) for b in paper[i + 1 :]]
    pairs += [pair for pair in FIXED_XI_PAIRS if set(pair) <= present]
    pairs += [(other, best) for other in others for best in RECOMMENDED if best in present]
    by_entry = chosen.assign(group=problem_groups(chosen)).set_index(["method", "strategy"])
    tables = []
    for (method, strategy), (versus_method, versus_strategy) in pairs:
        first = by_entry.loc[(method, strategy)].set_index(cells)
        second = by_entry.loc[(versus_method, versus_strategy)].set_index(cells)["test_mmce"]
        paired = first[["kind", "group", *_shares(first)]].assign(
            difference=first["test_mmce"] - second
        )
        paired = paired.dropna(subset=["difference"]).reset_index()
        table = replicate_intervals(paired, ["group", "kind", "problem", "budget"], "difference")
        # Each entry's own interval over the replicates they share, for the paper's rule.
        shared = paired.set_index(cells)
        separate = _separate(
            *(
                shared[_shares(shared)]
                .assign(error=errors.reindex(shared.index).to_numpy())
                .reset_index()
                for errors in (first["test_mmce"], second)
            ),
            ["problem", "budget"],
        )
        tables.append(
            table.join(separate, on=["problem", "budget"]).assign(
                method=method,
                strategy=strategy,
                versus_method=versus_method,
                versus_strategy=versus_strategy,
            )
        )
    columns = ["group", "kind", "problem", "budget", "method", "strategy", "versus_method"]
    columns += ["versus_strategy", "n_reps", "mean", "se", "ci_low", "ci_high", "separate"]
    tests = ["constant", "p_value", "p_holm", "lower", "higher"]
    if not tables:
        return pd.DataFrame(columns=columns + tests)
    table = pd.concat(tables, ignore_index=True)[columns]
    table = _tested(table, ["group", "method", "strategy", "versus_method", "versus_strategy"])
    table["lower"] = (table["ci_high"] < 0) & ~table["constant"]
    table["higher"] = (table["ci_low"] > 0) & ~table["constant"]
    return _ordered(table)


def entry_ranks(chosen: pd.DataFrame) -> pd.DataFrame:
    """Mean ranks per problem group as the RF paper's Fig. 5 ranks: in each setup (problem,
    budget) the entries are ranked by their mean test MMCE over the replicates (1 = lowest,
    ties share the mean rank), and the ranks are averaged over the group's setups where every
    entry ran; a real data set with several cost vectors counts with its first only, as the
    paper's. Two rankings: `paper` (PAPER_ENTRIES and PAPER_BASELINES, the paper's eight)
    and `all` (those and every other method at its best strategy)."""
    # The paper ranks over its data sets "excluding the cost-vector repetitions of Spam": a
    # real data set counts with its first cost vector only.
    real = chosen["kind"] == "real"
    first = chosen.loc[real].groupby("dataset", observed=True)["problem"].transform("min")
    repetition = real & (chosen["problem"] != first.reindex(chosen.index))
    means = (
        chosen[~repetition]
        .assign(group=problem_groups(chosen[~repetition]))
        .groupby(["group", "problem", "budget", "method", "strategy"], observed=True)["test_mmce"]
        .mean()
        .reset_index()
    )
    paper = set(PAPER_ENTRIES + PAPER_BASELINES)
    entries = list(zip(means["method"], means["strategy"], strict=True))
    in_paper = np.array([entry in paper for entry in entries])
    other = np.array([m not in PAPER_METHODS and s in BEST_STRATEGIES for m, s in entries])
    rankings = {"paper": means[in_paper], "all": means[in_paper | other]}
    tables = []
    for ranking, rows in rankings.items():
        for group, in_group in rows.groupby("group", observed=True):
            n_entries = in_group.groupby(["method", "strategy"]).ngroups
            setup = ["problem", "budget"]
            complete = in_group[in_group.groupby(setup)["method"].transform("size") == n_entries]
            ranked = complete.assign(
                rank=complete.groupby(setup)["test_mmce"].rank(method="average")
            )
            table = (
                ranked.groupby(["method", "strategy"])
                .agg(mean_rank=("rank", "mean"), n_setups=("rank", "size"))
                .reset_index()
            )
            tables.append(table.assign(ranking=ranking, group=group, entries=n_entries))
    columns = ["ranking", "group", "method", "strategy", "entry", "entries", "mean_rank"]
    columns += ["n_setups"]
    if not tables:
        return pd.DataFrame(columns=columns)
    table = pd.concat(tables, ignore_index=True)
    table["entry"] = [
        entry_label(m, s) for m, s in zip(table["method"], table["strategy"], strict=True)
    ]
    table["group"] = pd.Categorical(table["group"], GROUP_ORDER, ordered=True)
    return table.sort_values(["ranking", "group", "mean_rank"]).reset_index(drop=True)[columns]


def selected_features(chosen: pd.DataFrame, design: dict | None) -> pd.DataFrame:
    """What the selected sets of the simulated settings are made of, per (problem, budget,
    method, strategy), means over the replicates: the share of informative features (mu != 0),
    the summed |mu| (the signal bought), the cost per feature, and on correlated data the share
    of uninformative features that sit in a correlation block with a selected informative one
    (useful only jointly: with it they cancel block noise). `design` holds the simulation's
    `mu` and `sigma_correlated`; None (no simulated settings) gives an empty table."""
    keys = ["problem", "budget", "method", "strategy"]
    columns = [*keys, "dataset", "n_reps", "n_selected", "share_informative"]
    columns += ["share_informative_se", "abs_mu_sum", "abs_mu_sum_se", "cost_per_feature"]
    columns += ["share_null_in_informative_block"]
    rows = chosen[chosen["kind"] == "simulated"]
    if design is None or rows.empty:
        return pd.DataFrame(columns=columns)
    mu = np.abs(np.asarray(design["mu"]))
    informative = mu > 0
    sigma = np.asarray(design["sigma_correlated"])
    _, block = np.unique(sigma != 0, axis=0, return_inverse=True)
    profiles = []
    for features, dataset in zip(rows["features"], rows["dataset"], strict=True):
        chosen_features = np.asarray(features, dtype=int)
        useful = informative[chosen_features]
        null = chosen_features[~useful]
        if dataset == "correlated" and null.size:
            covered = np.isin(block[null], block[chosen_features[useful]])
            null_in_block = float(covered.mean())
        else:
            null_in_block = np.nan
        profiles.append(
            {
                "share_informative": float(useful.mean()) if useful.size else np.nan,
                "abs_mu_sum": float(mu[chosen_features].sum()),
                "share_null_in_informative_block": null_in_block,
            }
        )
    profile = pd.concat([rows.reset_index(drop=True), pd.DataFrame(profiles)], axis=1)
    profile["cost_per_feature"] = profile["cost"] / profile["n_selected"].replace(0, np.nan)
    per_rep = profile.groupby([*keys, "dataset", "rep"], observed=True).mean(numeric_only=True)
    grouped = per_rep.reset_index().groupby([*keys, "dataset"], observed=True)
    table = grouped.agg(
        n_reps=("rep", "size"),
        n_selected=("n_selected", "mean"),
        share_informative=("share_informative", "mean"),
        share_informative_se=("share_informative", "sem"),
        abs_mu_sum=("abs_mu_sum", "mean"),
        abs_mu_sum_se=("abs_mu_sum", "sem"),
        cost_per_feature=("cost_per_feature", "mean"),
        share_null_in_informative_block=("share_null_in_informative_block", "mean"),
    ).reset_index()
    return table[columns]


def absolute_pair_correlations(X: np.ndarray) -> np.ndarray:
    """The absolute Pearson correlation of each pair of columns of `X` (each pair once), on the
    rows where both are observed (pairwise-complete: a missing value drops its row from its
    column's pairs only, not from every pair). A pair with a constant column, or fewer than
    three rows in common, has none and is left out."""
    with np.errstate(invalid="ignore", divide="ignore"):
        correlations = pd.DataFrame(np.asarray(X, dtype=float)).corr(min_periods=3).to_numpy()
    values = np.abs(correlations[np.triu_indices_from(correlations, k=1)])
    return values[~np.isnan(values)]


def describe_problem(X: np.ndarray, y: np.ndarray, costs: FeatureCosts) -> dict:
    """A problem's row of the data overview (the RF paper's Table 2): rows, features, classes,
    the smallest class's share, the mean absolute correlation over the pairs of non-constant
    features, and the costs (smallest and largest standalone cost, the cost of all features,
    shared-cost groups)."""
    X = np.asarray(X, dtype=float)
    pairs = absolute_pair_correlations(X)
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
    order = ("group", "problem", "baseline", "budget", "method")
    keys = [column for column in order if column in table]
    return table.sort_values(keys, kind="stable").reset_index(drop=True)


def stage_costs(timings: pd.DataFrame, n_rep: int | Mapping[str, int]) -> pd.DataFrame:
    """Time per (rule, method) from Snakemake's benchmark records (`timings.parquet`): jobs,
    summed wall hours of the jobs (the time they hold their cores) also per replicate (the
    summed hours over the replicates: this scales a study to another number of replicates),
    Snakemake's CPU hours (a lower bound: it samples the job's processes every half second for
    their first 15 seconds, then every 30 seconds, and misses what they use after the last
    sample), the longest job and the largest memory. `n_rep` is the study's replicates, or per
    method (a study run in batches of other sizes per method)."""
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
    reps = table["method"].map(n_rep) if isinstance(n_rep, Mapping) else n_rep
    table["wall_hours_per_rep"] = table["wall_hours"] / reps
    return table[columns]


TABLES = {
    "tuning": lambda chosen, timings, context: tuning_gains(chosen),
    "tuning_by_budget": lambda chosen, timings, context: tuning_gains(chosen, by=["budget"]),
    "tuning_by_setting": lambda chosen, timings, context: tuning_gains(
        chosen, by=["problem", "budget"]
    ),
    "methods": lambda chosen, timings, context: compare_methods(chosen),
    "methods_by_budget": lambda chosen, timings, context: compare_methods(chosen, by_budget=True),
    "common_methods": lambda chosen, timings, context: compare_methods(
        chosen, context["common_methods"]
    ),
    "common_methods_by_budget": lambda chosen, timings, context: compare_methods(
        chosen, context["common_methods"], by_budget=True
    ),
    "per_setting": lambda chosen, timings, context: per_setting(chosen),
    "xi_curves": lambda chosen, timings, context: xi_curves(context["runs"]),
    "method_differences": lambda chosen, timings, context: method_differences(chosen),
    "tuned_against_curves": lambda chosen, timings, context: tuned_against_curves(
        chosen, context["runs"]
    ),
    "ranks": lambda chosen, timings, context: entry_ranks(chosen),
    "selected_features": lambda chosen, timings, context: selected_features(
        chosen, context["design"]
    ),
    "stage_costs": lambda chosen, timings, context: stage_costs(timings, context["n_rep"]),
    "friedman": lambda chosen, timings, context: comparisons.friedman_tests(best_rows(chosen)),
    "nemenyi": lambda chosen, timings, context: comparisons.nemenyi_tests(best_rows(chosen)),
    "bayesian_signed_rank": lambda chosen, timings, context: comparisons.bayesian_comparisons(
        best_rows(chosen), [method for method, _ in RECOMMENDED]
    ),
}
"""The findings tables by name (`results/findings/<name>.csv`): each from the strategies' rows
of the runs table, the jobs' timings and the study's `context` (`runs`, the runs table;
`common_methods`; `n_rep`; `design`, the simulation's design arrays or None)."""
