"""The study's figures: the RF paper's Figs. 2-5, cost-accuracy curves with the model
schedules, stability, ranks and critical differences.

Pure functions: tables and arrays in, matplotlib Figures out. The figures are built on
`matplotlib.figure.Figure` directly (not pyplot), so no global figure registry or interactive
backend is involved; the caller saves them with `Figure.savefig`.
"""

import contextlib
import functools
import math
import textwrap
from collections.abc import Mapping

import matplotlib
import matplotlib.colors
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import MaxNLocator

from costfs.core.pareto import on_pareto_front, pareto_front
from costfs.methods import load_method, method_names, stable_colour
from costfs.study.aggregation import (
    UNIT,
    choose_strategies,
    replicate_intervals,
    summarise,
)
from costfs.study.comparisons import ALPHA, mean_ranks, nemenyi_p_values
from costfs.study.findings import absolute_pair_correlations
from costfs.study.tables import MAIN_STRATEGIES, method_order

STRATEGY_SUFFIX = {"agnostic": "-0", "simple": "-1", "tuned": "", "fixed": ""}
"""Label suffix per strategy, as the RF paper's "AUC-0" for the cost-agnostic baseline."""

_STRATEGY_TINT = {"agnostic": 0.6, "simple": 0.3, "tuned": 0.0, "fixed": 0.0}
_STRATEGY_LINESTYLE = {"agnostic": ":", "simple": "--", "tuned": "-"}
_STRATEGY_MARKER = {"agnostic": "o", "simple": "s"}
_XI_STRATEGY_LABEL = {"agnostic": "ξ = 0", "simple": "ξ = 1", "tuned": "tuned"}
_BASELINE_STRATEGIES = ("tuned", "fixed", "agnostic")

_STYLE = {**sns.axes_style("whitegrid"), **sns.plotting_context("notebook")}


def _styled(make_figure):
    """Seaborn's whitegrid style for this figure only: importing the module leaves the caller's
    matplotlib settings alone."""

    @functools.wraps(make_figure)
    def styled(*args, **kwargs):
        with matplotlib.rc_context(_STYLE):
            return make_figure(*args, **kwargs)

    return styled


# Colours and labels


def method_colour(method: str, strategy: str = "tuned") -> tuple[float, float, float]:
    """The method's colour (declared in its file, else one from its name, so that it is the
    same in every figure whatever other methods are present), mixed with white for the
    fixed-ξ strategies (lighter = ξ = 0)."""
    base = (
        load_method(method).figure_colour() if method in method_names() else stable_colour(method)
    )
    rgb = np.array(matplotlib.colors.to_rgb(base))
    tint = _STRATEGY_TINT.get(strategy, 0.0)
    return tuple(rgb + (1.0 - rgb) * tint)


def method_label(method: str, strategy: str) -> str:
    return f"{method}{STRATEGY_SUFFIX.get(strategy, f' ({strategy})')}"


def _labelled(table: pd.DataFrame) -> pd.DataFrame:
    return table.assign(
        label=[method_label(m, s) for m, s in zip(table["method"], table["strategy"], strict=True)]
    )


def _label_palette(table: pd.DataFrame) -> dict[str, tuple]:
    pairs = table[["label", "method", "strategy"]].drop_duplicates("label")
    return {
        label: method_colour(method, strategy)
        for label, method, strategy in pairs.itertuples(index=False)
    }


def _label_order(table: pd.DataFrame) -> list[str]:
    """Each method's main result (tuned or fixed), then its baselines -0 and -1."""
    strategy_rank = {"tuned": 0, "fixed": 0, "agnostic": 1, "simple": 2}
    methods = method_order(table["method"].unique())
    pairs = table[["label", "method", "strategy"]].drop_duplicates("label")
    pairs = pairs.assign(
        method_rank=pairs["method"].map(methods.index),
        strategy_rank=pairs["strategy"].map(strategy_rank).fillna(3),
    )
    return pairs.sort_values(["method_rank", "strategy_rank", "label"])["label"].tolist()


def _problem_title(runs_or_summary: pd.DataFrame, problem: str) -> str:
    kind = runs_or_summary.loc[runs_or_summary["problem"] == problem, "kind"].iloc[0]
    return f"Setting {problem}" if kind == "simulated" else problem


def _draw_ci_boxes(ax, stats: pd.DataFrame, positions, *, horizontal: bool) -> None:
    """The RF paper's black box over each violin: the 95% CI of the mean, with the mean."""
    half = 0.09
    for position, row in zip(positions, stats.itertuples(index=False), strict=True):
        corner, width, height = (row.ci_low, position - half), row.ci_high - row.ci_low, 2 * half
        mean_line = ([row.mmce_mean] * 2, [position - half, position + half])
        if not horizontal:
            corner, width, height = corner[::-1], height, width
            mean_line = mean_line[::-1]
        ax.add_patch(
            Rectangle(
                corner,
                width,
                height,
                facecolor=(1.0, 1.0, 1.0, 0.45),
                edgecolor="black",
                linewidth=1.0,
                zorder=4,
            )
        )
        ax.plot(*mean_line, color="black", linewidth=1.2, zorder=5)


# Fig. 2: test MMCE over the xi grid, and the three strategies


def xi_curve_statistics(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (method, xi): mean test MMCE, its 95% CI and the 5% and 95% quantiles over reps."""
    keys = ["method", "hyperparameter_value"]
    stats = replicate_intervals(runs, keys, "test_mmce", bounds=UNIT).drop(columns="se")
    quantiles = runs.groupby(keys)["test_mmce"].agg(
        q05=lambda values: values.quantile(0.05), q95=lambda values: values.quantile(0.95)
    )
    stats = stats.rename(columns={"n_reps": "n_runs", "mean": "mmce_mean"})
    stats = stats.merge(quantiles.reset_index(), on=keys)
    return stats.rename(columns={"hyperparameter_value": "xi"})


@_styled
def xi_curve_figure(runs: pd.DataFrame, problem: str, budget: float) -> Figure:
    """RF paper Fig. 2 for one problem and budget: per BCR method (hyperparameter xi), the mean
    test MMCE over the xi grid with its 95% CI and 5-95% quantile band, and violins of the
    cost-agnostic (xi = 0), simple (xi = 1) and tuned strategies; dashed and dotted lines carry
    the strategy means across both panels."""
    subset = runs[
        (runs["problem"] == problem) & (runs["budget"] == budget) & (runs["hyperparameter"] == "xi")
    ]
    if subset.empty:
        raise ValueError(f"no runs of a method with hyperparameter xi for {problem}, {budget}")
    methods = method_order(subset["method"].unique())
    curves = xi_curve_statistics(subset)
    chosen = choose_strategies(subset, list(_XI_STRATEGY_LABEL))
    strategy_stats = summarise(chosen)

    n_columns = min(3, len(methods))
    n_rows = math.ceil(len(methods) / n_columns)
    figure = Figure(figsize=(5.6 * n_columns, 3.9 * n_rows + 0.9), layout="constrained")
    panels = figure.subfigures(n_rows, n_columns, squeeze=False).ravel()
    for panel in panels[len(methods) :]:
        panel.set_visible(False)
    for panel, method in zip(panels, methods, strict=False):
        curve_ax, violin_ax = panel.subplots(
            1, 2, sharey=True, gridspec_kw={"width_ratios": [1.9, 1.3], "wspace": 0.03}
        )
        method_stats = strategy_stats[strategy_stats["method"] == method]
        _draw_xi_curve(curve_ax, curves[curves["method"] == method], method)
        _draw_strategy_violins(violin_ax, chosen[chosen["method"] == method], method_stats, method)
        for row in method_stats.itertuples(index=False):
            for ax in (curve_ax, violin_ax):
                ax.axhline(
                    row.mmce_mean,
                    color=method_colour(method),
                    linestyle=_STRATEGY_LINESTYLE[row.strategy],
                    linewidth=1.0,
                    alpha=0.9,
                    zorder=1,
                )
        panel.suptitle(method, fontsize="large", fontweight="bold")
    title = _problem_title(runs, problem)
    figure.suptitle(f"{title}, $c_{{\\max}}$ = {budget:g}: test MMCE over ξ")
    figure.legend(
        handles=_xi_legend_handles(),
        loc="outside lower center",
        ncols=4 if n_columns > 1 else 2,
        frameon=False,
        fontsize="small",
    )
    return figure


def _draw_xi_curve(ax, curve: pd.DataFrame, method: str) -> None:
    colour = method_colour(method)
    ax.fill_between(curve["xi"], curve["q05"], curve["q95"], color=colour, alpha=0.15, lw=0)
    ax.fill_between(curve["xi"], curve["ci_low"], curve["ci_high"], color=colour, alpha=0.4, lw=0)
    ax.plot(curve["xi"], curve["mmce_mean"], color=colour, marker=".", markersize=6, lw=1.6)
    for strategy, xi in (("agnostic", 0.0), ("simple", 1.0)):
        at = curve[np.isclose(curve["xi"], xi)]
        ax.plot(
            at["xi"],
            at["mmce_mean"],
            linestyle="none",
            marker=_STRATEGY_MARKER[strategy],
            markersize=8,
            markerfacecolor=method_colour(method, strategy),
            markeredgecolor="black",
            zorder=6,
        )
    ax.set_xlabel("ξ (benefit-cost trade-off)")
    ax.set_ylabel("test MMCE")


def _draw_violins(
    ax, data: pd.DataFrame, category: str, order, palette, *, horizontal: bool, jitter: float
) -> None:
    """Violins of test MMCE per `category` value, in `order` and coloured by `palette`, with
    the replicates as dots."""
    position = (
        {"x": "test_mmce", "y": category} if horizontal else {"x": category, "y": "test_mmce"}
    )
    orient = {"orient": "h"} if horizontal else {}
    sns.violinplot(
        data=data,
        **position,
        hue=category,
        order=order,
        hue_order=order,
        palette=palette,
        **orient,
        saturation=1.0,
        inner=None,
        cut=0,
        density_norm="width",
        linewidth=0.8,
        legend=False,
        ax=ax,
    )
    with _fixed_jitter():
        sns.stripplot(
            data=data,
            **position,
            order=order,
            **orient,
            color="black",
            alpha=0.5,
            size=3.5,
            jitter=jitter,
            ax=ax,
        )


@contextlib.contextmanager
def _fixed_jitter():
    """seaborn draws the strip plot's jitter from numpy's global generator: seeded here (and
    restored after), the same runs give the same figure, byte for byte."""
    state = np.random.get_state()  # noqa: NPY002
    np.random.seed(0)  # noqa: NPY002 (seaborn reads the legacy global generator)
    try:
        yield
    finally:
        np.random.set_state(state)  # noqa: NPY002


def _draw_strategy_violins(ax, chosen: pd.DataFrame, stats: pd.DataFrame, method: str) -> None:
    strategies = [s for s in _XI_STRATEGY_LABEL if s in set(chosen["strategy"])]
    palette = {s: method_colour(method, s) for s in strategies}
    _draw_violins(ax, chosen, "strategy", strategies, palette, horizontal=False, jitter=0.12)
    stats = stats.set_index("strategy").loc[strategies].reset_index()
    _draw_ci_boxes(ax, stats, range(len(strategies)), horizontal=False)
    ax.set_xticks(range(len(strategies)), [_XI_STRATEGY_LABEL[s] for s in strategies])
    ax.tick_params(axis="x", labelsize="small")
    ax.set_xlabel("")
    ax.set_ylabel("")


def _xi_legend_handles() -> list:
    grey = "#555555"
    return [
        Line2D([], [], color=grey, marker=".", lw=1.6, label="mean over reps"),
        Patch(color=grey, alpha=0.5, label="95% CI of the mean"),
        Patch(color=grey, alpha=0.18, label="5–95% quantiles"),
        Patch(facecolor="white", edgecolor="black", label="95% CI (over violin)"),
        Line2D(
            [],
            [],
            color=grey,
            ls=":",
            marker="o",
            markerfacecolor="#dddddd",
            markeredgecolor="black",
            label="ξ = 0 (agnostic): mean",
        ),
        Line2D(
            [],
            [],
            color=grey,
            ls="--",
            marker="s",
            markerfacecolor="#aaaaaa",
            markeredgecolor="black",
            label="ξ = 1 (simple): mean",
        ),
        Line2D([], [], color=grey, ls="-", label="tuned ξ: mean"),
    ]


# Fig. 3: violins per method, one panel per budget


@_styled
def method_violin_figure(runs: pd.DataFrame, problem: str) -> Figure:
    """RF paper Fig. 3 for one problem: per budget, violins of test MMCE over reps for each
    method's tuned (or fixed) result and, lighter and suffixed "-0", its cost-agnostic baseline,
    with the 95% CI of the mean as a black box and the reps as dots."""
    subset = runs[runs["problem"] == problem]
    if subset.empty:
        raise ValueError(f"no runs for problem {problem!r}")
    chosen = _labelled(choose_strategies(subset, ["agnostic", "tuned"]))
    stats = _labelled(summarise(chosen))
    labels = _label_order(chosen)
    palette = _label_palette(chosen)
    budgets = sorted(chosen["budget"].unique())

    height = 0.42 * len(labels) + 1.6
    figure = Figure(figsize=(max(3.3 * len(budgets) + 1.4, 7.0), height), layout="constrained")
    axes = figure.subplots(1, len(budgets), sharey=True, squeeze=False)[0]
    for ax, budget in zip(axes, budgets, strict=True):
        in_budget = chosen[chosen["budget"] == budget]
        _draw_violins(ax, in_budget, "label", labels, palette, horizontal=True, jitter=0.15)
        budget_stats = stats[stats["budget"] == budget].set_index("label")
        present = [label for label in labels if label in budget_stats.index]
        _draw_ci_boxes(
            ax,
            budget_stats.loc[present].reset_index(),
            [labels.index(label) for label in present],
            horizontal=True,
        )
        ax.set_title(f"$c_{{\\max}}$ = {budget:g}")
        ax.set_xlabel("test MMCE")
        ax.set_ylabel("")
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    figure.suptitle(
        f"{_problem_title(runs, problem)}: test MMCE per method\n"
        "tuned ξ; “-0”: cost-agnostic ξ = 0; box: 95% CI of the mean"
    )
    return figure


# Fig. 4: absolute feature correlations


def absolute_correlations(
    data: Mapping[str, np.ndarray], simulated_correlation: np.ndarray | None = None
) -> pd.DataFrame:
    """Absolute pairwise correlations (each pair once) per data set: `data` maps a name to a
    feature matrix (rows = observations), each pair correlated on the rows where both columns
    are observed (`absolute_pair_correlations`); `simulated_correlation` is the simulation's
    Sigma, given as two entries: all off-diagonal values and only the non-zero ones."""
    frames = []
    if simulated_correlation is not None:
        values = _upper_triangle(np.abs(simulated_correlation))
        frames.append(pd.DataFrame({"data": "Simulated (all)", "correlation": values}))
        frames.append(pd.DataFrame({"data": "Simulated (> 0)", "correlation": values[values > 0]}))
    for name in sorted(data):
        values = absolute_pair_correlations(data[name])
        frames.append(pd.DataFrame({"data": name, "correlation": values}))
    if not frames:
        raise ValueError("no data sets and no simulated correlation matrix given")
    return pd.concat(frames, ignore_index=True)


def _upper_triangle(matrix: np.ndarray) -> np.ndarray:
    return matrix[np.triu_indices_from(matrix, k=1)]


@_styled
def feature_correlation_figure(
    data: Mapping[str, np.ndarray], simulated_correlation: np.ndarray | None = None
) -> Figure:
    """RF paper Fig. 4: box plots of absolute feature correlations per real data set and of the
    simulation's block correlation matrix (all entries and non-zero entries); diamonds mark
    the means."""
    correlations = absolute_correlations(data, simulated_correlation)
    order = list(dict.fromkeys(correlations["data"]))
    palette = {name: ("#88CCEE" if name.startswith("Simulated") else "#DDDDDD") for name in order}
    figure = Figure(figsize=(7.5, 0.5 * len(order) + 1.4), layout="constrained")
    ax = figure.subplots()
    sns.boxplot(
        data=correlations,
        x="correlation",
        y="data",
        hue="data",
        order=order,
        hue_order=order,
        palette=palette,
        saturation=1.0,
        orient="h",
        width=0.6,
        fliersize=1.5,
        linewidth=1.0,
        legend=False,
        ax=ax,
    )
    means = correlations.groupby("data")["correlation"].mean().loc[order]
    ax.plot(
        means.to_numpy(),
        range(len(order)),
        linestyle="none",
        marker="D",
        markersize=5,
        markerfacecolor="#CC3311",
        markeredgecolor="black",
        label="mean",
        zorder=5,
    )
    counts = correlations.groupby("data").size().loc[order]
    ax.set_yticks(range(len(order)), [f"{name}  (n = {counts[name]:,})" for name in order])
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel(
        "absolute correlation of a pair of features (on the rows where both are observed)"
    )
    ax.set_ylabel("")
    figure.suptitle("Absolute feature correlations")
    figure.legend(loc="outside right upper", fontsize="small", frameon=False)
    return figure


# Fig. 5: real data, means with CIs per problem and budget, and mean ranks


@_styled
def real_comparison_figure(summary: pd.DataFrame, problem: str) -> Figure:
    """RF paper Fig. 5 (top) for one real problem: per budget, each method's mean test MMCE
    (cross) with its 95% CI (bar), sorted by mean, best at the top; "-0" marks cost-agnostic
    baselines."""
    rows = _labelled(
        summary[(summary["problem"] == problem) & summary["strategy"].isin(_BASELINE_STRATEGIES)]
    )
    if rows.empty:
        raise ValueError(f"no summary rows for problem {problem!r}")
    budgets = sorted(rows["budget"].unique())
    n_labels = rows["label"].nunique()
    # At most four budgets a row, all on one error scale, so that budgets compare by eye; each
    # panel sorts its own methods, so the method axis is not shared.
    n_rows = math.ceil(len(budgets) / 4)
    n_columns = math.ceil(len(budgets) / n_rows)
    figure = Figure(
        figsize=(max(3.6 * n_columns + 0.6, 5.0), (0.34 * n_labels + 1.0) * n_rows + 0.6),
        layout="constrained",
    )
    axes = figure.subplots(n_rows, n_columns, squeeze=False, sharex=True).ravel()
    for ax in axes[len(budgets) :]:
        ax.set_visible(False)
    for ax, budget in zip(axes, budgets, strict=False):
        in_budget = rows[rows["budget"] == budget].sort_values(["mmce_mean", "label"])
        for position, row in enumerate(in_budget.itertuples(index=False)):
            ax.errorbar(
                row.mmce_mean,
                position,
                xerr=[[row.mmce_mean - row.ci_low], [row.ci_high - row.mmce_mean]],
                fmt="x",
                markersize=8,
                markeredgewidth=2,
                capsize=3,
                elinewidth=2,
                color=method_colour(row.method, row.strategy),
            )
        ax.set_yticks(range(len(in_budget)), in_budget["label"])
        ax.set_ylim(len(in_budget) - 0.5, -0.5)
        ax.set_title(f"$c_{{\\max}}$ = {budget:g}")
        ax.tick_params(labelbottom=True)
        ax.set_xlabel("test MMCE (mean, 95% CI)")
        ax.grid(axis="y", visible=False)
    n_runs = int(rows["n_runs"].max())
    figure.suptitle(
        f"{problem}: mean test MMCE per method over {n_runs} reps\n(one error scale for every "
        "budget; each panel lists its methods best first)"
    )
    return figure


@_styled
def stability_figure(summary: pd.DataFrame, problem: str) -> Figure:
    """Per budget, how stable each method's selections are over the replicates (Nogueira's
    index with its 95% interval; tuned or fixed strategy): 1 = the same set every time, 0 = no
    more alike than random sets of their sizes."""
    rows = summary[(summary["problem"] == problem) & summary["strategy"].isin(MAIN_STRATEGIES)]
    rows = rows.dropna(subset=["stability"])
    if rows.empty:
        raise ValueError(f"no stability for problem {problem!r} (it needs two replicates)")
    budgets = sorted(rows["budget"].unique())
    methods = method_order(rows["method"].unique())
    figure = Figure(figsize=(max(5.0, 1.1 * len(budgets) + 3.2), 4.2), layout="constrained")
    ax = figure.subplots()
    width = 0.8 / len(methods)
    for offset, method in enumerate(methods):
        curve = rows[rows["method"] == method].set_index("budget").reindex(budgets)
        positions = np.arange(len(budgets)) - 0.4 + width * (offset + 0.5)
        ax.errorbar(
            positions,
            curve["stability"],
            yerr=[
                curve["stability"] - curve["stability_low"],
                curve["stability_high"] - curve["stability"],
            ],
            fmt="o",
            markersize=4,
            capsize=2,
            color=method_colour(method),
            label=method,
        )
    ax.axhline(0, color="0.4", linewidth=1, linestyle=":")
    ax.set_xticks(range(len(budgets)), [f"{budget:g}" for budget in budgets])
    ax.set_xlabel("budget")
    ax.set_ylabel("stability of the selected sets")
    ax.set_ylim(min(-0.2, float(rows["stability_low"].min()) - 0.05), 1.05)
    figure.legend(loc="outside right center", frameon=False, fontsize=9)
    n_runs = int(rows["n_runs"].max())
    figure.suptitle(f"{problem}: stability of the selections over {n_runs} replicates")
    return figure


@_styled
def mean_rank_figure(summary: pd.DataFrame) -> Figure:
    """RF paper Fig. 5 (bottom): each method's and strategy's mean rank over all real problems
    and budgets (the summary's `mean_rank`, among the entries that ran on all of them; the
    others are left out), best at the top."""
    real = summary[summary["kind"] == "real"]
    if real.empty:
        raise ValueError("no real-data rows in the summary")
    ranks = (
        _labelled(real.dropna(subset=["mean_rank"]))
        .drop_duplicates("label")
        .sort_values(["mean_rank", "label"])
    )
    n_cells = real[["problem", "budget"]].drop_duplicates().shape[0]
    figure = Figure(figsize=(6.5, 0.32 * len(ranks) + 1.5), layout="constrained")
    ax = figure.subplots()
    positions = np.arange(len(ranks))
    colours = [method_colour(m, s) for m, s in zip(ranks["method"], ranks["strategy"], strict=True)]
    ax.hlines(positions, 1, ranks["mean_rank"], color=colours, linewidth=2.5)
    ax.scatter(ranks["mean_rank"], positions, color=colours, edgecolor="black", s=50, zorder=3)
    ax.set_yticks(positions, ranks["label"])
    ax.set_ylim(len(ranks) - 0.5, -0.5)
    ax.set_xlim(left=0.8)
    ax.set_xlabel(f"mean rank (1 = best)\nover {n_cells} real problem × budget combinations")
    ax.grid(axis="y", visible=False)
    ax.set_title("Mean rank on real data (“-0”: ξ = 0, “-1”: ξ = 1)")
    return figure


def _critical_difference_panel(ax, block: pd.DataFrame, title: str) -> None:
    import scikit_posthocs

    scikit_posthocs.critical_difference_diagram(
        mean_ranks(block),
        nemenyi_p_values(block),
        alpha=ALPHA,
        ax=ax,
        color_palette={method: method_colour(method) for method in block.columns},
    )
    ax.set_title(title, fontsize="medium")


@_styled
def critical_difference_figure(block: pd.DataFrame, level: int) -> Figure:
    """Demsar's critical-difference diagram of one budget level: each method's mean rank over
    the real problems (`block`: problems x methods, mean test MMCE), methods joined by a bar
    where Nemenyi's test finds no difference at ALPHA (family-wise over the level's pairs)."""
    figure = Figure(figsize=(7.5, 0.28 * block.shape[1] + 1.9), layout="constrained")
    n_problems, n_methods = block.shape
    _critical_difference_panel(
        figure.subplots(),
        block,
        f"Budget level {level}: mean rank over {n_problems} real problems (1 = best); a bar "
        f"joins methods\nNemenyi's test does not separate (α = {ALPHA:g}, family-wise "
        f"over {n_methods * (n_methods - 1) // 2} pairs)",
    )
    return figure


@_styled
def critical_difference_levels_figure(blocks: Mapping[int, pd.DataFrame], what: str) -> Figure:
    """One critical-difference diagram per budget level (`blocks`: level -> data sets x
    entries), stacked, for `what` the entries are."""
    n_methods = max(block.shape[1] for block in blocks.values())
    figure = Figure(figsize=(7.5, len(blocks) * (0.28 * n_methods + 1.3)), layout="constrained")
    axes = np.atleast_1d(figure.subplots(len(blocks), 1))
    for ax, (level, block) in zip(axes, sorted(blocks.items()), strict=True):
        _critical_difference_panel(
            ax, block, f"Budget level {level}: mean rank over {block.shape[0]} data sets"
        )
    figure.suptitle(
        f"{what}: a bar joins entries Nemenyi's test does not separate\n(α = {ALPHA:g}, "
        "family-wise per level); each level has its own rank scale",
        fontsize="medium",
    )
    return figure


# Cost-accuracy curves and the area under the Pareto curve


@_styled
def cost_accuracy_figure(
    recommendations: pd.DataFrame, problem: str, schedule: pd.DataFrame | None = None
) -> Figure:
    """One panel per method: its Pareto front over the budgets of what to buy against what it
    costs and the error it gives. A point is a budget's recommended set (x: its true cost, y:
    the method's mean test MMCE there with its 95% interval); the front keeps each point
    strictly better than every cheaper one, and each step is labelled with the features it
    adds. Every method's front is drawn in grey behind each panel, for comparison. A model
    schedule (a table with `cost` and `test_mmce` or `oob_mmce`, e.g. msB's) is drawn in its
    method's panel as a dashed staircase."""
    rows = recommendations[recommendations["problem"] == problem]
    if rows.empty:
        raise ValueError(f"no recommendations for problem {problem!r}")
    methods = method_order(rows["method"].unique())
    fronts = {method: _recommended_front(rows[rows["method"] == method]) for method in methods}
    # At most four panels a row, the rows filled evenly: five methods are 3 + 2, not 4 + 1
    # beside three empty panels.
    n_rows = math.ceil(len(methods) / 4)
    n_columns = math.ceil(len(methods) / n_rows)
    figure = Figure(figsize=(3.8 * n_columns, 3.1 * n_rows + 0.8), layout="constrained")
    axes = figure.subplots(n_rows, n_columns, squeeze=False, sharex=True, sharey=True).ravel()
    for ax in axes[len(methods) :]:
        ax.set_visible(False)
    largest = max(rows["cost"].max(), rows["budget"].max())
    # With one replicate there are no intervals: the errors set the range.
    errors = rows[["test_mmce", "ci_low", "ci_high"]].to_numpy()
    bottom, top = min(0.0, np.nanmin(errors)), np.nanmax(errors)
    for ax, method in zip(axes, methods, strict=False):
        for other, front in fronts.items():
            if other != method:
                ax.step(front["cost"], front["test_mmce"], where="post", color="0.85", lw=1)
        front = fronts[method]
        colour = method_colour(method)
        ax.step(front["cost"], front["test_mmce"], where="post", color=colour, lw=2)
        ax.errorbar(
            front["cost"],
            front["test_mmce"],
            yerr=[front["test_mmce"] - front["ci_low"], front["ci_high"] - front["test_mmce"]],
            color=colour,
            fmt="o",
            markersize=4,
            capsize=2,
        )
        # The steps are numbered at their points and listed at the panel's top, where the
        # error is rarely drawn: labels at the points would overlap where steps are close.
        steps = []
        for step, (cost, error, added) in enumerate(
            front[["cost", "test_mmce", "added"]].itertuples(index=False), start=1
        ):
            ax.annotate(
                str(step),
                (cost, error),
                xytext=(3, 3),
                textcoords="offset points",
                fontsize=8,
                fontweight="bold",
                color=colour,
            )
            steps.append(textwrap.fill(f"{step}: {added}", width=46, subsequent_indent="    "))
        ax.text(
            0.03,
            0.97,
            "\n".join(steps),
            transform=ax.transAxes,
            va="top",
            fontsize=7,
            color="0.15",
            clip_on=True,
            bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1},
        )
        if method == "msb" and schedule is not None:
            _draw_schedule(ax, schedule)
        ax.set_title(method, color=colour, fontsize=11)
        ax.set_xlim(-0.03 * largest, largest * 1.05)
        # Room above the curves for the list of steps.
        ax.set_ylim(bottom, top + 0.6 * (top - bottom) + 0.01)
    # The lowest panel of each column carries the cost axis, also where the row below it ends
    # early.
    for column in range(n_columns):
        lowest = axes[: len(methods)][column::n_columns][-1]
        lowest.tick_params(labelbottom=True)
        lowest.set_xlabel("cost of the features to buy")
    for ax in axes[::n_columns]:
        ax.set_ylabel("test MMCE")
    figure.suptitle(
        f"{_problem_title(rows, problem)}: error against the cost of the features to buy\n"
        "(each method's best trade-offs over the budgets; numbered steps list the features added)",
        fontsize=11,
    )
    return figure


def _recommended_front(rows: pd.DataFrame) -> pd.DataFrame:
    """A method's recommendations on the Pareto front of test MMCE against cost, by cost, with
    `added`: every feature each step adds ("+a, b") and, where the sets are not nested, every
    feature it drops ("−c")."""
    front = rows[on_pareto_front(rows["cost"], rows["test_mmce"])]
    front = front.sort_values(["cost", "test_mmce"], kind="stable")
    labels, previous = [], []
    for features in front["features"].fillna(""):
        names = [name for name in features.split("; ") if name]
        added = [name for name in names if name not in previous]
        dropped = [name for name in previous if name not in names]
        parts = ["+" + ", ".join(added)] if added else []
        parts += ["\N{MINUS SIGN}" + ", ".join(dropped)] if dropped else []
        labels.append("; ".join(parts))
        previous = names
    return front.assign(added=labels)


def _draw_schedule(ax, schedule: pd.DataFrame) -> pd.DataFrame:
    """The schedule's Pareto staircase, extended to its largest cost; returns the front."""
    error_column = "test_mmce" if "test_mmce" in schedule else "oob_mmce"
    front = pareto_front(schedule["cost"], schedule[error_column])
    ax.step(
        [*front["cost"], schedule["cost"].max()],
        [*front["error"], front["error"].iloc[-1]],
        where="post",
        color="black",
        linestyle="--",
        linewidth=1.2,
        zorder=3,
    )
    return front
