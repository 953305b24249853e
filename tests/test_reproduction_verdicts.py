"""The rules that turn the findings tables into the reproduction's verdicts
(`costfs.study.verdicts`)."""

import pandas as pd

from costfs.study.verdicts import (
    RULES,
    _better_verdict,
    _entry_comparisons,
    _neither_verdict,
    _tally,
    _tuning_claims,
)


def differences(means, separate, p_holm):
    """pFI minus STS on setting C, one row per budget."""
    return pd.DataFrame(
        {
            "group": "correlated",
            "problem": "C",
            "budget": range(1, len(means) + 1),
            "method": "pfi",
            "strategy": "tuned",
            "versus_method": "sts",
            "versus_strategy": "tuned",
            "mean": means,
            "separate": separate,
            "p_holm": p_holm,
            "n_reps": 50,
        }
    )


def test_a_claim_is_reproduced_only_by_a_majority_of_significant_setups():
    assert _better_verdict(setups=10, better=6, worse=0) == "reproduced"
    assert _better_verdict(setups=10, better=5, worse=0) == "inconclusive"
    assert _better_verdict(setups=10, better=2, worse=2) == "not reproduced"
    assert _better_verdict(setups=10, better=0, worse=0) == "inconclusive"
    assert _neither_verdict(setups=10, better=5, worse=5) == "reproduced"
    assert _neither_verdict(setups=10, better=6, worse=0) == "not reproduced"


def test_the_rules_count_significant_setups_in_the_claims_direction():
    # pFI - STS: STS better where the difference is positive
    rows = differences(
        means=[0.02, 0.01, -0.01, 0.0],
        separate=[True, False, True, False],
        p_holm=[0.001, 0.01, 0.2, 1.0],
    )
    assert _tally(rows, RULES[0], sign=-1) == (4, 1, 1)  # STS first: separate at 1 and 3
    assert _tally(rows, RULES[1], sign=-1) == (4, 2, 0)  # paired: budgets 1 and 2
    # the constant difference of budget 4 (p = 1) counts under neither rule
    assert _tally(rows, RULES[1], sign=1) == (4, 0, 2)


def test_a_claim_finds_its_pair_whichever_way_the_table_holds_it():
    tables = {
        "method_differences": differences(
            means=[0.02, 0.03, 0.01], separate=[True, True, False], p_holm=[0.01, 0.01, 0.3]
        )
    }
    sts, pfi = ("sts", "tuned"), ("pfi", "tuned")
    rows = _entry_comparisons(
        tables, "4", "correlated", [(sts, pfi, _better_verdict, "STS beats pFI")]
    )
    by_rule = {row[3]: row for row in rows}
    assert by_rule[RULES[0]][4:8] == [3, 2, 0, "reproduced"]
    assert by_rule[RULES[1]][4:8] == [3, 2, 0, "reproduced"]


def test_the_curve_claim_counts_the_papers_methods_only():
    """The paper's "tuned is generally lower than any point on the curves" is about AUC, pFI
    and STS: the related methods that tune xi (here FeatBoost, worse than its curve
    everywhere) do not enter its setups."""
    rows = differences(means=[-0.01, -0.02], separate=[True, True], p_holm=[0.01, 0.01])
    curves = pd.concat([rows, rows.assign(method="featboost", mean=0.03)])
    tuning = rows.assign(mean=0.01, baseline="agnostic")
    claims = _tuning_claims({"tuned_against_curves": curves, "tuning_by_setting": tuning})
    curve_claims = [row for row in claims if "any point" in row[1] and row[2] == "C, D"]
    assert [row[4:8] for row in curve_claims] == [[2, 2, 0, "reproduced"]] * 2
