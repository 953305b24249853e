"""The study's figure outputs, as the `figures` command writes them: each function of
`costfs.study.figure_outputs.FIGURE_OUTPUTS` (its `draw`) gives its files from the runs table,
the summary and the further `inputs` (`real_data`: name -> X of each real data set, `sigma`:
the simulated correlation matrix, `schedules`: the model schedules table, `recommendations`),
{"": content} for one file or {file name: content} for a directory.
"""

from costfs.core.errors import DataError
from costfs.study.aggregation import pareto_areas
from costfs.study.comparisons import level_blocks
from costfs.study.findings import BEST_STRATEGIES
from costfs.study.plots import (
    cost_accuracy_figure,
    critical_difference_figure,
    feature_correlation_figure,
    mean_rank_figure,
    method_violin_figure,
    real_comparison_figure,
    stability_figure,
    xi_curve_figure,
)
from costfs.study.tables import (
    pareto_area_table,
    recommendation_table,
    results_table,
    tuning_table,
)


def cell_rows(table, cell: dict[str, str]):
    """The rows of `table` (any study table with a `problem` column) in one cell of a figure
    (`FigureOutput.cells`): its problem, or its simulated setting (a real problem of that name
    is no setting)."""
    if "problem" in cell:
        return table[table["problem"] == cell["problem"]]
    in_cell = table["problem"] == cell["setting"]
    if "kind" in table:
        in_cell &= table["kind"] == "simulated"
    return table[in_cell]


def xi_curve_files(runs, summary, inputs):
    """The figures of one cell (a simulated setting), one per budget."""
    (problem,) = runs["problem"].unique()
    cells = runs.loc[runs["hyperparameter"] == "xi", "budget"].drop_duplicates().sort_values()
    return {f"budget~{budget:g}.png": xi_curve_figure(runs, problem, budget) for budget in cells}


def method_violin_files(runs, summary, inputs):
    simulated = runs[runs["kind"] == "simulated"]
    return {
        f"{problem}.png": method_violin_figure(runs, problem)
        for problem in sorted(simulated["problem"].unique())
    }


def real_comparison_files(runs, summary, inputs):
    problems = sorted(summary.loc[summary["kind"] == "real", "problem"].unique())
    return {f"{problem}.png": real_comparison_figure(summary, problem) for problem in problems}


def _first_schedules(inputs) -> dict:
    """Per problem, the model schedule of its first replicate (a schedule is one replicate's
    curve), where the study keeps schedules."""
    table = inputs.get("schedules")
    if table is None:
        return {}
    first = table[table["rep"] == table.groupby("problem")["rep"].transform("min")]
    return {problem: rows for problem, rows in first.groupby("problem")}


def cost_accuracy_file(runs, summary, inputs):
    """The figure of one cell (a problem)."""
    recommendations = inputs["recommendations"]
    problems = recommendations["problem"].unique()
    if len(problems) != 1:
        raise DataError(
            f"the cost-error figure of one problem: the recommendations have {problems}"
        )
    schedule = _first_schedules(inputs).get(problems[0])
    return {"": cost_accuracy_figure(recommendations, problems[0], schedule)}


ANSWER_FIGURES = 3
"""The landing page draws the cost-error figure of at most this many problems (the first in
the recommendations' order); the others are in the report's Figures."""


def answer_files(runs, summary, inputs):
    """The answer on the report's landing page (`workflow/report/workflow.rst` includes it):
    per problem and budget, the method with the lowest procedure's error and what it buys,
    then the cost-error figure of the first `ANSWER_FIGURES` problems. HTML, every name from
    the data escaped."""
    import base64
    import html
    import io

    recommendations = inputs["recommendations"]
    schedules = _first_schedules(inputs)
    parts = [
        # Snakemake's landing page centres its text vertically in a scrolling box: text taller
        # than the window would start above its top, out of reach. Top-aligned, it opens on
        # the answer.
        "<style>div.h-screen.items-center.overflow-auto { align-items: flex-start; }</style>",
        "<h2>The answer: what to buy</h2>",
        "<p>Per budget, the method with the lowest procedure's error (its bold verdict: "
        "significantly best) and the features it recommends, with the share of replicates that "
        "selected each. Every method's row is under <b>Results</b>; the figures under "
        "<b>Figures</b>.</p>",
    ]
    problems = list(dict.fromkeys(recommendations["problem"]))
    for rank, problem in enumerate(problems):
        rows = recommendations[recommendations["problem"] == problem]
        parts.append(f"<h3>{html.escape(str(problem))}</h3>")
        parts.append(
            "<table><tr><th>Budget</th><th>Buy (share of replicates)</th><th>Cost</th>"
            "<th>Method</th><th>Chosen by</th><th>Procedure's MMCE [95% CI]</th>"
            "<th>Verdict</th></tr>"
        )
        for row in rows.groupby("budget", sort=True).head(1).sort_values("budget").itertuples():
            names = row.features.split("; ") if isinstance(row.features, str) else []
            shares = str(row.frequencies).split("; ")
            bought = ", ".join(
                f"{html.escape(name)} ({float(share):.0%})"
                for name, share in zip(names, shares, strict=False)
            )
            verdict = f"<b>{row.verdict}</b>" if row.verdict == "best" else row.verdict
            error = _interval_html(row.test_mmce, row.ci_low, row.ci_high)
            parts.append(
                f"<tr><td>{row.budget:g}</td><td>{bought or 'nothing'}</td>"
                f"<td>{row.cost:.4g}</td><td>{html.escape(str(row.method))}</td>"
                f"<td>{row.n_reps_with_set} of {row.n_reps}</td><td>{error}</td>"
                f"<td>{verdict}</td></tr>"
            )
        parts.append("</table>")
        if rank < ANSWER_FIGURES:
            figure = cost_accuracy_figure(recommendations, problem, schedules.get(problem))
            buffer = io.BytesIO()
            figure.savefig(buffer, format="png", dpi=80)
            encoded = base64.b64encode(buffer.getvalue()).decode()
            parts.append(
                f'<p><img alt="cost against error, {html.escape(str(problem))}" '
                f'style="max-width: 100%" src="data:image/png;base64,{encoded}"></p>'
            )
    return {"": "\n".join(parts) + "\n"}


def _interval_html(value: float, low: float, high: float) -> str:
    if value != value:
        return "–"
    if low != low:
        return f"{value:.3f}"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


RESULTS_INTRODUCTION = """\
Per problem and budget, what each method recommends buying: the features that at least half of
the replicates selected (most often selected first, while their cost fits the budget), with the
share of replicates that selected each. **Chosen by** counts the replicates that chose that very
set, and **This set's MMCE where chosen** is its held-out error on them; the **Procedure's MMCE**
is the error of each replicate's own selection, whichever set it chose (held-out data, mean over
all replicates and 95% interval): what the method gives on new data. A method is **best** only
where a paired test over the replicates (Holm-corrected) finds it better than every other;
methods significantly worse than the lowest error are left out here (`recommendations.csv` has
them all). Stability is Nogueira's index of the selections over the replicates: 1 = the same
set every time, 0 = as random.
"""


def results_files(runs, summary, inputs):
    recommendations = inputs["recommendations"]
    best = recommendations[recommendations["verdict"] == "best"]
    return {
        "": "# Results\n\n## What to buy\n\n"
        + RESULTS_INTRODUCTION
        + "\n"
        + recommendation_table(recommendations)
        + "\n## Mean test MMCE [95% CI]\n\nBold: significantly best at its budget.\n\n"
        + results_table(summary, best)
        + "\n## Where tuning ξ gave a higher error than a fixed ξ (mean test MMCE [95% CI])\n\n"
        + "Tuning picks ξ by the out-of-bag error of a refit on the training data; on held-out "
        "data a fixed ξ can do better.\n\n"
        + tuning_table(summary)
        + "\n## Area under the Pareto curve of test MMCE against cost (mean ± SE; lower is"
        " better)\n\n" + pareto_area_table(pareto_areas(runs))
    }


RESULTS_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Results</title>
<style>
body {{ font-family: sans-serif; font-size: 14px; margin: 1em; }}
table {{ border-collapse: collapse; margin-bottom: 1.5em; }}
th, td {{ border: 1px solid #ccc; padding: 3px 8px; white-space: nowrap; }}
td:nth-child(3) {{ white-space: normal; }}
th {{ background: #f2f2f2; }}
</style></head>
<body>
{body}
</body></html>
"""


def results_html_files(runs, summary, inputs):
    """The results tables as a page, to read inside the report."""
    import markdown

    text = results_files(runs, summary, inputs)[""]
    return {"": RESULTS_PAGE.format(body=markdown.markdown(text, extensions=["tables"]))}


def stability_files(runs, summary, inputs):
    problems = sorted(summary.dropna(subset=["stability"])["problem"].unique())
    return {f"{problem}.png": stability_figure(summary, problem) for problem in problems}


def mean_rank_files(runs, summary, inputs):
    return {"": mean_rank_figure(summary)}


def critical_difference_files(runs, summary, inputs):
    best = summary[summary["strategy"].isin(BEST_STRATEGIES)]
    return {
        f"budget_level~{level}.png": critical_difference_figure(block, level)
        for level, block in level_blocks(best, value="mmce_mean").items()
    }


def feature_correlation_files(runs, summary, inputs):
    return {"": feature_correlation_figure(inputs["real_data"], inputs.get("sigma"))}
