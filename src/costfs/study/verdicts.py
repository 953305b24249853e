"""The paper's findings as testable claims, each judged from the committed findings tables under
the paper's own rule and under a paired test, into the verdicts table docs/reproduction.md
opens with (`verdicts.csv`).

A claim is judged over the setups (problem, budget) it is about, under each rule:

- **non-overlap** (the paper's rule, primary): two entries differ in a setup when their 95%
  intervals of the mean test MMCE over the replicates do not overlap (`separate`);
- **paired, Holm** (secondary): the paired t test of the difference within runs, Holm-adjusted
  over the comparison's setups in its problem group (`p_holm` below 0.05). A difference that is
  the same in every replicate has p = 1: it is never significant.

Verdicts, in the words of a ReScience replication:

- a claim that one entry is better than another "in general" or "in most situations" is
  *reproduced* when it is significantly better in more than half of the setups, *not
  reproduced* when the other is significantly better in more setups than it, else
  *inconclusive* at the study's n (a tie included);
- a claim that neither of two entries is generally better is *reproduced* unless one is
  significantly better in more than half of the setups; it counts for it the setups where the
  more often better entry is not significantly better, against it those where it is;
- a claim of no effect ("about equal", "no obvious effect") is *reproduced* when at most
  `NO_EFFECT_TOLERANCE` of the setups or pairs it is judged on contradict it, a tolerance
  declared before the tables were looked at;
- a claim that something holds "in nearly all" setups is *reproduced* when it holds
  significantly in at least `NEARLY_ALL` of them, *not reproduced* when the contrary holds
  significantly in more than the rest (1 - `NEARLY_ALL`), else *inconclusive*;
- a claim that one entry significantly dominates the others in a setup is *not reproduced*
  when another entry is significantly better or has a lower mean there;
- claims about curve minima, the budget's effect and mean ranks are about means, as the
  paper's are: the rule column says which statistic judges them (the intervals of the points
  involved, or a bootstrap of the data sets for ranks, whose setups are counted for and
  against as the setups whose own ranks hold the claim or not).
"""

import numpy as np
import pandas as pd

from costfs.study.comparisons import ALPHA
from costfs.study.findings import PAPER_ENTRIES

RULES = ("non-overlap", "paired, Holm")
BOOTSTRAP_DRAWS = 2000
BOOTSTRAP_SEED = 20240607
BOOTSTRAP_LEVEL = 0.95
"""A rank order is reproduced when it holds in the data and in this share of bootstrap draws of
the data sets (each with all its budgets: the setups of one data set are not independent)."""
NO_EFFECT_TOLERANCE = 0.10
"""A claim of no effect holds when at most this share of the setups or pairs judged contradict
it."""
NEARLY_ALL = 0.90
"""A claim about "nearly all" setups holds when at least this share of them support it."""

ENTRY_NAMES = {
    ("auc", "tuned"): "AUC",
    ("pfi", "tuned"): "pFI",
    ("sts", "tuned"): "STS",
    ("fs", "agnostic"): "FS-0",
    ("fs", "simple"): "FS-1",
    ("auc", "agnostic"): "AUC-0",
    ("pfi", "agnostic"): "pFI-0",
    ("sts", "agnostic"): "STS-0",
}
NON_BASELINES = (("auc", "tuned"), ("pfi", "tuned"), ("sts", "tuned"), ("fs", "simple"))
BASELINES = (("auc", "agnostic"), ("pfi", "agnostic"), ("sts", "agnostic"), ("fs", "agnostic"))
"""The paper's real-data ranking (its Fig. 5): the cost-agnostic versions ("-0") are the
baselines."""

XI_METHODS = ("auc", "pfi", "sts")
"""The paper's methods with a xi grid (forward selection runs at xi = 0 and 1 only)."""

GROUPS = {"independent": "A, B", "correlated": "C, D", "real": "real"}
COLUMNS = [
    "finding",
    "claim",
    "problems",
    "rule",
    "setups",
    "support",
    "against",
    "verdict",
    "note",
    "statistic",
]
"""A claim judged under one rule: the setups it is about, those that support and contradict it,
the verdict, what was counted, and the statistic of a claim about ranks (the share of bootstrap
draws of the setups in which it holds)."""


def significant(rows: pd.DataFrame, rule: str) -> pd.Series:
    """Significant setups under `rule`; a difference without spread (`constant`) never is."""
    constant = rows["constant"].astype(bool) if "constant" in rows else False
    if rule == RULES[0]:
        return rows["separate"].astype(bool) & ~constant
    return (rows["p_holm"] < ALPHA) & ~constant


def _tally(rows: pd.DataFrame, rule: str, sign: int = 1) -> tuple[int, int, int]:
    """Setups, and those where the claim's first entry is significantly better (`for`) and
    worse (`against`); `rows` hold first minus second (`sign` -1: second minus first)."""
    difference = rows["mean"] * sign
    resolved = significant(rows, rule)
    return (
        len(rows),
        int((resolved & (difference < 0)).sum()),
        int((resolved & (difference > 0)).sum()),
    )


def _better_verdict(setups: int, better: int, worse: int) -> str:
    if better > setups / 2:
        return "reproduced"
    if worse > better:
        return "not reproduced"
    return "inconclusive"


def _neither_verdict(setups: int, better: int, worse: int) -> str:
    return "not reproduced" if max(better, worse) > setups / 2 else "reproduced"


def _neither_counts(setups: int, better: int, worse: int) -> tuple[int, int]:
    """For a claim that neither entry is generally better: the setups where the more often
    better entry is not significantly better (for) and those where it is (against)."""
    dominant = max(better, worse)
    return setups - dominant, dominant


def _no_effect_verdict(judged: int, contradicting: int) -> str:
    if not judged:
        return "not run"
    return "reproduced" if contradicting <= NO_EFFECT_TOLERANCE * judged else "not reproduced"


def _about_equal_verdict(setups: int, better: int, worse: int) -> str:
    return _no_effect_verdict(setups, better + worse)


def _nearly_all_verdict(setups: int, holds: int, contrary: int) -> str:
    if holds >= NEARLY_ALL * setups:
        return "reproduced"
    if contrary > (1 - NEARLY_ALL) * setups:
        return "not reproduced"
    return "inconclusive"


def _pair(differences: pd.DataFrame, first, second) -> tuple[pd.DataFrame, int]:
    """The rows of first minus second, whichever order the table holds them in, and the sign
    that makes them first minus second."""

    def rows(a, b):
        return differences[
            (differences["method"] == a[0])
            & (differences["strategy"] == a[1])
            & (differences["versus_method"] == b[0])
            & (differences["versus_strategy"] == b[1])
        ]

    forward = rows(first, second)
    return (forward, 1) if len(forward) else (rows(second, first), -1)


def _comparison_rows(finding, claim, rows, sign, judge, problems, names, note=""):
    """The claim's row per rule; `names` are its two entries (first, second). A claim that one
    is better counts the setups where it is significantly better (for) and worse (against); a
    claim that neither is better, or that both are about equal, counts what does not
    contradict it (for) and what does (against), and the note gives each direction's count."""
    first, second = names
    out = []
    for rule in RULES:
        setups, better, worse = _tally(rows, rule, sign)
        verdict = judge(setups, better, worse) if setups else "not run"
        if judge is _neither_verdict:
            support, against = _neither_counts(setups, better, worse)
            counted = (
                "for: setups where the more often better entry is not significantly better; "
                f"against: where it is ({first} better in {better}, {second} in {worse})"
            )
        elif judge is _about_equal_verdict:
            support, against = setups - better - worse, better + worse
            counted = (
                "for: setups without a significant difference; against: with one "
                f"({first} better in {better}, {second} in {worse})"
            )
        else:
            support, against = better, worse
            counted = f"for: {first} better; against: {second} better"
        text = f"{note}; {counted}" if note else counted
        out.append([finding, claim, problems, rule, setups, support, against, verdict, text])
    return out


def _entry_comparisons(tables, finding, group, claims):
    differences = tables["method_differences"]
    in_group = differences[differences["group"] == group]
    out = []
    for first, second, judge, claim in claims:
        rows, sign = _pair(in_group, first, second)
        names = (ENTRY_NAMES[first], ENTRY_NAMES[second])
        out += _comparison_rows(finding, claim, rows, sign, judge, GROUPS[group], names)
    return out


def _xi_claims(tables) -> list:
    out = []
    differences = tables["method_differences"]
    fixed = differences[
        (differences["strategy"] == "agnostic")
        & (differences["versus_strategy"] == "simple")
        & (differences["method"] == differences["versus_method"])
        & differences["method"].isin(XI_METHODS)
    ]
    for group, problems in GROUPS.items():
        rows = fixed[fixed["group"] == group]
        out += _comparison_rows(
            "1",
            "neither ξ = 0 nor ξ = 1 is generally superior (AUC, pFI, STS)",
            rows,
            1,
            _neither_verdict,
            problems,
            ("ξ = 0", "ξ = 1"),
        )
    curves = tables["xi_curves"]
    curves = curves[curves["method"].isin(XI_METHODS)]
    top = curves["xi"].max()
    for group, problems in GROUPS.items():
        kind = (curves["kind"] == "real") if group == "real" else _setting_rows(curves, group)
        minima = curves[kind & curves["is_minimum"]]
        per_curve = minima.groupby(["problem", "budget", "method"])["xi"]
        at_zero = int(per_curve.apply(lambda xi: (xi == 0).any()).sum())
        at_top = int(per_curve.apply(lambda xi: (xi == top).any()).sum())
        inside = int(per_curve.apply(lambda xi: ((xi > 0) & (xi < top)).any()).sum())
        places = sum(count > 0 for count in (at_zero, inside, at_top))
        out.append(
            [
                "1",
                "the curves' minima lie at different ξ",
                problems,
                "means",
                per_curve.ngroups,
                inside,
                at_zero + at_top,
                "not run"
                if not per_curve.ngroups
                else "reproduced"
                if places >= 2
                else "not reproduced",
                f"for: a minimum inside the grid; against: at ξ = 0 ({at_zero}) or at "
                f"the grid's largest ξ ({at_top}); tied minima count at each place",
            ]
        )
    figure = fixed[(fixed["problem"] == "D") & (fixed["budget"] == 10)]
    zero_first, one_first = ("ξ = 0", "ξ = 1"), ("ξ = 1", "ξ = 0")
    for method, sign, judge, names, claim in (
        (
            "auc",
            1,
            _better_verdict,
            zero_first,
            "AUC at ξ = 0 is better than at ξ = 1 on D at budget 10",
        ),
        (
            "pfi",
            -1,
            _better_verdict,
            one_first,
            "pFI at ξ = 1 is better than at ξ = 0 on D at budget 10",
        ),
        (
            "sts",
            1,
            _about_equal_verdict,
            zero_first,
            "STS at ξ = 0 and ξ = 1 are about equal on D at budget 10",
        ),
    ):
        out += _comparison_rows(
            "1", claim, figure[figure["method"] == method], sign, judge, "D", names, "Fig. 2"
        )
    out.append(_sts_minima_claim(curves))
    sts_c = curves[(curves["method"] == "sts") & (curves["problem"] == "C")]
    for budget in (2, 5):
        curve = sts_c[sts_c["budget"] == budget].set_index("xi")
        if curve.empty:
            continue
        lowest = curve["mean"].idxmin()
        zero = curve.loc[0.0]
        overlaps = not (zero["ci_low"] > curve.loc[lowest, "ci_high"])
        at_zero = bool(curve.loc[0.0, "is_minimum"])
        verdict = "reproduced" if at_zero else "inconclusive" if overlaps else "not reproduced"
        out.append(
            [
                "1",
                f"STS's curve on C at budget {budget} has its minimum at ξ = 0",
                "C",
                RULES[0],
                1,
                int(at_zero),
                int(not overlaps),
                verdict,
                f"the minimum is at ξ = {lowest:g}; against: ξ = 0's interval lies above it",
            ]
        )
    return out


STS_MINIMA_AT_ZERO = {("C", 2), ("C", 5)}
"""The paper: STS's only curves with their minimum at ξ = 0 are on C at budgets 2 and 5."""


def _sts_minima_claim(curves: pd.DataFrame) -> list:
    """STS's simulated curves whose minimum is at ξ = 0 exactly where the paper's are (on C at
    budgets 2 and 5, and nowhere else): a claim about every curve, with the tolerance of a claim
    of no effect."""
    sts = curves[(curves["method"] == "sts") & (curves["kind"] == "simulated")]
    at_zero = (
        sts[sts["is_minimum"]]
        .groupby(["problem", "budget"])["xi"]
        .apply(lambda xi: bool((xi == 0).any()))
    )
    expected = pd.Series([key in STS_MINIMA_AT_ZERO for key in at_zero.index], at_zero.index)
    wrong = at_zero[at_zero != expected]
    where = ", ".join(
        f"{problem} {budget:g} ({'at' if zero else 'not at'} ξ = 0)"
        for (problem, budget), zero in wrong.items()
    )
    return [
        "1",
        "STS's curves have their minimum at ξ = 0 only on C at budgets 2 and 5",
        ", ".join(sorted(sts["problem"].unique())),
        "means",
        len(at_zero),
        len(at_zero) - len(wrong),
        len(wrong),
        _no_effect_verdict(len(at_zero), len(wrong)),
        "for: curves whose minimum is at ξ = 0 where the paper's is and elsewhere not; "
        f"against: the others{': ' + where if where else ''}",
    ]


def _setting_rows(table: pd.DataFrame, group: str) -> pd.Series:
    settings = {"independent": ("A", "B"), "correlated": ("C", "D")}[group]
    return table["problem"].isin(settings)


def _tuning_claims(tables) -> list:
    out = []
    tuning = tables["tuning_by_setting"]
    tuning = tuning[tuning["method"].isin(XI_METHODS)]
    # Forward selection (xi = 0, 1 only) and the related methods that tune xi have curves too.
    curves = tables["tuned_against_curves"]
    curves = curves[curves["method"].isin(XI_METHODS)]
    for group, problems in GROUPS.items():
        # The paper claims this of its simulated settings; on real data it claims only that the
        # cost-agnostic baselines are worse (`_baseline_claims`).
        if group != "real":
            # fixed minus tuned: tuned is the claim's first entry, better when the gain is > 0
            out += _comparison_rows(
                "2",
                "tuned ξ has a lower MMCE than ξ = 0 and ξ = 1 in most settings",
                tuning[tuning["group"] == group],
                -1,
                _better_verdict,
                problems,
                ("tuned ξ", "the fixed ξ"),
                "AUC, pFI, STS against both fixed values",
            )
        out += _comparison_rows(
            "2",
            "tuned ξ is lower than any point of the ξ curve",
            curves[curves["group"] == group],
            1,
            _better_verdict,
            problems,
            ("tuned ξ", "the curve's best point"),
            "AUC, pFI, STS against the curve's best point in hindsight",
        )
    return out


def _baseline_claims(tables) -> list:
    """The paper's Aim 6: in nearly all real setups each method's cost-agnostic baseline (ξ =
    0; FS-0) is worse than its counterpart (tuned ξ; FS-1). One row per method and setup."""
    tuning = tables["tuning_by_setting"]
    tuned = tuning[
        tuning["method"].isin(XI_METHODS)
        & (tuning["group"] == "real")
        & (tuning["baseline"] == "agnostic")
    ]
    differences = tables["method_differences"]
    forward, sign = _pair(
        differences[differences["group"] == "real"], BASELINES[3], NON_BASELINES[3]
    )
    # baseline minus counterpart, as the tuning table's gains: positive where the baseline is worse
    rows = pd.concat([tuned, forward.assign(mean=forward["mean"] * sign)], ignore_index=True)
    out = []
    for rule in RULES:
        setups, worse, better = _tally(rows, rule, -1)
        out.append(
            [
                "7",
                "in nearly all real setups each baseline (-0) is worse than its counterpart",
                "real",
                rule,
                setups,
                worse,
                better,
                _nearly_all_verdict(setups, worse, better) if setups else "not run",
                "AUC, pFI, STS: tuned ξ against ξ = 0; FS-1 against FS-0; for: the baseline "
                "significantly worse; against: significantly better",
            ]
        )
    return out


def _strategy_budget_claims(tables) -> list:
    """The strategies' differences shrink with the budget on an absolute scale: per setting,
    method and fixed value, the mean gain of tuning at the largest budget against the
    smallest."""
    tuning = tables["tuning_by_setting"]
    tuning = tuning[tuning["method"].isin(XI_METHODS) & (tuning["group"] != "real")]
    shrinking, curves = 0, 0
    for _, rows in tuning.groupby(["problem", "method", "baseline"]):
        ordered = rows.sort_values("budget")["mean"].abs()
        curves += 1
        shrinking += int(ordered.iloc[-1] < ordered.iloc[0])
    return [
        [
            "2",
            "the differences between the strategies shrink with the budget (absolute)",
            ", ".join(sorted(tuning["problem"].unique())),
            "means",
            curves,
            shrinking,
            curves - shrinking,
            "not run"
            if not curves
            else "reproduced"
            if shrinking > curves / 2
            else "not reproduced",
            "for: settings x methods x fixed values where the mean gain of tuning is smaller "
            "at the largest budget than at the smallest",
        ]
    ]


def _simulated_claims(tables) -> list:
    auc, pfi, sts = ("auc", "tuned"), ("pfi", "tuned"), ("sts", "tuned")
    fs0, fs1 = ("fs", "agnostic"), ("fs", "simple")
    better, neither = _better_verdict, _neither_verdict
    independent = [
        (auc, pfi, better, "AUC has the lowest MMCE, closely followed by pFI: AUC below pFI"),
        (auc, sts, better, "STS is significantly worse than AUC"),
        (pfi, sts, better, "STS is significantly worse than pFI"),
        (sts, fs0, better, "FS-0 is worse than STS"),
        (sts, fs1, better, "FS-1 is worse than STS"),
        (fs0, fs1, neither, "neither FS-0 nor FS-1 is generally better"),
    ]
    correlated = [
        (sts, pfi, better, "STS significantly outperforms pFI in most situations"),
        (sts, auc, better, "STS significantly outperforms AUC in most situations"),
        (sts, fs1, better, "STS significantly outperforms FS-1 in most situations"),
        (sts, fs0, better, "STS significantly outperforms FS-0 in most situations"),
        (fs1, fs0, better, "FS-1 is generally lower than FS-0"),
        (pfi, fs1, better, "FS-1 cannot compete with pFI"),
        (pfi, fs0, better, "FS-0 cannot compete with pFI"),
        (pfi, auc, better, "AUC is at the bottom: worse than pFI"),
        (fs1, auc, better, "AUC is at the bottom: worse than FS-1"),
        (fs0, auc, better, "AUC is at the bottom: worse than FS-0"),
    ]
    return _entry_comparisons(tables, "3", "independent", independent) + _entry_comparisons(
        tables, "4", "correlated", correlated
    )


def _budget_claims(tables) -> list:
    per_setting = tables["per_setting"]
    filters = per_setting[
        per_setting["method"].isin(XI_METHODS) & (per_setting["strategy"] == "tuned")
    ]
    shrinking, settings, names = 0, 0, []
    for name, rows in filters[filters["kind"] == "simulated"].groupby("problem"):
        names.append(name)
        spread = rows.groupby("budget")["mean"].agg(lambda m: m.max() - m.min())
        settings += 1
        shrinking += int(spread.iloc[-1] < spread.iloc[0])
    return [
        [
            "5",
            "the absolute differences between methods shrink with the budget",
            ", ".join(names),
            "means",
            settings,
            shrinking,
            settings - shrinking,
            "not run"
            if not settings
            else "reproduced"
            if shrinking == settings
            else "not reproduced",
            "for: the spread of AUC, pFI and STS is smaller at the largest budget than at the "
            "smallest, per setting",
        ]
    ]


def _cost_correlation_claims(tables) -> list:
    """B against A and D against C: a pair of entries significantly ordered one way on one
    setting and the other way on its partner, at the same budget, is an effect of the
    cost-relevance correlation."""
    differences = tables["method_differences"]
    paper = differences[
        differences["method"].isin(["auc", "pfi", "sts", "fs"])
        & differences["versus_method"].isin(["auc", "pfi", "sts", "fs"])
        & ~(
            (differences["method"] == differences["versus_method"])
            & (differences["method"] != "fs")
        )
    ]
    out = []
    for plain, correlated in (("A", "B"), ("C", "D")):
        keys = ["budget", "method", "strategy", "versus_method", "versus_strategy"]
        both = paper[paper["problem"] == plain].merge(
            paper[paper["problem"] == correlated], on=keys, suffixes=("_a", "_b")
        )
        for rule in RULES:
            direction = []
            for suffix in ("_a", "_b"):
                names = ["mean", "separate", "p_holm", "constant"]
                rows = both[[f"{name}{suffix}" for name in names]]
                rows.columns = names
                direction.append(np.sign(rows["mean"]) * significant(rows, rule))
            flips = int(((direction[0] * direction[1]) < 0).sum())
            resolved = int(((direction[0] != 0) | (direction[1] != 0)).sum())
            out.append(
                [
                    "6",
                    f"costs correlated with relevance change no ranking ({correlated} against "
                    f"{plain})",
                    f"{plain}, {correlated}",
                    rule,
                    len(both),
                    resolved - flips,
                    flips,
                    "not run" if both.empty else _no_effect_verdict(resolved, flips),
                    "pairs of entries x budgets; for: significant on either setting without a "
                    "reversal; against: significant both ways; reproduced when at most "
                    f"{NO_EFFECT_TOLERANCE:.0%} of the significant pairs reverse",
                ]
            )
    return out


def _dominates(differences, entry, others) -> dict:
    """Per rule, how many of `others` `entry` is significantly better than in the rows of a
    setup, and how many are significantly better than it."""
    result = {}
    for rule in RULES:
        wins, losses = 0, 0
        for other in others:
            rows, sign = _pair(differences, entry, other)
            _, better, worse = _tally(rows, rule, sign)
            wins += better
            losses += worse
        result[rule] = (wins, losses)
    return result


def _lower_means(differences, entry, others) -> list[str]:
    """The entries of `others` with a lower mean MMCE than `entry` in the rows of a setup."""
    lower = []
    for other in others:
        rows, sign = _pair(differences, entry, other)
        if ((rows["mean"] * sign) > 0).any():
            lower.append(ENTRY_NAMES[other])
    return lower


def _real_claims(tables) -> list:
    differences = tables["method_differences"]
    paper = list(PAPER_ENTRIES)
    out = []
    examples = (
        (("auc", "tuned"), "qsar-biodeg", 1),
        (("fs", "simple"), "wdbc", 1),
        (("pfi", "tuned"), _first_problem(tables, "spambase"), 5),
        (("sts", "tuned"), "analcatdata_authorship", 1),
    )
    for entry, problem, budget in examples:
        setup = differences[(differences["problem"] == problem) & (differences["budget"] == budget)]
        others = [other for other in paper if other != entry]
        lower = _lower_means(setup, entry, others)
        for rule, (wins, losses) in _dominates(setup, entry, others).items():
            verdict = (
                "reproduced"
                if wins == len(others)
                else "not reproduced"
                if losses or lower
                else "inconclusive"
            )
            out.append(
                [
                    "7",
                    f"{ENTRY_NAMES[entry]} significantly dominates the others on {problem} at "
                    f"budget {budget}",
                    problem,
                    rule,
                    len(others),
                    wins,
                    losses,
                    verdict if not setup.empty else "not run",
                    "for: entries it is significantly better than; against: worse than; "
                    + (f"lower means: {', '.join(lower)}" if lower else "it has the lowest mean"),
                ]
            )
    return out


def _dominance_claims(tables) -> list:
    """Each non-baseline entry significantly dominates the other four paper entries in at least
    one real setup: per rule, the entries that do (and the setups where they do). An entry
    with the lowest mean in no real setup cannot dominate any: it counts against the claim."""
    differences = tables["method_differences"]
    real = differences[differences["group"] == "real"]
    if real.empty:
        return []
    paper = list(PAPER_ENTRIES)
    setups = list(real.groupby(["problem", "budget"]))
    nowhere_lowest = [
        ENTRY_NAMES[entry]
        for entry in NON_BASELINES
        if all(_lower_means(setup, entry, [o for o in paper if o != entry]) for _, setup in setups)
    ]
    out = []
    for rule in RULES:
        dominating = {}
        for (problem, budget), setup in setups:
            for entry in NON_BASELINES:
                others = [other for other in paper if other != entry]
                wins, _ = _dominates(setup, entry, others)[rule]
                if wins == len(others):
                    dominating.setdefault(ENTRY_NAMES[entry], []).append(f"{problem} {budget}")
        found = len(dominating)
        verdict = (
            "reproduced"
            if found == len(NON_BASELINES)
            else "not reproduced"
            if nowhere_lowest
            else "inconclusive"
        )
        out.append(
            [
                "7",
                "each non-baseline entry significantly dominates the others in at least one "
                "real setup",
                "real",
                rule,
                len(NON_BASELINES),
                found,
                len(nowhere_lowest),
                verdict,
                "for: entries that dominate somewhere"
                + "".join(f"; {name}: {', '.join(where)}" for name, where in dominating.items())
                + "; against: entries with the lowest mean in no real setup"
                + (f" ({', '.join(nowhere_lowest)})" if nowhere_lowest else " (none)"),
            ]
        )
    return out


def _first_problem(tables, dataset: str) -> str:
    problems = tables["per_setting"]["problem"]
    names = sorted(p for p in problems.unique() if p == dataset or p.startswith(f"{dataset}_c"))
    return names[0] if names else dataset


def setup_ranks(per_setting: pd.DataFrame, entries) -> pd.DataFrame:
    """Ranks of the entries' mean test MMCE in each real setup (problem, budget; a data set
    with several cost vectors by its first), where every entry ran: one column per entry."""
    real = per_setting[per_setting["kind"] == "real"]
    keep = {_first_problem({"per_setting": real}, p.split("_c")[0]) for p in real["problem"]}
    real = real[real["problem"].isin(keep)]
    real = real[[(m, s) in entries for m, s in zip(real["method"], real["strategy"], strict=True)]]
    if real.empty:
        return pd.DataFrame()
    means = real.pivot_table(
        index=["problem", "budget"], columns=["method", "strategy"], values="mean"
    ).dropna()
    return means[list(entries)].rank(axis=1, method="average")


def _bootstrap_share(ranks: pd.DataFrame, holds) -> float:
    """The share of bootstrap draws in which `holds` holds of the mean ranks, each draw a sample
    with replacement of the data sets, each data set with all its setups (a cluster bootstrap:
    the budgets of one data set share its rows)."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    data_sets = ranks.index.get_level_values("problem")
    clusters = [ranks.to_numpy()[data_sets == name] for name in data_sets.unique()]
    draws = rng.integers(0, len(clusters), size=(BOOTSTRAP_DRAWS, len(clusters)))
    return float(
        np.mean([holds(np.concatenate([clusters[i] for i in draw]).mean(axis=0)) for draw in draws])
    )


def _rank_claims(tables) -> list:
    entries = [*NON_BASELINES, *BASELINES]
    ranks = setup_ranks(tables["per_setting"], entries)
    if ranks.empty:
        return []
    n_non = len(NON_BASELINES)

    def baselines_behind(mean_ranks):
        return mean_ranks[n_non:].min() > mean_ranks[:n_non].max()

    def sts_pfi_lead(mean_ranks):
        sts_pfi = mean_ranks[[1, 2]]
        return sts_pfi.max() < mean_ranks[[0, 3]].min()

    out = []
    mean_ranks = ranks.mean().to_numpy()
    for claim, holds in (
        ("every baseline (-0) ranks behind every non-baseline entry", baselines_behind),
        ("STS and pFI lead the other non-baseline entries by mean rank", sts_pfi_lead),
    ):
        observed = bool(holds(mean_ranks))
        share = _bootstrap_share(ranks, holds)
        in_setups = int(sum(bool(holds(row)) for row in ranks.to_numpy()))
        verdict = (
            "reproduced"
            if observed and share >= BOOTSTRAP_LEVEL
            else "not reproduced"
            if not observed and share <= 1 - BOOTSTRAP_LEVEL
            else "inconclusive"
        )
        out.append(
            [
                "7",
                claim,
                "real",
                "bootstrap over data sets",
                len(ranks),
                in_setups,
                len(ranks) - in_setups,
                verdict,
                f"judged by the mean ranks, where it {'holds' if observed else 'does not hold'}; "
                f"statistic: the share of {BOOTSTRAP_DRAWS} bootstrap draws of the data sets "
                "(each with its budgets) in which it holds; for: setups whose own ranks hold it; "
                "against: the others",
                share,
            ]
        )
    return out


def _spambase_claims(tables) -> list:
    per_setting = tables["per_setting"]
    spam = per_setting[per_setting["problem"].str.startswith("spambase")]
    entries = list(PAPER_ENTRIES)
    spam = spam[[(m, s) in entries for m, s in zip(spam["method"], spam["strategy"], strict=True)]]
    if spam.empty:
        return []
    out = []
    changes_per_vector, best_by_vector, orders = [], [], []
    for _, rows in spam.groupby("problem"):
        best = rows.loc[rows.groupby("budget")["mean"].idxmin()].sort_values("budget")
        labels = [
            ENTRY_NAMES[(m, s)] for m, s in zip(best["method"], best["strategy"], strict=True)
        ]
        changes_per_vector.append(sum(a != b for a, b in zip(labels, labels[1:], strict=False)))
        ranks = rows.pivot_table(index="budget", columns=["method", "strategy"], values="mean")
        mean_ranks = ranks.rank(axis=1).mean()
        best_by_vector.append(ENTRY_NAMES[mean_ranks.idxmin()])
        orders.append(tuple(mean_ranks.sort_values(kind="stable").index))
    first = changes_per_vector[0]
    out.append(
        [
            "7",
            "on spambase the best entry changes along four of the five budgets",
            _first_problem(tables, "spambase"),
            "means",
            4,
            first,
            4 - first,
            "reproduced" if first >= 3 else "not reproduced",
            "for: budgets where the lowest mean moves to another entry",
        ]
    )
    favoured = sum(best == "pFI" for best in best_by_vector)
    out.append(
        [
            "7",
            "pFI is favoured on most of spambase's cost vectors",
            "spambase (each cost vector)",
            "means",
            len(best_by_vector),
            favoured,
            len(best_by_vector) - favoured,
            "reproduced" if favoured > len(best_by_vector) / 2 else "not reproduced",
            "for: cost vectors where pFI has the best mean rank over the budgets",
        ]
    )
    distinct = len(set(orders))
    out.append(
        [
            "7",
            "spambase's cost vectors give different rankings",
            "spambase (each cost vector)",
            "means",
            len(orders),
            distinct,
            len(orders) - distinct,
            "reproduced" if distinct > 1 else "not reproduced",
            "for: distinct orders of the five entries by mean rank over the budgets",
        ]
    )
    return out


def _n_reps(per_setting: pd.DataFrame, problems: str) -> int:
    """The fewest replicates of the paper's entries on the problems a claim is about (a
    problem group's label, a list of settings, or one problem)."""
    names = [name.strip() for name in problems.split(",")]
    if problems == "real":
        rows = per_setting["kind"] == "real"
    elif problems.startswith("spambase"):
        rows = per_setting["problem"].str.startswith("spambase")
    else:
        rows = per_setting["problem"].isin(names)
    paper = np.array(
        [
            (m, s) in ENTRY_NAMES
            for m, s in zip(per_setting["method"], per_setting["strategy"], strict=True)
        ]
    )
    counts = per_setting.loc[rows & paper, "n_reps"]
    return int(counts.min()) if len(counts) else 0


def verdicts(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every claim's verdict under each rule, from the findings tables (name -> DataFrame),
    with the replicates it rests on."""
    rows = [
        *_xi_claims(tables),
        *_tuning_claims(tables),
        *_strategy_budget_claims(tables),
        *_simulated_claims(tables),
        *_budget_claims(tables),
        *_cost_correlation_claims(tables),
        *_real_claims(tables),
        *_baseline_claims(tables),
        *_dominance_claims(tables),
        *_rank_claims(tables),
        *_spambase_claims(tables),
    ]
    padded = [row + [np.nan] * (len(COLUMNS) - len(row)) for row in rows]
    table = pd.DataFrame(padded, columns=COLUMNS).astype({"finding": int})
    table.insert(3, "n_reps", [_n_reps(tables["per_setting"], p) for p in table["problems"]])
    return table
