"""The comparisons across real problems against a hand-computed example: 4 problems x 3
methods whose ranks are, per problem, (1, 2, 3), (1, 3, 2), (2, 1, 3) and (1, 2, 3)."""

import numpy as np
import pandas as pd
import pytest

from costfs.study import comparisons

MMCE = {"a": [0.1, 0.1, 0.2, 0.1], "b": [0.2, 0.3, 0.1, 0.2], "c": [0.3, 0.2, 0.3, 0.3]}


def runs(mmce=MMCE, problems=("p1", "p2", "p3", "p4"), n_reps=2) -> pd.DataFrame:
    """Best-strategy rows of a runs table: every problem at budgets 1 and 2 (level 2 repeats
    level 1's numbers), `n_reps` replicates scattered evenly around the means above."""
    rows = []
    for method, values in mmce.items():
        for problem, value in zip(problems, values, strict=True):
            for budget in (1.0, 2.0):
                for rep in range(n_reps):
                    scatter = 0.01 * (rep - (n_reps - 1) / 2)
                    rows.append(
                        {
                            "problem": problem,
                            "kind": "real",
                            "budget": budget * (2 if problem == "p4" else 1),
                            "rep": rep,
                            "method": method,
                            "strategy": "tuned",
                            "test_mmce": value + scatter,
                        }
                    )
    return pd.DataFrame(rows)


def test_mean_ranks_friedman_statistic_and_critical_difference_match_the_hand_computation():
    blocks = comparisons.level_blocks(runs())
    assert sorted(blocks) == [1, 2]  # p4's budgets 2 and 4 are its levels 1 and 2
    block = blocks[1]
    assert block.shape == (4, 3)
    np.testing.assert_allclose(comparisons.mean_ranks(block)[["a", "b", "c"]], [1.25, 2.0, 2.75])
    table = comparisons.friedman_tests(runs())
    row = table.iloc[0]
    # chi2 = 12 N / (k (k + 1)) * (sum R_j^2 - k (k + 1)^2 / 4) = 4 * (13.125 - 12)
    assert row["chi2"] == pytest.approx(4.5)
    # F = (N - 1) chi2 / (N (k - 1) - chi2) = 3 * 4.5 / (8 - 4.5)
    assert row["iman_davenport_f"] == pytest.approx(13.5 / 3.5)
    # CD = q_0.05(k = 3) sqrt(k (k + 1) / (6 N)), q_0.05 = 2.343 (Demsar 2006, Table 5a)
    assert row["critical_difference"] == pytest.approx(2.343 * np.sqrt(12 / 24), abs=1e-3)
    assert (row["n_problems"], row["n_methods"]) == (4, 3)


def test_nemenyi_separates_no_pair_closer_than_the_critical_difference():
    table = comparisons.nemenyi_tests(runs())
    level = table[table["budget_level"] == 1].set_index(["method", "other"])
    # a and c differ by 1.5 < CD 1.657: not significant; their q statistic is 1.5 / sqrt(0.5)
    # times sqrt(2) = 3.0 on the studentized range with 3 groups
    assert level.loc[("a", "c"), "p_nemenyi"] == pytest.approx(0.0855, abs=1e-3)
    assert not level["significant"].any()


def test_too_few_problems_or_methods_give_no_comparison():
    assert (
        comparisons.friedman_tests(
            runs(problems=("p1", "p2", "p3"), mmce={m: v[:3] for m, v in MMCE.items()})
        ).shape[0]
        == 2
    )
    two_problems = {m: v[:2] for m, v in MMCE.items()}
    assert comparisons.friedman_tests(runs(two_problems, problems=("p1", "p2"))).empty
    two_methods = {m: MMCE[m] for m in ("a", "b")}
    assert comparisons.nemenyi_tests(runs(two_methods)).empty


def test_the_bayesian_comparison_puts_a_clearly_better_method_below_the_other():
    better = {"a": [0.10, 0.12, 0.11, 0.09], "b": [0.2, 0.25, 0.22, 0.3], "c": [0.3] * 4}
    table = comparisons.bayesian_comparisons(runs(better), ["a"])
    row = table[(table["budget_level"] == 1) & (table["other"] == "b")].iloc[0]
    assert row["p_lower"] > 0.9 and row["p_higher"] < 0.05
    np.testing.assert_allclose(row[["p_lower", "p_equivalent", "p_higher"]].sum(), 1.0)
    assert table.equals(comparisons.bayesian_comparisons(runs(better), ["a"]))  # seeded


def test_the_reproductions_benchmark_counts_spambase_once_and_uses_a_relative_rope():
    """Spambase's cost vectors are one block (their mean), each family names its entries, and
    the Bayesian comparison judges MMCE relative to the setup's: a 3% difference on a data set
    with errors near 0.01 is equivalent under the relative ROPE of 5%."""
    from costfs.study.reproduction import BENCHMARK_ROPE, benchmark_entries

    rows = []
    problems = ["wdbc", "ada", "spambase_c1", "spambase_c2"]
    for problem, scale in zip(problems, [0.01, 0.2, 0.1, 0.3], strict=True):
        for method, strategy, factor in (
            ("auc", "tuned", 1.0),
            ("pfi", "tuned", 1.03),
            ("sts", "tuned", 1.5),
            ("fs", "agnostic", 2.0),
            ("fs", "simple", 2.5),
            ("fs", "tuned", 0.5),  # not a paper entry: left out
            ("boruta", "fixed", 3.0),
        ):
            rows.append(("real", problem, 1, method, strategy, scale * factor))
    per_setting = pd.DataFrame(
        rows, columns=["kind", "problem", "budget", "method", "strategy", "mean"]
    )
    paper = benchmark_entries(per_setting, "paper")
    assert sorted(paper["method"].unique()) == ["AUC", "FS-0", "FS-1", "STS", "pFI"]
    assert set(paper["problem"]) == {"wdbc", "ada", "spambase"}
    assert "boruta" in set(benchmark_entries(per_setting, "all")["method"])
    (block,) = comparisons.level_blocks(paper, "mean").values()
    assert block.loc["spambase", "AUC"] == pytest.approx(0.2)  # (0.1 + 0.3) / 2
    relative = paper[paper["problem"] == "wdbc"].set_index("method")["relative"]
    assert relative["pFI"] / relative["AUC"] == pytest.approx(1.03)
    bayesian = comparisons.bayesian_comparisons(paper, ["AUC"], "relative", BENCHMARK_ROPE)
    versus = bayesian.set_index("other")
    assert versus.loc["pFI", "p_equivalent"] > 0.9 and versus.loc["FS-1", "p_lower"] > 0.5
