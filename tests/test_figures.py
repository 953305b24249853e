import argparse
import re

import matplotlib.image
import matplotlib.text
import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from costfs.core.costs import FeatureCosts
from costfs.core.pareto import area_under_pareto
from costfs.methods import method_names
from costfs.study import aggregation, figures, plots, tables
from costfs.study.aggregation import choose_strategies, summarise
from costfs.study.findings import best_rows
from costfs.study.recommendations import recommendations as recommend

BUDGETS = (1, 5)
XI_GRID = (0.0, 0.5, 1.0, 2.0)


@pytest.fixture(scope="module")
def runs() -> pd.DataFrame:
    """A small study: two settings and one real problem, two xi methods, one method with another
    hyperparameter and one without; the error is lowest near xi = 1 and falls with the budget."""
    rng = np.random.default_rng(7)
    methods = {"auc": "xi", "pfi": "xi", "msb": "alpha", "boruta": ""}
    rows = []
    for problem, kind in (("A", "simulated"), ("D", "simulated"), ("wdbc", "real")):
        for rep in range(1, 7):
            for offset, (method, hyperparameter) in enumerate(methods.items()):
                grid = {"xi": XI_GRID, "alpha": (0.1, 1.0), "": (np.nan,)}[hyperparameter]
                for value in grid:
                    for budget in BUDGETS:
                        shape = 0.0 if hyperparameter != "xi" else 0.03 * (value - 1.0) ** 2
                        error = 0.25 / np.sqrt(budget) + 0.01 * offset + shape
                        rows.append(
                            {
                                "problem": problem,
                                "kind": kind,
                                "dataset": problem,
                                "rep": rep,
                                "method": method,
                                "hyperparameter": hyperparameter,
                                "hyperparameter_value": value,
                                "budget": budget,
                                "features": [0, 1],
                                "n_selected": 2,
                                "cost": budget * rng.uniform(0.7, 1.0),
                                "oob_mmce": error + rng.normal(0.0, 0.01),
                                "test_mmce": error + rng.normal(0.0, 0.01),
                                "engine": "sklearn",
                            }
                        )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def summary(runs) -> pd.DataFrame:
    return summarise(choose_strategies(runs, ["agnostic", "simple", "tuned"]))


def assert_readable_image(path, min_bytes=10_000):
    assert path.stat().st_size > min_bytes
    pixels = matplotlib.image.imread(path)
    height, width = pixels.shape[:2]
    assert height > 200 and width > 300
    assert np.ptp(pixels[..., :3]) > 0.5, "the image is (nearly) a single colour"


def assert_on_canvas(figure):
    """Everything drawn, text included, lies inside the figure: nothing is cut off."""
    agg = FigureCanvasAgg(figure)
    agg.draw()
    drawn = figure.get_tightbbox(agg.get_renderer())  # inches, what is drawn
    canvas = figure.bbox_inches
    assert drawn.x0 >= canvas.x0 and drawn.x1 <= canvas.x1
    assert drawn.y0 >= canvas.y0 and drawn.y1 <= canvas.y1


@pytest.fixture(scope="module")
def summary_with_stability(runs) -> pd.DataFrame:
    varied = runs.assign(features=[[rep % 3, 5] for rep in runs["rep"]])
    return aggregation.summary_table(varied, ["tuned"], dict.fromkeys(["A", "D", "wdbc"], 10))


@pytest.fixture(scope="module")
def recommendations(runs) -> pd.DataFrame:
    """The runs' recommendations, where a larger budget buys more features (named f0, f1, ...)."""
    bought = runs.assign(features=[[0] if budget == 1 else [0, 1, 2] for budget in runs["budget"]])
    chosen = best_rows(choose_strategies(bought, ["tuned"]))
    problems = chosen["problem"].unique()
    return recommend(
        chosen,
        {problem: [f"feature_{j}" for j in range(4)] for problem in problems},
        {problem: FeatureCosts.ungrouped(np.array([0.5, 1.0, 1.5, 2.0])) for problem in problems},
    )


def save(figure, path):
    figure.savefig(path, dpi=80)
    return path


def test_every_figure_is_written_as_a_readable_image(
    runs, summary, summary_with_stability, recommendations, tmp_path, rng
):
    sigma = np.eye(12)
    sigma[:4, :4] = 0.6
    np.fill_diagonal(sigma, 1.0)
    correlated = rng.normal(size=(80, 6)) @ rng.normal(size=(6, 6))
    made = [
        save(plots.xi_curve_figure(runs, "D", 5), tmp_path / "xi_curves.png"),
        save(plots.method_violin_figure(runs, "A"), tmp_path / "violins.png"),
        save(
            plots.feature_correlation_figure({"toy": correlated}, sigma),
            tmp_path / "correlations.png",
        ),
        save(plots.real_comparison_figure(summary, "wdbc"), tmp_path / "real.png"),
        save(plots.mean_rank_figure(summary), tmp_path / "ranks.png"),
        save(plots.stability_figure(summary_with_stability, "A"), tmp_path / "stability.png"),
        save(
            plots.cost_accuracy_figure(
                recommendations,
                "A",
                pd.DataFrame({"cost": [0.5, 1.0, 3.0, 6.0], "oob_mmce": [0.4, 0.3, 0.2, 0.1]}),
            ),
            tmp_path / "cost_accuracy.png",
        ),
    ]
    for path in made:
        assert_readable_image(path)


def test_the_same_runs_give_the_same_figure_byte_for_byte(runs, tmp_path):
    """The replicate dots' jitter is seeded: a figure depends on the runs alone, and drawing
    it leaves numpy's global generator as it was."""
    np.random.seed(3)  # noqa: NPY002
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    paths = [
        save(plots.method_violin_figure(runs, "A"), tmp_path / f"violins{k}.png") for k in (1, 2)
    ]
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert np.array_equal(np.random.get_state()[1], before)  # noqa: NPY002


def test_xi_curves_need_a_method_with_hyperparameter_xi(runs):
    with pytest.raises(ValueError, match="xi"):
        plots.xi_curve_figure(runs[runs["method"] == "boruta"], "A", 1)


def test_every_method_keeps_its_colour_and_baselines_are_lighter():
    assert plots.method_colour("pfi") == plots.method_colour("pfi", "fixed")
    assert np.mean(plots.method_colour("pfi", "agnostic")) > np.mean(plots.method_colour("pfi"))
    assert plots.method_colour("not_yet_a_method") == plots.method_colour("not_yet_a_method")
    colours = {plots.method_colour(method) for method in method_names()}
    assert len(colours) == len(method_names())
    assert plots.method_label("auc", "agnostic") == "auc-0"
    assert plots.method_label("boruta", "fixed") == "boruta"


def test_absolute_correlations_of_the_simulated_matrix_with_and_without_zeros():
    sigma = np.array([[1.0, -0.5, 0.0], [-0.5, 1.0, 0.0], [0.0, 0.0, 1.0]])
    correlations = plots.absolute_correlations({}, sigma)
    by_name = correlations.groupby("data")["correlation"].apply(sorted)
    assert by_name["Simulated (all)"] == [0.0, 0.0, 0.5]
    assert by_name["Simulated (> 0)"] == [0.5]


def test_a_column_with_missing_values_keeps_its_pairs_on_the_rows_where_both_are_observed(rng):
    """On Pima-like data every column but one misses some values: numpy's corrcoef made every
    pair with such a column NaN, and the figure showed only the complete columns' pairs."""
    X = rng.normal(size=(200, 4))
    X[:, 1] += X[:, 0]
    for column in range(3):
        X[rng.choice(200, 15, replace=False), column] = np.nan
    correlations = plots.absolute_correlations({"toy": X})
    assert len(correlations) == 6
    both = ~np.isnan(X[:, 0]) & ~np.isnan(X[:, 1])
    expected = abs(np.corrcoef(X[both, 0], X[both, 1])[0, 1])
    assert np.isclose(correlations["correlation"], expected).any()


def test_constant_columns_are_left_out_of_the_correlations():
    X = np.column_stack([np.arange(5.0), np.arange(5.0) ** 2, np.ones(5)])
    correlations = plots.absolute_correlations({"toy": X})
    assert len(correlations) == 1
    assert correlations["correlation"].iloc[0] == pytest.approx(np.corrcoef(X[:, 0], X[:, 1])[0, 1])


def test_pareto_areas_per_problem_method_and_strategy(runs):
    areas = aggregation.pareto_areas(runs)
    keys = ["kind", "problem", "method", "strategy"]
    assert not areas.duplicated(keys).any()
    assert set(areas["strategy"]) == {"agnostic", "simple", "tuned", "fixed"}
    assert (areas["n_runs"] == 6).all()
    assert areas["aup_mean"].between(0, 1).all()
    # boruta has one set per (rep, budget): its staircase per rep runs through all budgets.
    boruta = runs[(runs["problem"] == "A") & (runs["method"] == "boruta")]
    per_rep = [
        area_under_pareto(run["cost"], run["test_mmce"], kind="error", reference_cost=max(BUDGETS))
        for _, run in boruta.groupby("rep")
    ]
    row = areas[(areas["problem"] == "A") & (areas["method"] == "boruta")].iloc[0]
    assert row["aup_mean"] == pytest.approx(np.mean(per_rep))
    assert row["aup_se"] == pytest.approx(np.std(per_rep, ddof=1) / np.sqrt(len(per_rep)))


def test_results_table_bolds_only_the_significantly_best_entry():
    summary = pd.DataFrame(
        {
            "kind": "real",
            "problem": ["p", "p", "p", "p", "p"],
            "budget": [1, 1, 1, 1, 2],
            "method": ["auc", "pfi", "pfi", "boruta", "auc"],
            "strategy": ["tuned", "tuned", "agnostic", "fixed", "tuned"],
            "mmce_mean": [0.2, 0.1, 0.05, 0.3, 0.1],
            "ci_low": [0.15, 0.08, 0.01, 0.25, 0.05],
            "ci_high": [0.25, 0.12, 0.09, 0.35, 0.15],
        }
    )
    best = pd.DataFrame({"problem": ["p"], "budget": [1], "method": ["pfi"], "strategy": ["tuned"]})
    header, rule, first, second = tables.results_table(summary, best).strip().splitlines()
    assert header == "| Problem | Budget | auc | boruta | pfi |"
    # The agnostic baseline (0.05) is not part of the table.
    assert (
        first
        == "| p | 1 | 0.200 [0.150, 0.250] | 0.300 [0.250, 0.350] | **0.100 [0.080, 0.120]** |"
    )
    # Nothing significantly best at budget 2, and a method that did not run there shows "–".
    assert second == "| p | 2 | 0.100 [0.050, 0.150] | – | – |"


def test_pareto_area_table_has_a_row_per_problem(runs):
    table = tables.pareto_area_table(aggregation.pareto_areas(runs))
    rows = table.strip().splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == ["| A", "| D", "| wdbc"]


def test_the_recommendation_table_names_what_to_buy_and_leaves_out_worse_methods(
    recommendations,
):
    table = tables.recommendation_table(recommendations)
    assert "### wdbc" in table
    kept = recommendations[recommendations["verdict"] != "worse"]
    assert len(kept) < len(recommendations)
    lines = [line for line in table.splitlines() if line.startswith("| 5 |")]
    assert len(lines) == (kept["budget"] == 5).sum()
    assert all("feature_0 (100%), feature_1 (100%), feature_2 (100%)" in line for line in lines)
    header = next(line for line in table.splitlines() if line.startswith("| Budget"))
    assert "| Chosen by | This set's MMCE where chosen | Procedure's MMCE [95% CI] |" in header
    assert all(re.search(r"\| \d+ of \d+ replicates \|", line) for line in lines)


def test_the_cost_accuracy_figure_of_one_replicate_has_no_intervals(recommendations):
    one = recommendations.assign(ci_low=np.nan, ci_high=np.nan)
    assert_on_canvas(plots.cost_accuracy_figure(one, "wdbc"))


def test_the_cost_accuracy_figure_labels_each_step_and_keeps_its_text_on_the_canvas(
    recommendations,
):
    figure = plots.cost_accuracy_figure(recommendations, "wdbc")
    assert_on_canvas(figure)
    texts = [text.get_text() for text in figure.findobj(matplotlib.text.Text)]
    # Budget 1 buys feature_0; budget 5 adds two more, where it lowers the error.
    methods = recommendations["method"].unique()
    assert texts.count("1: +feature_0\n2: +feature_1, feature_2") == len(methods)
    for method in methods:
        assert method in texts


def test_the_critical_difference_diagram_is_readable_and_keeps_its_text_on_the_canvas(
    tmp_path, rng
):
    methods = ["auc", "pfi", "sts", "fs", "l1_cost", "cegb", "msb"]
    block = pd.DataFrame(
        rng.uniform(0.05, 0.3, size=(6, len(methods))),
        index=[f"problem{k}" for k in range(6)],
        columns=methods,
    )
    figure = plots.critical_difference_figure(block, 2)
    path = save(figure, tmp_path / "cd.png")
    assert_readable_image(path)
    assert_on_canvas(figure)
    texts = [text.get_text() for text in figure.findobj(matplotlib.text.Text)]
    assert all(any(method in text for text in texts) for method in methods)


HOSTILE = {"feature_0": "<script>alert(1)</script>", "feature_1": "a|b", "feature_2": "=1+2*3_"}


@pytest.fixture
def hostile(recommendations) -> pd.DataFrame:
    """The recommendations with features and a problem named as markup would be."""
    return recommendations.assign(
        features=recommendations["features"].replace(HOSTILE, regex=True),
        problem="<b>wdbc</b>",
    )


def test_names_from_the_data_show_as_text_in_the_results_page_never_as_markup(
    hostile, runs, summary
):
    """A feature named `<script>…` or `a|b` lands escaped in the Markdown and its HTML page:
    no element of the data's making, no extra table cell."""
    page = figures.results_html_files(runs, summary, {"recommendations": hostile})[""]
    assert "<script>" not in page and "<b>wdbc" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; (100%)" in page
    assert "a|b (100%)" in page and "=1+2*3_ (100%)" in page
    markdown = tables.recommendation_table(hostile)
    rows = [line for line in markdown.splitlines() if line.startswith("| 5 |")]
    assert rows and all(line.replace("\\|", "").count("|") == 10 for line in rows)


def test_the_landing_answer_shows_the_lowest_error_per_budget_with_names_as_text(
    hostile, runs, summary
):
    page = figures.answer_files(runs, summary, {"recommendations": hostile})[""]
    assert "<script>" not in page and "<b>wdbc" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; (100%)" in page
    rows = re.findall(r"<tr><td>([\d.]+)</td>.*?<td>([a-z_0-9]+)</td><td>\d+ of \d+</td>", page)
    budgets = sorted(hostile["budget"].unique())
    assert [float(budget) for budget, _ in rows] == budgets
    lowest = hostile.loc[hostile.groupby("budget")["test_mmce"].idxmin(), "method"]
    assert [method for _, method in rows] == list(lowest)
    assert page.count('src="data:image/png;base64,') == 1


def test_each_step_of_the_cost_error_front_names_every_feature_it_adds_or_drops():
    rows = pd.DataFrame(
        {
            "cost": [1.0, 2.0, 3.0],
            "test_mmce": [0.3, 0.2, 0.1],
            "features": ["a", "b; c; d; e", "a; b; c; d; e; f"],
        }
    )
    front = plots._recommended_front(rows)
    assert list(front["added"]) == ["+a", "+b, c, d, e; \N{MINUS SIGN}a", "+a, f"]


def test_the_results_page_lists_where_tuned_xi_did_worse_than_a_fixed_xi():
    """The study at budget 20 where tuning (0.306) was worse than xi = 0 (0.292): a row; at
    budget 5 tuning was best: none; a method without xi: none."""
    rows = []
    for budget, errors in ((5, (0.30, 0.31, 0.29)), (20, (0.292, 0.30, 0.306))):
        for strategy, error in zip(("agnostic", "simple", "tuned"), errors, strict=True):
            rows.append(("pima", budget, "sts", strategy, error))
        rows.append(("pima", budget, "random_fill", "fixed", 0.5))
    summary = pd.DataFrame(rows, columns=["problem", "budget", "method", "strategy", "mmce_mean"])
    summary = summary.assign(
        ci_low=summary["mmce_mean"] - 0.01, ci_high=summary["mmce_mean"] + 0.01
    )
    table = tables.tuning_table(summary)
    lines = [line for line in table.splitlines() if line.startswith("| pima")]
    assert lines == [
        "| pima | 20 | sts | 0.306 [0.296, 0.316] | 0.292 [0.282, 0.302] | 0.300 [0.290, 0.310] |"
    ]
    better = summary[~((summary["budget"] == 20) & (summary["strategy"] == "tuned"))]
    assert tables.tuning_table(better).startswith("Tuned ξ never")
    one_replicate = summary.assign(ci_low=np.nan, ci_high=np.nan)
    assert "| pima | 20 | sts | 0.306 | 0.292 | 0.300 |" in tables.tuning_table(one_replicate)


def test_the_cost_accuracy_figure_is_drawn_for_one_problem_from_its_rows(
    recommendations, tmp_path, caplog
):
    from costfs import cli
    from costfs.cli import storage
    from costfs.cli.stages.figures import CELL_TABLES, read_inputs

    table = tmp_path / "recommendations.csv"
    storage.write_csv(table, recommendations)
    problems = list(recommendations["problem"].unique())
    assert len(problems) > 1
    figure = tmp_path / "cost_accuracy" / f"{problems[0]}.png"
    arguments = ["figures", "--recommendations", str(table), "--out", f"cost_accuracy={figure}"]
    assert cli.main(arguments) == 2
    assert "one file per problem: give --cell problem=VALUE" in caplog.text
    assert cli.main([*arguments, "--cell", "problem=nowhere"]) == 2
    assert "no rows of the cell {'problem': 'nowhere'} in --recommendations" in caplog.text
    assert not figure.exists()
    assert cli.main([*arguments, "--cell", f"problem={problems[0]}"]) == 0
    # the problem's figure as drawn from the whole table the command reads
    given = {
        **dict.fromkeys(CELL_TABLES),
        "recommendations": table,
        "real_data": [],
        "design": None,
    }
    whole = read_inputs(argparse.Namespace(**given))["recommendations"]
    expected = tmp_path / "expected.png"
    storage.write_figure(expected, plots.cost_accuracy_figure(whole, problems[0]))
    assert np.array_equal(matplotlib.image.imread(figure), matplotlib.image.imread(expected))
