"""The generated tables of docs/reproduction.md, from the findings tables a study writes
(`costfs.study.findings`), as committed under reproduction/tables/.

Each block is Markdown between `<!-- BEGIN name -->` and `<!-- END name -->` in the document;
`python -m costfs.cli.reproduction update-doc` rewrites them. Counts the prose cites (how many
intervals exclude zero, where curves have their minimum) are a table of their own, `counts.csv`,
so that every number of the document stands in a committed table.
"""

import pandas as pd

from costfs.study import comparisons
from costfs.study.findings import PAPER_ENTRIES, PAPER_METHODS, RECOMMENDED, entry_label
from costfs.study.verdicts import ALPHA, ENTRY_NAMES, RULES, XI_METHODS, significant

TABLES = (
    "problems",
    "per_setting",
    "tuning_by_setting",
    "xi_curves",
    "method_differences",
    "tuned_against_curves",
    "ranks",
    "selected_features",
    "stage_costs",
)
"""The findings tables copied to reproduction/tables/ (`results/findings/<name>.csv`)."""

BENCHMARK_TABLES = ("benchmark_friedman", "benchmark_nemenyi", "benchmark_bayesian")
"""The statistics of a benchmark over data sets (Demšar 2006; Benavoli et al. 2017) on the real
data sets, computed from `per_setting` (`benchmark_statistics`)."""

COMMITTED = (
    *TABLES,
    *BENCHMARK_TABLES,
    "counts",
    "verdicts",
    "compute",
    "batches",
    "sensitivity",
    "refit_seeds",
    "msb_protocol_summary",
)
"""Every table under reproduction/tables/: the findings, the benchmark statistics, the counts the
prose cites, the verdicts (`costfs.study.verdicts`), and the measurement of common random
numbers for the refits (`benchmarks/benchmark_refit_seeds.py`)."""

BENCHMARK_ROPE = 0.05
"""The Bayesian signed-rank test's region of practical equivalence, relative: two entries are
equivalent on a data set when their mean MMCEs differ by less than 5% of the mean MMCE of the
entries compared there. The real data sets' errors run from about 0.01 (authorship) to 0.2
(ada): an absolute ROPE of 0.01 would call every difference on authorship equivalent and few
on ada."""

BENCHMARK_FAMILIES = {
    "paper": "the paper's five entries",
    "all": "the paper's five entries and every related method at its best strategy",
}


def benchmark_entries(per_setting: pd.DataFrame, family: str) -> pd.DataFrame:
    """The real setups' mean test MMCE (`mean`) per entry, named in `method` (AUC, pFI, STS,
    FS-0, FS-1; with family "all" also every related method at its best strategy, tuned or
    else fixed), with `relative`: the mean over the setup's mean of the entries compared.
    Spambase's cost vectors are one data set, `spambase` (`level_blocks` averages them), so
    that each data set is one block of the benchmark."""
    real = per_setting[per_setting["kind"] == "real"]
    entries = {entry: ENTRY_NAMES[entry] for entry in PAPER_ENTRIES}
    if family == "all":
        best = real[real["strategy"].isin(["tuned", "fixed"]) & ~real["method"].isin(PAPER_METHODS)]
        entries |= {(m, s): m for m, s in zip(best["method"], best["strategy"], strict=True)}
    keys = list(zip(real["method"], real["strategy"], strict=True))
    rows = real[[key in entries for key in keys]].copy()
    rows["method"] = [entries[key] for key in zip(rows["method"], rows["strategy"], strict=True)]
    setup = rows.groupby(["problem", "budget"])["mean"].transform("mean")
    rows["relative"] = rows["mean"] / setup
    rows["problem"] = rows["problem"].str.replace(r"^spambase_c\d+$", "spambase", regex=True)
    return rows[["kind", "problem", "budget", "method", "mean", "relative"]]


def benchmark_statistics(per_setting: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per family of entries and budget level, over the real data sets: the Friedman test with
    Iman and Davenport's F, Nemenyi's pairwise tests, and the Bayesian signed-rank test of
    each pair on MMCE relative to the setup's (`BENCHMARK_ROPE`); `BENCHMARK_TABLES`."""
    tables: dict[str, list[pd.DataFrame]] = {name: [] for name in BENCHMARK_TABLES}
    for family in BENCHMARK_FAMILIES:
        rows = benchmark_entries(per_setting, family)
        tables["benchmark_friedman"].append(
            comparisons.friedman_tests(rows, "mean").assign(family=family)
        )
        tables["benchmark_nemenyi"].append(
            comparisons.nemenyi_tests(rows, "mean").assign(family=family)
        )
        # the paper's entries against each other; every method against pFI and STS
        methods = ["pFI", "STS"] if family == "all" else [ENTRY_NAMES[e] for e in PAPER_ENTRIES]
        bayesian = comparisons.bayesian_comparisons(rows, methods, "relative", BENCHMARK_ROPE)
        if family == "paper":
            order = {name: k for k, name in enumerate(methods)}
            bayesian = bayesian[bayesian["method"].map(order) < bayesian["other"].map(order)]
        elif not bayesian.empty:
            bayesian = bayesian[~((bayesian["method"] == "STS") & (bayesian["other"] == "pFI"))]
        tables["benchmark_bayesian"].append(bayesian.assign(family=family))
    out = {}
    for name, parts in tables.items():
        table = pd.concat(parts, ignore_index=True)
        out[name] = table[["family", *(c for c in table.columns if c != "family")]]
    return out


SETTINGS = ("A", "B", "C", "D")
PAIRS = (
    (("auc", "tuned"), ("pfi", "tuned")),
    (("auc", "tuned"), ("sts", "tuned")),
    (("pfi", "tuned"), ("sts", "tuned")),
    (("fs", "agnostic"), ("fs", "simple")),
    (("pfi", "tuned"), ("fs", "simple")),
    (("sts", "tuned"), ("fs", "simple")),
)
"""The paired comparisons the document tabulates per setting and budget (first minus second)."""


def _number(value: float, digits: int) -> str:
    return "—" if pd.isna(value) else f"{value:.{digits}f}".replace("-", "−")


def _mean_with_interval(row, digits: int = 3) -> str:
    return (
        f"{_number(row['mean'], digits)} [{_number(row['ci_low'], digits)}, "
        f"{_number(row['ci_high'], digits)}]"
    )


def _signed(row, digits: int = 3) -> str:
    """A paired difference: bold when the two entries' intervals do not overlap (the paper's
    rule), marked † when the paired t test finds it significant after Holm's correction."""
    text = _number(row["mean"], digits)
    if row["constant"]:
        return f"{text} (the same in every replicate)"
    if row["separate"]:
        text = f"**{text}**"
    return text + ("†" if row["p_holm"] < ALPHA else "")


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def refit_seeds_block(tables) -> str:
    rows = [
        [
            row.seeding,
            row.problem,
            row.method,
            str(row.cells),
            str(row.draws),
            _number(row.refit_sd, 5),
            _number(row.across_replicates_sd, 5),
            _number(row.refit_variance_share, 3),
        ]
        for row in tables["refit_seeds"].itertuples()
    ]
    header = ["refit seed", "problems", "methods", "cells", "draws", "SD from the refits"]
    return _table(header + ["SD across replicates", "variance share"], rows)


def problems_block(tables) -> str:
    problems = tables["problems"]
    rows = [
        [
            row.problem,
            str(row.rows),
            str(row.features),
            _number(row.smallest_class_share, 3),
            _number(row.mean_abs_correlation, 3),
            f"{_number(row.cost_min, 3)}–{_number(row.cost_max, 3)}",
            _number(row.cost_all, 3),
        ]
        for row in problems.itertuples()
    ]
    header = ["problem", "rows", "features", "smallest class", "mean abs. correlation"]
    return _table(header + ["cost range", "cost of all"], rows)


def _entries(tables, problem: str, budget, entries) -> dict:
    per_setting = tables["per_setting"]
    cell = per_setting[(per_setting["problem"] == problem) & (per_setting["budget"] == budget)]
    return {
        (row["method"], row["strategy"]): row
        for _, row in cell.iterrows()
        if (row["method"], row["strategy"]) in entries
    }


def mmce_block(tables, problems) -> str:
    """Mean test MMCE [t interval] of the paper's five entries per problem and budget; the
    lowest mean of a row in bold."""
    per_setting = tables["per_setting"]
    rows = []
    for problem in problems:
        for budget in sorted(per_setting.loc[per_setting["problem"] == problem, "budget"].unique()):
            entries = _entries(tables, problem, budget, PAPER_ENTRIES)
            best = min((row["mean"] for row in entries.values()), default=None)
            cells = []
            for entry in PAPER_ENTRIES:
                if entry not in entries:
                    cells.append("—")
                    continue
                text = _mean_with_interval(entries[entry])
                cells.append(f"**{text}**" if entries[entry]["mean"] == best else text)
            rows.append([problem, f"{budget:g}", *cells])
    header = ["problem", "budget", *(entry_label(*entry) for entry in PAPER_ENTRIES)]
    return _table(header, rows)


def _difference(differences, problem, budget, first, second):
    match = differences[
        (differences["problem"] == problem)
        & (differences["budget"] == budget)
        & (differences["method"] == first[0])
        & (differences["strategy"] == first[1])
        & (differences["versus_method"] == second[0])
        & (differences["versus_strategy"] == second[1])
    ]
    return None if match.empty else match.iloc[0]


def differences_block(tables, problems) -> str:
    """Paired differences (first minus second) per problem and budget; bold: the t interval
    excludes 0."""
    differences = tables["method_differences"]
    rows = []
    for problem in problems:
        budgets = differences.loc[differences["problem"] == problem, "budget"].unique()
        for budget in sorted(budgets):
            cells = []
            for first, second in PAIRS:
                row = _difference(differences, problem, budget, first, second)
                cells.append("—" if row is None else _signed(row))
            rows.append([problem, f"{budget:g}", *cells])
    header = [f"{entry_label(*first)} − {entry_label(*second)}" for first, second in PAIRS]
    return _table(["problem", "budget", *header], rows)


def tuning_block(tables, problems) -> str:
    """Fixed xi minus tuned xi per problem and budget (positive: tuning helps); bold: the t
    interval excludes 0."""
    tuning = tables["tuning_by_setting"]
    rows = []
    for problem in problems:
        for budget in sorted(tuning.loc[tuning["problem"] == problem, "budget"].unique()):
            cells = []
            for method in XI_METHODS:
                for baseline in ("agnostic", "simple"):
                    match = tuning[
                        (tuning["problem"] == problem)
                        & (tuning["budget"] == budget)
                        & (tuning["method"] == method)
                        & (tuning["baseline"] == baseline)
                    ]
                    cells.append("—" if match.empty else _signed(match.iloc[0]))
            rows.append([problem, f"{budget:g}", *cells])
    header = [f"{m}: ξ={v} − tuned" for m in XI_METHODS for v in (0, 1)]
    return _table(["problem", "budget", *header], rows)


def _significance_counts(label, group, cells, first_better) -> list[tuple]:
    """Setups of a comparison and, under each rule, those where the first entry is
    significantly better and worse; `first_better` says where the difference favours the
    first entry."""
    rows = [(label, group, "setups", len(cells))]
    for rule, name in zip(RULES, ("intervals separate", "paired, Holm"), strict=True):
        resolved = significant(cells, rule)
        rows += [
            (label, group, f"first better ({name})", int((resolved & first_better).sum())),
            (label, group, f"first worse ({name})", int((resolved & ~first_better).sum())),
        ]
    return rows


def counts(tables) -> pd.DataFrame:
    """The counts the prose cites, per problem group (and method where it matters). A curve
    whose minimum is tied between places counts at each."""
    rows = []
    groups = {"A, B": ("A", "B"), "C, D": ("C", "D")}
    real = tuple(sorted(set(tables["problems"]["problem"]) - set(SETTINGS)))
    groups["real"] = real
    curves = tables["xi_curves"]
    curves = curves[curves["method"].isin(XI_METHODS)]
    minima = curves[curves["is_minimum"]]
    top = curves["xi"].max()
    places = {
        "minimum at xi = 0": lambda xi: (xi == 0).any(),
        "minimum inside the grid": lambda xi: ((xi > 0) & (xi < top)).any(),
        "minimum at the largest xi": lambda xi: (xi == top).any(),
    }
    for group, problems in groups.items():
        at = minima[minima["problem"].isin(problems)]
        for method in XI_METHODS:
            per_curve = at[at["method"] == method].groupby(["problem", "budget"])["xi"]
            rows.append((f"xi curves of {method}", group, "curves", per_curve.ngroups))
            rows += [
                (f"xi curves of {method}", group, place, int(per_curve.apply(holds).sum()))
                for place, holds in places.items()
            ]
        tuning = tables["tuning_by_setting"]
        tuning = tuning[tuning["problem"].isin(problems)]
        for (method, baseline), cells in tuning.groupby(["method", "baseline"]):
            label = f"tuned against {entry_label(method, baseline)}"
            # fixed minus tuned: tuned (the first) is better where it is positive
            rows += _significance_counts(label, group, cells, cells["mean"] > 0)
        differences = tables["method_differences"]
        differences = differences[differences["problem"].isin(problems)]
        for (method, strategy, versus, versus_strategy), cells in differences.groupby(
            ["method", "strategy", "versus_method", "versus_strategy"]
        ):
            label = (
                f"{entry_label(method, strategy)} against {entry_label(versus, versus_strategy)}"
            )
            rows += _significance_counts(label, group, cells, cells["mean"] < 0)
    rows += _lowest_mean_counts(tables["per_setting"], groups)
    rows += _partner_counts(tables["per_setting"])
    return pd.DataFrame(rows, columns=["comparison", "problems", "count", "value"])


def _paper_means(per_setting: pd.DataFrame) -> pd.DataFrame:
    """Mean test MMCE of the paper's five entries per (problem, budget): one column each."""
    entries = [
        (m, s) in PAPER_ENTRIES
        for m, s in zip(per_setting["method"], per_setting["strategy"], strict=True)
    ]
    return per_setting[entries].pivot_table(
        index=["problem", "budget"], columns=["method", "strategy"], values="mean"
    )


def _lowest_mean_counts(per_setting: pd.DataFrame, groups) -> list[tuple]:
    """Per problem group, the setups where each of the three tuned filters has the lowest mean
    of the three (a mean, not a test)."""
    filters = [entry for entry in PAPER_ENTRIES if entry[0] in XI_METHODS]
    means = _paper_means(per_setting)
    if means.empty or not set(filters) <= set(means.columns):
        return []
    rows = []
    for group, problems in groups.items():
        of = means[means.index.get_level_values("problem").isin(problems)][filters].dropna()
        lowest = of.idxmin(axis=1)
        label = "lowest mean of AUC, pFI and STS (tuned)"
        rows.append((label, group, "setups", len(of)))
        rows += [(label, group, entry_label(*e), int((lowest == e).sum())) for e in filters]
    return rows


def _partner_counts(per_setting: pd.DataFrame) -> list[tuple]:
    """Per pair of settings (B against A, D against C): the paper's entries x budgets with a
    higher mean MMCE on the second."""
    means = _paper_means(per_setting)
    rows = []
    for first, second in (("A", "B"), ("C", "D")):
        problems = means.index.get_level_values("problem")
        a = means[problems == first].droplevel("problem")
        b = means[problems == second].droplevel("problem")
        pairs = (
            a.stack(["method", "strategy"])
            .to_frame("a")
            .join(b.stack(["method", "strategy"]).rename("b"), how="inner")
            .dropna()
        )
        label = f"mean MMCE on {second} against {first}"
        rows += [
            (label, f"{first}, {second}", "entries x budgets", len(pairs)),
            (
                label,
                f"{first}, {second}",
                f"higher on {second}",
                int((pairs["b"] > pairs["a"]).sum()),
            ),
        ]
    return rows


def counts_block(table: pd.DataFrame, comparisons) -> str:
    rows = []
    for comparison in comparisons:
        of = table[table["comparison"] == comparison]
        for problems, cells in of.groupby("problems", sort=False):
            values = dict(zip(cells["count"], cells["value"], strict=True))
            rows.append([comparison, problems, *(str(v) for v in values.values())])
    counts_header = list(dict.fromkeys(table[table["comparison"].isin(comparisons)]["count"]))
    return _table(["comparison", "problems", *counts_header], rows)


def benchmark_friedman_block(tables) -> str:
    rows = [
        [
            BENCHMARK_FAMILIES[row.family],
            str(row.budget_level),
            str(row.n_problems),
            str(row.n_methods),
            f"{row.chi2:.2f}",
            f"{row.p_chi2:.4f}",
            f"{row.iman_davenport_f:.2f}",
            f"{row.p_f:.4f}",
            f"{row.critical_difference:.2f}",
        ]
        for row in tables["benchmark_friedman"].itertuples()
    ]
    header = ["entries", "budget level", "data sets", "entries compared", "χ²", "p"]
    return _table(header + ["Iman–Davenport F", "p", "Nemenyi CD"], rows)


def benchmark_ranks_block(tables, family: str) -> str:
    """Per budget level: the entries by mean rank over the data sets, and the pairs Nemenyi's
    test separates."""
    nemenyi = tables["benchmark_nemenyi"]
    rows = []
    for level, of in nemenyi[nemenyi["family"] == family].groupby("budget_level"):
        ranks = pd.concat(
            [
                of.set_index("method")["mean_rank"],
                of.set_index("other")["other_mean_rank"],
            ]
        )
        ranks = ranks[~ranks.index.duplicated()].sort_values(kind="stable")
        separated = of[of["significant"]]
        pairs = [
            f"{a} / {b} (p = {p:.3f})"
            for a, b, p in zip(
                separated["method"], separated["other"], separated["p_nemenyi"], strict=True
            )
        ]
        rows.append(
            [
                str(level),
                ", ".join(f"{name} {rank:.2f}" for name, rank in ranks.items()),
                "; ".join(pairs) or "none",
            ]
        )
    return _table(["budget level", "entries by mean rank (1 = best)", "Nemenyi separates"], rows)


def benchmark_bayesian_block(tables) -> str:
    """The paper's entries pairwise: per budget level, the posterior probabilities that the
    first has the lower MMCE, that the two are practically equivalent, and that the second
    has."""
    bayesian = tables["benchmark_bayesian"]
    bayesian = bayesian[bayesian["family"] == "paper"]
    levels = sorted(bayesian["budget_level"].unique())
    rows = []
    for (first, second), of in bayesian.groupby(["method", "other"], sort=False):
        by_level = of.set_index("budget_level")
        cells = [
            f"{by_level.loc[level, 'p_lower']:.2f} / {by_level.loc[level, 'p_equivalent']:.2f}"
            f" / {by_level.loc[level, 'p_higher']:.2f}"
            if level in by_level.index
            else "—"
            for level in levels
        ]
        rows.append([f"{first} against {second}", *cells])
    return _table(["pair", *(f"level {level}" for level in levels)], rows)


def msb_protocol_block(tables) -> str:
    """msB's schedule against the budgeted L1 logistic regression under msB's protocol
    (`benchmarks/msb_protocol.py`): mean AUP with its interval, and the difference."""
    labels = {
        "msb": "msB's model schedule",
        "l1_logistic": "budgeted L1 logistic regression",
        "msb minus l1_logistic": "msB minus L1 logistic",
    }
    rows = [
        [
            labels[row.quantity],
            str(row.n_runs),
            _mean_with_interval(row._asdict()),
            str(row.runs_msb_better),
        ]
        for row in tables["msb_protocol_summary"].itertuples()
    ]
    return _table(["spambase, AUP", "runs", "mean [95% interval]", "runs msB is higher"], rows)


def ranks_block(tables, ranking: str) -> str:
    ranks = tables["ranks"]
    ranks = ranks[ranks["ranking"] == ranking]
    rows = []
    for group, of in ranks.groupby("group", sort=False):
        ordered = of.sort_values("mean_rank")
        text = ", ".join(f"{row.entry} {row.mean_rank:.2f}" for row in ordered.itertuples())
        rows.append([group, str(of["n_setups"].iloc[0]), text])
    return _table(["problems", "setups", "entries by mean rank (1 = best)"], rows)


def related_block(tables) -> str:
    """Every other method against pFI and STS (tuned): setups where it is significantly better
    or worse, per problem group."""
    others = [
        f"{entry_label(method, strategy)} against {entry_label(*best)}"
        for method, strategy in sorted(
            set(
                zip(
                    tables["method_differences"]["method"],
                    tables["method_differences"]["strategy"],
                    strict=True,
                )
            )
        )
        if method not in PAPER_METHODS
        for best in RECOMMENDED
    ]
    if not others:
        return "No batch of the related work is committed yet."
    return counts_block(tables["counts"], others)


TARGET_REPLICATES = {"paper": 50, "related": 20}
"""The replicates the reproduction runs: the paper's entries, and the related work."""


def replicates_run(batches: pd.DataFrame) -> dict[str, int]:
    """Replicates the main study's committed batches hold, for the paper's entries and the
    related work."""
    batches = batches[batches["sensitivity"].isna()]
    paper = batches["methods"].str.split(", ").map(lambda methods: set(methods) <= PAPER_METHODS)
    return {
        name: int((of["last_rep"] - of["first_rep"] + 1).sum())
        for name, of in (("paper", batches[paper]), ("related", batches[~paper]))
    }


def status_block(tables) -> str:
    """How far the batches have come: replicates run of those planned, per group of methods."""
    run = replicates_run(tables["batches"])
    labels = {"paper": "the paper's entries", "related": "the related work"}
    parts = [
        f"{labels[name]} at {run[name]} of {TARGET_REPLICATES[name]} replicates" for name in run
    ]
    done = all(run[name] >= TARGET_REPLICATES[name] for name in run)
    state = "complete" if done else "under way, in batches"
    return f"**Status:** the run is {state}: {', '.join(parts)}."


def features_block(tables) -> str:
    profile = tables["selected_features"]
    rows = []
    for method in ("auc", "pfi", "sts", "fs"):
        strategy = "simple" if method == "fs" else "tuned"
        for problem in ("C", "D"):
            of = profile[
                (profile["method"] == method)
                & (profile["strategy"] == strategy)
                & (profile["problem"] == problem)
            ]
            for row in of.sort_values("budget").itertuples():
                rows.append(
                    [
                        entry_label(method, strategy),
                        problem,
                        f"{row.budget:g}",
                        _number(row.n_selected, 1),
                        _number(row.share_informative, 3),
                        _number(row.abs_mu_sum, 3),
                        _number(row.cost_per_feature, 3),
                        _number(row.share_null_in_informative_block, 3),
                    ]
                )
    header = ["entry", "setting", "budget", "features", "informative share", "Σ|μ|"]
    return _table(header + ["cost per feature", "null features in a chosen block"], rows)


FINDING_TITLES = {
    "1": "ξ = 0 against ξ = 1, and where the ξ curves have their minimum (§4.1, Aim 1)",
    "2": "Tuning ξ (§4.1, Aim 2)",
    "3": "The methods on independent data, settings A and B (§4.1)",
    "4": "The methods on correlated data, settings C and D (§4.1)",
    "5": "The budget's effect on the differences between methods (§4.1)",
    "6": "Costs correlated with relevance: B against A, D against C (§4.1)",
    "7": "Real data (§4.2, Fig. 5)",
}


def _primary(by_rule: dict):
    """A claim's row under the paper's rule, or under its only statistic."""
    return by_rule.get(RULES[0]) or next(iter(by_rule.values()))


def _verdict_phrase(by_rule: dict) -> str:
    """A claim's verdicts on some problems: under both rules, or under its only statistic."""
    if set(by_rule) != set(RULES):
        ((rule, row),) = by_rule.items()
        return f"**{row.verdict}** by {rule}"
    first, second = (by_rule[rule].verdict for rule in RULES)
    if first == second:
        return f"**{first}** by both rules"
    return f"**{first}** by the paper's rule, **{second}** by the paired test"


def verdict_paragraphs_block(tables) -> str:
    """One paragraph per finding: its verdict by the paper's rule (reproduced, not reproduced or
    inconclusive when all its claims are; partly reproduced when some are reproduced), at the
    fewest replicates its claims rest on, then
    each claim's verdicts on each group of problems (the counts are in the table below)."""
    verdicts = tables["verdicts"]
    paragraphs = []
    for finding, of_finding in verdicts.groupby("finding", sort=True):
        of_finding = of_finding[of_finding["verdict"] != "not run"]
        if of_finding.empty:
            continue
        sentences, primary = [], []
        for claim, of_claim in of_finding.groupby("claim", sort=False):
            places: dict[str, list[str]] = {}
            for problems, of in of_claim.groupby("problems", sort=False):
                by_rule = {row.rule: row for row in of.itertuples()}
                main = _primary(by_rule)
                primary.append(main.verdict)
                places.setdefault(_verdict_phrase(by_rule), []).append(problems)
            parts = [f"{phrase} on {'; '.join(where)}" for phrase, where in places.items()]
            # A sentence opens with a capital, but an entry's name keeps its own ("pFI").
            opening = (
                claim if claim.split()[0] in ENTRY_NAMES.values() else claim[0].upper() + claim[1:]
            )
            sentences.append(f"{opening}: {', '.join(parts)}.")
        n = of_finding["n_reps"].min()
        found = set(primary)
        if found == {"reproduced"}:
            overall = "reproduced"
        elif found == {"not reproduced"}:
            overall = "not reproduced"
        elif found == {"inconclusive"}:
            overall = "inconclusive"
        elif "reproduced" in found:
            overall = "partly reproduced"
        else:
            overall = "partly not reproduced, otherwise inconclusive"
        title = FINDING_TITLES[str(finding)]
        lead = f"**{finding}. {title}: {overall} at n = {n}.**"
        paragraphs.append(" ".join([lead, *sentences]))
    return "\n\n".join(paragraphs)


HEADLINE_GROUPS = (
    ("reproduced", "Reproduced"),
    ("not reproduced", "Not reproduced"),
    ("inconclusive", "Open (inconclusive at the replicates run)"),
)


def _evidence(by_rule: dict) -> str:
    """A claim's counts by the paper's rule (or its only statistic), and the paired test's
    verdict where it differs."""
    main = _primary(by_rule)
    text = f"{main.support} of {main.setups} for, {main.against} against"
    if main.rule != RULES[0]:
        text += f", by {main.rule}"
    if not pd.isna(main.statistic):
        text += f", holds in {main.statistic:.3f}"
    paired = by_rule.get(RULES[1])
    if paired is not None and paired.verdict != main.verdict:
        text += f"; the paired test: {paired.verdict}"
    return text


def headline_block(tables) -> str:
    """The page's opening: every claim on each group of problems, under its verdict by the
    paper's rule (or its only statistic), one line each with its evidence."""
    verdicts = tables["verdicts"]
    verdicts = verdicts[verdicts["verdict"] != "not run"]
    lines: dict[str, list[str]] = {verdict: [] for verdict, _ in HEADLINE_GROUPS}
    for (finding, claim, problems), of in verdicts.groupby(
        ["finding", "claim", "problems"], sort=False
    ):
        by_rule = {row.rule: row for row in of.itertuples()}
        main = _primary(by_rule)
        lines[main.verdict].append(f"- §{finding} {claim}, on {problems}: {_evidence(by_rule)}")
    n = verdicts["n_reps"].min()
    out = []
    for verdict, title in HEADLINE_GROUPS:
        if lines[verdict]:
            out += [f"**{title}** ({len(lines[verdict])} claims):", "", *lines[verdict], ""]
    out.append(f"Each claim rests on at least n = {n} replicates; the table below has both rules.")
    return "\n".join(out + _sensitivity_headline(tables))


def _sensitivity_headline(tables) -> list[str]:
    """The sensitivity analyses in a line each (how many verdicts on C and D change), and the
    open question of the `sts-depth` variant: does STS with a budget-dependent depth then beat
    pFI on C and D (its verdict by the paper's rule, against the main study's)?"""
    sensitivity = tables["sensitivity"]
    if sensitivity.empty:
        return []
    lines = ["", "**Sensitivity** (settings C and D, judged again on the same replicates):", ""]
    for variant, of in sensitivity.groupby("variant", sort=False):
        line = (
            f"- {SENSITIVITY_NAMES[variant]}, n = {of['n_reps'].iloc[0]}: "
            f"{int(of['changed'].sum())} of {len(of)} verdicts change"
        )
        if variant == "sts-depth":
            claim = of[
                (of["claim"] == "STS significantly outperforms pFI in most situations")
                & (of["rule"] == RULES[0])
            ]
            if len(claim):
                row = claim.iloc[0]
                line += (
                    f"; STS significantly outperforms pFI in most situations: "
                    f"**{row.variant_verdict}** (with the main study's depths 1-3: "
                    f"{row.main_verdict})"
                )
        lines.append(line)
    return lines


def _verdict_cell(row) -> str:
    if row.verdict == "not run":
        return "not run"
    return f"**{row.verdict}** ({row.support} of {row.setups} for, {row.against} against)"


def verdicts_block(tables) -> str:
    """One line per claim and problems: its verdict under the paper's rule and under the paired
    test (or under the statistic that judges a claim about means or ranks)."""
    verdicts = tables["verdicts"]
    rows = []
    for (finding, claim, problems), of in verdicts.groupby(
        ["finding", "claim", "problems"], sort=False
    ):
        by_rule = {row.rule: row for row in of.itertuples()}
        if set(by_rule) == set(RULES):
            cells = [_verdict_cell(by_rule[rule]) for rule in RULES]
        else:
            ((rule, row),) = by_rule.items()
            statistic = "" if pd.isna(row.statistic) else f", holds in {row.statistic:.3f}"
            cells = [f"{_verdict_cell(row)}, by {rule}{statistic}", "—"]
        note = of["note"].dropna().iloc[0] if of["note"].notna().any() else ""
        rows.append([str(finding), claim, problems, *cells, note])
    header = ["§", "the paper's claim", "problems", "non-overlap (the paper's rule)"]
    return _table(header + ["paired t test, Holm", "counted"], rows)


def compute(tables, sensitivity_runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Job-hours of the run (the jobs' summed wall time, `stage_costs`) for the paper's entries,
    the related work and both, per replicate, and projected to 100 replicates and onto 16 and
    128 cores (the job-hours spread evenly: a lower bound). With `sensitivity_runs` (per
    variant its job_hours, cpu_hours and job_hours_per_rep), a row per variant (settings C and
    D only, so not projected) and the sum of everything run."""
    costs = tables["stage_costs"]
    paper = costs["method"].isin(PAPER_METHODS)
    rows = []
    for label, of in (("paper", costs[paper]), ("related", costs[~paper]), ("all", costs)):
        if of.empty:
            continue
        per_rep = of["wall_hours_per_rep"].sum()
        rows.append(
            {
                "methods": label,
                "job_hours": of["wall_hours"].sum(),
                "cpu_hours": of["cpu_hours"].sum(),
                "job_hours_per_rep": per_rep,
                "job_hours_100_reps": 100 * per_rep,
                "hours_100_reps_16_cores": 100 * per_rep / 16,
                "hours_100_reps_128_cores": 100 * per_rep / 128,
            }
        )
    if sensitivity_runs is not None and not sensitivity_runs.empty:
        for run in sensitivity_runs.itertuples():
            rows.append(
                {
                    "methods": f"sensitivity {run.variant}",
                    "job_hours": run.job_hours,
                    "cpu_hours": run.cpu_hours,
                    "job_hours_per_rep": run.job_hours_per_rep,
                }
            )
        rows.append(
            {
                "methods": "everything run",
                "job_hours": costs["wall_hours"].sum() + sensitivity_runs["job_hours"].sum(),
                "cpu_hours": costs["cpu_hours"].sum() + sensitivity_runs["cpu_hours"].sum(),
            }
        )
    return pd.DataFrame(rows).round(3)


SENSITIVITY_NAMES = {
    "seed": "another study seed (new μ, Σ and costs)",
    "fs-trees": "forward selection's internal forests at 500 trees instead of 100",
    "sts-depth": "STS with depths 1-7, each budget held to the depth its cheapest features allow",
}


def compute_block(tables) -> str:
    labels = {
        "paper": "the paper's entries",
        "related": "the related work",
        "all": "the main study (all methods)",
    }
    labels |= {
        f"sensitivity {name}": f"sensitivity: {text}" for name, text in SENSITIVITY_NAMES.items()
    }
    labels["everything run"] = "everything run (the main study and the sensitivity runs)"
    rows = [
        [
            labels[row.methods],
            _number(row.job_hours, 3),
            _number(row.cpu_hours, 3),
            _number(row.job_hours_per_rep, 3),
            _number(row.job_hours_100_reps, 3),
            _number(row.hours_100_reps_16_cores, 3),
            _number(row.hours_100_reps_128_cores, 3),
        ]
        for row in tables["compute"].itertuples()
    ]
    header = ["methods", "job-hours", "CPU-hours", "job-hours per replicate"]
    header += ["100 replicates: job-hours", "hours on 16 cores", "hours on 128 cores"]
    return _table(header, rows)


def batches_block(tables) -> str:
    rows = [
        [
            row.batch,
            "main" if pd.isna(row.sensitivity) else f"sensitivity: {row.sensitivity}",
            row.methods,
            f"{row.first_rep}–{row.last_rep}",
        ]
        for row in tables["batches"].itertuples()
    ]
    return _table(["batch", "study", "methods", "replicates"], rows)


def _more_run(n_run: int, n_compared: int) -> str:
    """The replicates a variant ran beyond those the main study has yet."""
    if n_run == n_compared:
        return ""
    return f" (of {n_run} run; the main study has {n_compared} of them so far)"


def sensitivity_block(tables) -> str:
    """Per sensitivity variant, the claims whose verdict on settings C and D changes."""
    table = tables["sensitivity"]
    if table.empty:
        return "Not run yet."
    lines = []
    for variant, of in table.groupby("variant", sort=False):
        changed = of[of["changed"]]
        lines.append(
            f"- **{SENSITIVITY_NAMES[variant]}**, n = {of['n_reps'].iloc[0]}"
            + _more_run(of["n_run"].iloc[0], of["n_reps"].iloc[0])
            + f": {len(changed)} of {len(of)} verdicts change"
            + (":" if len(changed) else ".")
        )
        lines += [
            f"  - {row.claim} ({row.problems}, {row.rule}): {row.main_verdict} → "
            f"{row.variant_verdict}"
            for row in changed.itertuples()
        ]
    return "\n".join(lines)


def blocks(tables) -> dict[str, str]:
    """Block name -> Markdown, from the committed tables (name -> DataFrame, `counts` too)."""
    real = sorted(set(tables["problems"]["problem"]) - set(SETTINGS))
    table = tables["counts"]
    paper_pairs = [
        f"{entry_label(*first)} against {entry_label(*second)}" for first, second in PAIRS
    ]
    tuning = [
        f"tuned against {entry_label(method, baseline)}"
        for method in XI_METHODS
        for baseline in ("agnostic", "simple")
    ]
    return {
        "status": status_block(tables),
        "headline": headline_block(tables),
        "verdict_paragraphs": verdict_paragraphs_block(tables),
        "verdicts": verdicts_block(tables),
        "compute": compute_block(tables),
        "batches": batches_block(tables),
        "sensitivity": sensitivity_block(tables),
        "refit_seeds": refit_seeds_block(tables),
        "problems": problems_block(tables),
        "xi_minima": counts_block(table, [f"xi curves of {method}" for method in XI_METHODS]),
        "tuning_counts": counts_block(table, tuning),
        "tuning_simulated": tuning_block(tables, SETTINGS),
        "mmce_simulated": mmce_block(tables, SETTINGS),
        "differences_simulated": differences_block(tables, SETTINGS),
        "difference_counts": counts_block(table, paper_pairs),
        "mmce_real": mmce_block(tables, real),
        "differences_real": differences_block(tables, real),
        "ranks_paper": ranks_block(tables, "paper"),
        "benchmark_friedman": benchmark_friedman_block(tables),
        "benchmark_ranks_paper": benchmark_ranks_block(tables, "paper"),
        "benchmark_ranks_all": benchmark_ranks_block(tables, "all"),
        "benchmark_bayesian": benchmark_bayesian_block(tables),
        "ranks_all": ranks_block(tables, "all"),
        "related_work": related_block(tables),
        "msb_protocol": msb_protocol_block(tables),
        "selected_features": features_block(tables),
    }
