"""The study's figure outputs, one registry: where each is written, when a study has it, its
report caption and the function of `costfs.study.figures` that draws it.

This module imports no plotting library, so the workflow can plan the outputs quickly; the
`figures` command resolves `draw` when it draws.
"""

from dataclasses import dataclass, field

MIN_RANKED_PROBLEMS = 3
"""Fewer real problems than this give no rank comparison across problems (no mean-rank figure,
no Friedman test): the study then has no "several_real" kind."""


FIGURE_INPUTS = ("runs", "summary", "recommendations", "schedules", "real_data", "design")
"""What a figure may be drawn from: the runs and summary tables, the recommendations, the model
schedules, the real data sets, the simulation design (its correlation matrix)."""


CELLS = ((), ("setting",), ("problem",))
"""How a figure output may be split into jobs (`FigureOutput.cells`)."""


@dataclass(frozen=True)
class FigureOutput:
    name: str
    path: str
    """Under `results/figures/`: a file, or a directory when `patterns` names its files; with
    `cells`, one cell's, named with the cell's wildcards."""
    draw: str
    """The function of `costfs.study.figures` giving the output's files from (runs, summary,
    inputs): {"": content} for a file, {file name: content} for a directory."""
    caption: str | None
    """The report caption, `workflow/report/<caption>.rst`; None: not in the report."""
    category: str = "Figures"
    subcategory: str | None = None
    needs: tuple[str, ...] = ()
    """The study has the output when it has any of these problem kinds ("simulated", "real",
    "correlated" for a correlated simulated setting, "several_real" for at least
    `MIN_RANKED_PROBLEMS` real problems); empty: always."""
    patterns: tuple[str, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    reads: tuple[str, ...] = ("runs", "summary")
    """The study's tables `draw` reads (`FIGURE_INPUTS`): its job waits for these only."""
    cells: tuple[str, ...] = ()
    """One job per cell, drawing that cell's files from its rows only, so that a study draws
    them side by side: ("setting",) one per simulated setting, ("problem",) one per problem.
    Empty: one job."""
    methods_with: str | None = None
    """Draws only the methods whose hyperparameter is this one: a cell none of them runs on
    has no file."""

    def __post_init__(self):
        unknown = sorted(set(self.reads) - set(FIGURE_INPUTS))
        if unknown:
            raise ValueError(f"figure output {self.name!r} reads {unknown}: not {FIGURE_INPUTS}")
        if self.cells not in CELLS:
            raise ValueError(f"figure output {self.name!r}: cells {self.cells}, not one of {CELLS}")

    @property
    def is_directory(self) -> bool:
        return bool(self.patterns)

    @property
    def draws_methods(self) -> bool:
        """Whether it shows the methods' results, each in the colour its method declares."""
        return bool(set(self.reads) & {"runs", "summary", "recommendations", "schedules"})


FIGURE_OUTPUTS = (
    FigureOutput(
        "table", "results.md", "results_files", None, reads=("runs", "summary", "recommendations")
    ),
    # Not a result of its own: the report's landing page includes it.
    FigureOutput(
        "answer", "answer.html", "answer_files", None, reads=("recommendations", "schedules")
    ),
    FigureOutput(
        "table_html",
        "results.html",
        "results_html_files",
        "results_table",
        category="Results",
        reads=("runs", "summary", "recommendations"),
    ),
    FigureOutput(
        "cost_accuracy",
        "cost_accuracy/{problem}.png",
        "cost_accuracy_file",
        "cost_accuracy",
        subcategory="What to buy: cost against error",
        labels={"problem": "{problem}"},
        reads=("recommendations", "schedules"),
        cells=("problem",),
    ),
    FigureOutput(
        "stability",
        "stability",
        "stability_files",
        "stability",
        subcategory="How stable the selections are",
        patterns=("{problem}.png",),
        labels={"problem": "{problem}"},
        reads=("summary",),
    ),
    FigureOutput(
        "xi_curves",
        "xi_curves/{setting}",
        "xi_curve_files",
        "xi_curves",
        subcategory="Simulation: strategies over xi",
        needs=("simulated",),
        patterns=("budget~{budget}.png",),
        labels={"setting": "{setting}", "budget": "{budget}"},
        reads=("runs",),
        cells=("setting",),
        methods_with="xi",
    ),
    FigureOutput(
        "method_violins",
        "method_violins",
        "method_violin_files",
        "method_violins",
        subcategory="Simulation: methods",
        needs=("simulated",),
        patterns=("{problem}.png",),
        labels={"setting": "{problem}"},
        reads=("runs",),
    ),
    FigureOutput(
        "real_comparison",
        "real_comparison",
        "real_comparison_files",
        "real_comparison",
        subcategory="Real data: methods",
        needs=("real",),
        patterns=("{problem}.png",),
        labels={"problem": "{problem}"},
        reads=("summary",),
    ),
    FigureOutput(
        "mean_ranks",
        "mean_ranks.png",
        "mean_rank_files",
        "mean_ranks",
        subcategory="Real data: methods",
        needs=("several_real",),
        labels={"problem": "all (mean rank)"},
        reads=("summary",),
    ),
    FigureOutput(
        "critical_differences",
        "critical_differences",
        "critical_difference_files",
        "critical_differences",
        subcategory="Real data: methods",
        needs=("several_real",),
        patterns=("budget_level~{level}.png",),
        labels={"problem": "all (budget level {level})"},
        reads=("summary",),
    ),
    FigureOutput(
        "correlations",
        "feature_correlations.png",
        "feature_correlation_files",
        "feature_correlations",
        subcategory="Data",
        needs=("real", "correlated"),
        reads=("real_data", "design"),
    ),
)


def figure_outputs_for(kinds: set[str]) -> list[FigureOutput]:
    """The outputs of a study with these problem kinds, in registry order."""
    return [output for output in FIGURE_OUTPUTS if not output.needs or kinds & set(output.needs)]
