"""Comparisons across real problems, as a benchmark over data sets is read (Demsar 2006): per
budget level, the Friedman test of the methods' ranks with the Nemenyi post-hoc test and its
critical difference, and a Bayesian signed-rank comparison (Benavoli et al. 2017, baycomp)
with a region of practical equivalence for the pairs the findings discuss.

The blocks are the real problems: a problem's figure for a method is its test MMCE at the
method's best strategy (tuned, else fixed; the caller passes those rows) averaged over the
replicates. Problems have budgets of their own, so they are matched by budget level: level 1
is each problem's smallest budget, level 2 the next, and so on. A level compares the methods
that ran on all of its problems, and needs at least `MIN_RANKED_PROBLEMS` problems and 3
methods (the Friedman test's minimum).

Multiple comparisons: the Nemenyi test controls the family-wise error over all pairs of a level
(its p-values are adjusted by construction); the levels are separate families, each at
`ALPHA`. The Bayesian comparison gives posterior probabilities, not tests: nothing is called
significant there.
"""

from collections.abc import Sequence

import numpy as np
import pandas as pd

from costfs.study.figure_outputs import MIN_RANKED_PROBLEMS

ALPHA = 0.05
ROPE = 0.01
"""Region of practical equivalence of the Bayesian comparison: one point of MMCE."""
POSTERIOR_SAMPLES = 50_000
POSTERIOR_SEED = 0


def level_blocks(best: pd.DataFrame, value: str = "test_mmce") -> dict[int, pd.DataFrame]:
    """Per budget level, the (problem x method) table of mean `value` over replicates on the
    real problems (`best`: rows of the runs table, or of the summary with `value="mmce_mean"`,
    one strategy per method), for the methods that ran on all of the level's problems (columns
    named by method, rows by problem); levels with fewer than `MIN_RANKED_PROBLEMS` problems or
    3 methods are left out."""
    rows = best[best["kind"] == "real"]
    if rows.empty:
        return {}
    budgets = rows.groupby("problem")["budget"].transform(
        lambda b: b.rank(method="dense").astype(int)
    )
    means = (
        rows.assign(level=budgets)
        .groupby(["level", "problem", "method"], observed=True)[value]
        .mean()
    )
    blocks = {}
    for level, table in means.groupby(level="level"):
        wide = table.droplevel("level").unstack("method").dropna(axis=1)
        if len(wide) >= MIN_RANKED_PROBLEMS and wide.shape[1] >= 3:
            blocks[int(level)] = wide
    return blocks


def critical_difference(n_methods: int, n_problems: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of mean ranks: q_alpha sqrt(k (k + 1) / (6 N)), q_alpha the
    studentized range quantile (infinite degrees of freedom) over sqrt(2)."""
    from scipy import stats

    q = stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2)
    return float(q * np.sqrt(n_methods * (n_methods + 1) / (6 * n_problems)))


def mean_ranks(block: pd.DataFrame) -> pd.Series:
    """Each method's rank averaged over the problems (1 = lowest MMCE; ties share the mean)."""
    return block.rank(axis=1, method="average").mean()


def friedman_tests(best: pd.DataFrame, value: str = "test_mmce") -> pd.DataFrame:
    """Per budget level: the Friedman test (chi-square and Iman-Davenport's F) of the methods'
    ranks over the real problems (`level_blocks` of `value`), and Nemenyi's critical
    difference."""
    from scipy import stats

    rows = []
    for level, block in level_blocks(best, value).items():
        n_problems, n_methods = block.shape
        chi2, p_chi2 = stats.friedmanchisquare(*block.to_numpy().T)
        # Iman and Davenport's F, less conservative than the chi-square (Demsar 2006, eq. 2).
        f = (n_problems - 1) * chi2 / (n_problems * (n_methods - 1) - chi2)
        df = (n_methods - 1, (n_methods - 1) * (n_problems - 1))
        rows.append(
            {
                "budget_level": level,
                "n_problems": n_problems,
                "n_methods": n_methods,
                "chi2": chi2,
                "p_chi2": p_chi2,
                "iman_davenport_f": f,
                "p_f": float(stats.f.sf(f, *df)) if np.isfinite(f) else 0.0,
                "critical_difference": critical_difference(n_methods, n_problems),
                "alpha": ALPHA,
            }
        )
    columns = ["budget_level", "n_problems", "n_methods", "chi2", "p_chi2", "iman_davenport_f"]
    return pd.DataFrame(rows, columns=columns + ["p_f", "critical_difference", "alpha"])


def nemenyi_p_values(block: pd.DataFrame) -> pd.DataFrame:
    """Nemenyi's family-wise adjusted p-value of every pair of a level's methods
    (scikit-posthocs; methods x methods)."""
    import scikit_posthocs

    return scikit_posthocs.posthoc_nemenyi_friedman(block.reset_index(drop=True))


def nemenyi_tests(best: pd.DataFrame, value: str = "test_mmce") -> pd.DataFrame:
    """Per budget level and pair of methods: their mean ranks and Nemenyi's family-wise
    adjusted p-value; `significant` at `ALPHA` over the level's pairs."""
    rows = []
    for level, block in level_blocks(best, value).items():
        ranks = mean_ranks(block)
        p_values = nemenyi_p_values(block)
        methods = list(block.columns)
        for i, first in enumerate(methods):
            for second in methods[i + 1 :]:
                rows.append(
                    {
                        "budget_level": level,
                        "method": first,
                        "other": second,
                        "mean_rank": ranks[first],
                        "other_mean_rank": ranks[second],
                        "p_nemenyi": float(p_values.loc[first, second]),
                    }
                )
    table = pd.DataFrame(
        rows,
        columns=["budget_level", "method", "other", "mean_rank", "other_mean_rank", "p_nemenyi"],
    )
    table["significant"] = table["p_nemenyi"] < ALPHA
    return table


def bayesian_comparisons(
    best: pd.DataFrame, methods: Sequence[str], value: str = "test_mmce", rope: float = ROPE
) -> pd.DataFrame:
    """Per budget level, each of `methods` against every other method of the level: the
    Bayesian signed-rank test's posterior probabilities that it has the lower `value` by more
    than `rope`, that the two are within `rope`, and that it has the higher."""
    import baycomp

    rows = []
    for level, block in level_blocks(best, value).items():
        for method in (m for m in methods if m in block.columns):
            for other in (m for m in block.columns if m != method):
                # baycomp's "right": the second sample's values are the larger.
                higher, equivalent, lower = baycomp.SignedRankTest.probs(
                    block[method].to_numpy(),
                    block[other].to_numpy(),
                    rope=rope,
                    nsamples=POSTERIOR_SAMPLES,
                    random_state=POSTERIOR_SEED,
                )
                rows.append(
                    {
                        "budget_level": level,
                        "method": method,
                        "other": other,
                        "n_problems": len(block),
                        "rope": rope,
                        "p_lower": lower,
                        "p_equivalent": equivalent,
                        "p_higher": higher,
                    }
                )
    columns = ["budget_level", "method", "other", "n_problems", "rope", "p_lower"]
    return pd.DataFrame(rows, columns=columns + ["p_equivalent", "p_higher"])
