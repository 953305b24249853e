"""The study's Markdown tables: results, areas under the Pareto curve, recommendations.

Text from a user's data (feature, data set and problem names) goes through `markdown_text`,
so that it shows as written in the Markdown and in the HTML made from it, never as markup."""

import html
import re

import numpy as np
import pandas as pd

MAIN_STRATEGIES = ("tuned", "fixed")
"""The strategy shown for each method in the tables and figures: tuned, or fixed for a method
without a hyperparameter."""


_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]|#]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
"""Markdown's characters of markup: an underscore inside a word (`mean_radius`) is none."""


def markdown_text(value) -> str:
    """`value` as literal text in a Markdown table cell or heading: HTML's special characters
    as entities, Markdown's (emphasis, links, code, the cell separator) escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(str(value), quote=False))


def method_order(methods) -> list[str]:
    """The methods alphabetically: the same order in every figure and table."""
    return sorted(set(methods))


def results_table(summary: pd.DataFrame, best: pd.DataFrame | None = None, digits: int = 3) -> str:
    """Markdown: per problem and budget, each method's mean test MMCE with its 95% CI (tuned
    or fixed strategy); bold only the entries of `best` (rows with the summary's keys, e.g. the
    recommendations whose verdict is "best"), none when None."""
    rows = summary[summary["strategy"].isin(MAIN_STRATEGIES)]
    keys = ["problem", "budget", "method", "strategy"]
    marked = (
        pd.MultiIndex.from_frame(best[keys])
        if best is not None
        else pd.MultiIndex.from_tuples([], names=keys)
    )
    cells = rows.assign(
        bold=pd.MultiIndex.from_frame(rows[keys]).isin(marked),
        text=[
            f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
            for mean, low, high in zip(
                rows["mmce_mean"], rows["ci_low"], rows["ci_high"], strict=True
            )
        ],
    )
    return _markdown_method_table(cells, ["problem", "budget"], ["Problem", "Budget"])


INTERVAL = ("mmce_mean", "ci_low", "ci_high")


def tuning_table(summary: pd.DataFrame, digits: int = 3) -> str:
    """Markdown: where a method's tuned ξ has a higher mean test MMCE than one of its fixed ξ
    (0 or 1) at the same budget, with all three and their 95% intervals; a sentence where it
    never has."""
    pivot = summary.pivot_table(
        index=["problem", "budget", "method"],
        columns="strategy",
        values=list(INTERVAL),
        observed=True,
        # One replicate has no interval: its all-NaN bounds must stay as columns.
        dropna=False,
    )
    if "tuned" not in pivot["mmce_mean"] or not {"agnostic", "simple"} & set(pivot["mmce_mean"]):
        return "No method here tunes ξ beside a fixed ξ.\n"
    means = pivot["mmce_mean"]
    fixed = [strategy for strategy in ("agnostic", "simple") if strategy in means]
    # Equal errors along different paths can differ in the last bit: a margin of 1e-12.
    worse = means[means["tuned"] > means[fixed].min(axis=1) + 1e-12].dropna(subset=["tuned"])
    if worse.empty:
        return "Tuned ξ never has a higher mean test MMCE than a fixed ξ here.\n"
    names = {"tuned": "Tuned ξ", "agnostic": "ξ = 0", "simple": "ξ = 1"}
    header = ["Problem", "Budget", "Method", *(names[s] for s in ["tuned", *fixed])]
    lines = ["| " + " | ".join(header) + " |", "|---|---:|---|" + "---:|" * (1 + len(fixed))]
    for key in worse.index:
        problem, budget, method = key
        cells = [
            _interval_text(*(pivot.loc[key, (column, strategy)] for column in INTERVAL), digits)
            for strategy in ["tuned", *fixed]
        ]
        lines.append(
            f"| {markdown_text(problem)} | {budget:g} | {markdown_text(method)} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines) + "\n"


def pareto_area_table(areas: pd.DataFrame, digits: int = 3) -> str:
    """Markdown: per problem, each method's mean AUP ± SE (tuned or fixed strategy)."""
    rows = areas[areas["strategy"].isin(MAIN_STRATEGIES)]
    cells = rows.assign(
        bold=False,
        text=[
            f"{mean:.{digits}f} ± {se:.{digits}f}"
            for mean, se in zip(rows["aup_mean"], rows["aup_se"], strict=True)
        ],
    )
    return _markdown_method_table(cells, ["problem"], ["Problem"])


def _markdown_method_table(cells: pd.DataFrame, keys: list[str], headers: list[str]) -> str:
    """One row per `keys`, one column per method, each cell its `text`, in bold where `bold`."""
    cells = cells.sort_values(["kind", *keys], ascending=[False] + [True] * len(keys))
    methods = method_order(cells["method"].unique())
    lines = [
        "| " + " | ".join(headers + methods) + " |",
        "|" + "---|" * len(headers) + "---:|" * len(methods),
    ]
    for key, row in cells.groupby(keys, sort=False):
        texts = {
            method: f"**{text}**" if bold else text
            for method, text, bold in zip(row["method"], row["text"], row["bold"], strict=True)
        }
        key_texts = [
            f"{k:g}" if isinstance(k, (int, float, np.number)) else markdown_text(k) for k in key
        ]
        lines.append("| " + " | ".join(key_texts + [texts.get(m, "–") for m in methods]) + " |")
    return "\n".join(lines) + "\n"


def recommendation_table(recommendations: pd.DataFrame, digits: int = 3, shown: int = 10) -> str:
    """Markdown: per problem and budget, the methods not significantly worse than the lowest
    error (`costfs.study.recommendations`), lowest first: the features to buy with the share
    of replicates that selected each (the first `shown`), their cost, how many replicates
    chose that very set and its test MMCE on them, the procedure's test MMCE with its 95%
    interval, the selections' stability and the verdict."""
    kept = recommendations[recommendations["verdict"] != "worse"]
    lines = []
    for problem, rows in kept.groupby("problem", sort=False):
        lines += [
            f"### {markdown_text(problem)}",
            "",
            "| Budget | Method | Features to buy (share of replicates) | Cost | Chosen by"
            " | This set's MMCE where chosen | Procedure's MMCE [95% CI] | Stability [95% CI]"
            " | Verdict |",
            "|---:|---|---|---:|---:|---:|---:|---:|---|",
        ]
        for row in rows.itertuples(index=False):
            # An empty set reads back from the CSV as NaN.
            names = row.features.split("; ") if isinstance(row.features, str) else []
            shares = str(row.frequencies).split("; ")
            bought = ", ".join(
                f"{markdown_text(name)} ({float(share):.0%})"
                for name, share in zip(names[:shown], shares, strict=False)
            )
            if len(names) > shown:
                bought += f", … (+{len(names) - shown})"
            method = f"**{row.method}**" if row.verdict == "best" else row.method
            own = "–" if np.isnan(row.set_test_mmce) else f"{row.set_test_mmce:.{digits}f}"
            lines.append(
                f"| {row.budget:g} | {method} | {bought or 'none'} | {row.cost:.4g} "
                f"| {row.n_reps_with_set} of {row.n_reps} replicates | {own} "
                f"| {_interval_text(row.test_mmce, row.ci_low, row.ci_high, digits)} "
                f"| {_interval_text(row.stability, row.stability_low, row.stability_high, 2)} "
                f"| {row.verdict} |"
            )
        lines.append("")
    return "\n".join(lines)


def _interval_text(value: float, low: float, high: float, digits: int) -> str:
    if np.isnan(value):
        return "–"
    if np.isnan(low):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"
