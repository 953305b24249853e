"""The study's figure outputs, as the `figures` command writes them: each function of
`costfs.study.figure_outputs.FIGURE_OUTPUTS` (its `draw`) gives its files from the runs table,
the summary and the further `inputs` (`real_data`: name -> X of each real data set, `sigma`:
the simulated correlation matrix, `schedules`: the model schedules table, `recommendations`),
{"": content} for one file or {file name: content} for a directory.
"""

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
from costfs.study.tables import pareto_area_table, recommendation_table, results_table


def xi_curve_files(runs, summary, inputs):
    simulated = runs[(runs["kind"] == "simulated") & (runs["hyperparameter"] == "xi")]
    cells = simulated[["problem", "budget"]].drop_duplicates().sort_values(["problem", "budget"])
    return {
        f"{problem}_budget~{budget:g}.png": xi_curve_figure(runs, problem, budget)
        for problem, budget in cells.itertuples(index=False)
    }


def method_violin_files(runs, summary, inputs):
    simulated = runs[runs["kind"] == "simulated"]
    return {
        f"{problem}.png": method_violin_figure(runs, problem)
        for problem in sorted(simulated["problem"].unique())
    }


def real_comparison_files(runs, summary, inputs):
    problems = sorted(summary.loc[summary["kind"] == "real", "problem"].unique())
    return {f"{problem}.png": real_comparison_figure(summary, problem) for problem in problems}


def cost_accuracy_files(runs, summary, inputs):
    recommendations = inputs["recommendations"]
    # A schedule is one replicate's curve: the first replicate's is drawn per problem.
    schedules = {}
    table = inputs.get("schedules")
    if table is not None:
        first = table[table["rep"] == table["rep"].min()]
        schedules = {problem: rows for problem, rows in first.groupby("problem")}
    return {
        f"{problem}.png": cost_accuracy_figure(recommendations, problem, schedules.get(problem))
        for problem in sorted(recommendations["problem"].unique())
    }


RESULTS_INTRODUCTION = """\
Per problem and budget, what each method recommends buying: the features that at least half of
the replicates selected (most often selected first, while their cost fits the budget), with the
share of replicates that selected each. The test MMCE is the method's error over the replicates
(held-out data, mean and 95% interval). A method is **best** only where a paired test over the
replicates (Holm-corrected) finds it better than every other; methods significantly worse than
the lowest error are left out here (`recommendations.csv` has them all). Stability is Nogueira's
index of the selections over the replicates: 1 = the same set every time, 0 = as random.
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
