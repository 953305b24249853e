import numpy as np
import pandas as pd
import pytest

from costfs.core.costs import FeatureCosts
from costfs.study.aggregation import HELD_OUT_SHARE, choose_strategies, held_out_shares
from costfs.study.findings import (
    compare_methods,
    describe_problem,
    entry_ranks,
    method_differences,
    per_setting,
    selected_features,
    stage_costs,
    tuned_against_curves,
    tuning_gains,
    xi_curves,
)


def run(problem, rep, method, value, budget, oob, test, hyperparameter="xi"):
    dataset = {"A": "independent", "C": "correlated"}.get(problem, problem)
    kind = "real" if problem == "wdbc" else "simulated"
    return dict(
        problem=problem, kind=kind, dataset=dataset, rep=rep, method=method,
        hyperparameter=hyperparameter, hyperparameter_value=value, budget=budget,
        oob_mmce=oob, test_mmce=test, cost=budget / 2, n_selected=1,
    )  # fmt: skip


@pytest.fixture
def chosen():
    rows = []
    for problem in ("A", "C", "wdbc"):
        for rep in (1, 2, 3):
            noise = 0.01 * rep
            for budget in (1, 2):
                # xi = 2 has the lowest OOB error, so `tuned` picks it
                for value, test in ((0.0, 0.30), (1.0, 0.20), (2.0, 0.10)):
                    rows.append(run(problem, rep, "m1", value, budget, test, test + noise))
                rows.append(run(problem, rep, "m2", np.nan, budget, 0.15, 0.15, ""))
            if problem == "C":  # m3 runs on C only
                rows += [run("C", rep, "m3", np.nan, b, 0.05, 0.05, "") for b in (1, 2)]
    return choose_strategies(pd.DataFrame(rows), ["agnostic", "simple", "tuned"])


def test_tuning_gain_is_the_paired_difference_with_a_replicate_interval(chosen):
    gains = tuning_gains(chosen).set_index(["group", "method", "baseline"])
    assert list(gains.index.get_level_values("group").unique()) == [
        "independent",
        "correlated",
        "real",
    ]
    assert gains.loc[("real", "m1", "agnostic"), "mean"] == pytest.approx(0.2)
    assert gains.loc[("real", "m1", "simple"), "mean"] == pytest.approx(0.1)
    # the noise is shared by the strategies of a replicate: paired differences have no spread
    assert gains["ci_high"].sub(gains["ci_low"]).max() == pytest.approx(0.0)
    assert (gains["tuned_better"] == 1.0).all() and (gains["n_reps"] == 3).all()
    by_budget = tuning_gains(chosen, by=["budget"])
    assert len(by_budget) == 2 * len(gains)
    by_setting = tuning_gains(chosen, by=["problem", "budget"])
    assert len(by_setting) == 2 * len(gains) and set(by_setting["problem"]) == {"A", "C", "wdbc"}


def test_tuning_gains_carry_the_paired_test_and_the_papers_rule(chosen):
    by_setting = tuning_gains(chosen, by=["problem", "budget"])
    # m1's strategies share each replicate's noise: constant gains, never significant by the
    # paired test; their own intervals (0.30 / 0.20 / 0.10 + 0.01-0.03) are 0.1 apart with a
    # half-width of 2.5 SEs of 0.0058: separate by the paper's rule.
    assert by_setting["constant"].all() and (by_setting["p_value"] == 1.0).all()
    assert (by_setting["p_holm"] == 1.0).all() and by_setting["separate"].all()


def test_paired_p_values_are_the_one_sample_t_test_and_holm_works_per_family():
    from scipy import stats

    from costfs.study.aggregation import holm_adjusted, paired_p_values

    rng = np.random.default_rng(3)
    differences = rng.normal(0.01, 0.02, size=(6, 12))
    mean = differences.mean(axis=1)
    se = differences.std(axis=1, ddof=1) / np.sqrt(12)
    expected = stats.ttest_1samp(differences, 0.0, axis=1).pvalue
    np.testing.assert_allclose(paired_p_values(mean, se, 12), expected, rtol=1e-10)
    assert paired_p_values(0.02, 0.0, 12) == 1.0  # the same difference in every replicate
    assert np.isnan(paired_p_values(0.02, 0.0, 1))
    p = pd.Series([0.01, 0.02, 0.04, 0.01, 0.03])
    family = pd.Series(["a", "a", "a", "b", "b"])
    # Holm: the i-th smallest of m p values times (m - i + 1), made monotone
    np.testing.assert_allclose(holm_adjusted(p, [family]), [0.03, 0.04, 0.04, 0.02, 0.03])
    np.testing.assert_allclose(holm_adjusted(p), [0.05, 0.06, 0.06, 0.05, 0.06])


def test_methods_are_ranked_on_the_cells_where_all_ran(chosen):
    table = compare_methods(chosen).set_index(["group", "method"])
    assert table.loc[("independent", "m1"), "mean_rank"] == 1.0
    assert table.loc[("independent", "m2"), "mean_rank"] == 2.0
    # on C, m3 (0.05) beats m1 (0.10 + noise) and m2 (0.15)
    assert table.loc[("correlated", "m3"), "mean_rank"] == 1.0
    assert table.loc[("correlated", "m2"), "mean_rank"] == 3.0
    assert table.loc[("independent", "m1"), "mean"] == pytest.approx(0.12)
    assert (
        table.loc[("independent", "m1"), "ci_low"]
        < 0.12
        < table.loc[("independent", "m1"), "ci_high"]
    )
    common = compare_methods(chosen, ["m1", "m2"]).set_index(["group", "method"])
    assert ("correlated", "m3") not in common.index
    assert common.loc[("correlated", "m2"), "mean_rank"] == 2.0


def test_stage_costs_sum_the_benchmark_records_per_rule_and_method():
    timings = pd.DataFrame(
        {
            "job": [
                "benchmarks/prepare_method/sts/independent/rep~1",
                "benchmarks/select_features/sts/A/rep~1",
                "benchmarks/select_features/sts/A/rep~2",
                "benchmarks/select_features/auc/A/rep~1",
            ],
            "s": [3600.0, 1800.0, 5400.0, 36.0],
            "cpu_time": [7200.0, 1800.0, 3600.0, 36.0],
            "max_rss": [100.0, 300.0, 200.0, 50.0],
        }
    )
    table = stage_costs(timings, n_rep=2).set_index(["rule", "method"])
    assert list(table.index) == [
        ("prepare_method", "sts"),
        ("select_features", "auc"),
        ("select_features", "sts"),
    ]
    sts = table.loc[("select_features", "sts")]
    assert sts["jobs"] == 2 and sts["wall_hours"] == pytest.approx(2.0)
    assert sts["wall_hours_per_rep"] == pytest.approx(1.0)
    assert sts["cpu_hours"] == pytest.approx(1.5)
    assert sts["max_job_seconds"] == 5400.0 and sts["max_rss_mb"] == 300.0
    assert table.loc[("prepare_method", "sts"), "cpu_hours"] == pytest.approx(2.0)
    assert stage_costs(pd.DataFrame(), n_rep=2).empty


def test_per_setting_rows_have_a_t_interval_over_the_replicates(chosen):
    table = per_setting(chosen).set_index(["problem", "budget", "method", "strategy"]).sort_index()
    tuned = table.loc[("A", 1, "m1", "tuned")]
    # test MMCE 0.10 + 0.01 * rep over reps 1..3
    assert tuned["n_reps"] == 3 and tuned["mean"] == pytest.approx(0.12)
    se = np.std([0.11, 0.12, 0.13], ddof=1) / np.sqrt(3)
    assert tuned["se"] == pytest.approx(se)
    assert tuned["ci_high"] == pytest.approx(0.12 + 4.302653 * se)  # t(0.975, 2)
    assert len(table.loc[("C", 2, "m3")]) == 1  # m3 ran on C only, with its one strategy
    assert len(table) == len(chosen.groupby(["problem", "budget", "method", "strategy"]))


def test_a_problem_is_described_by_its_data_and_costs():
    rng = np.random.default_rng(0)
    base = rng.normal(size=400)
    X = np.column_stack([base, base + 0.01 * rng.normal(size=400), rng.normal(size=400)])
    X = np.column_stack([X, np.ones(400)])  # a constant column has no correlation
    y = np.r_[np.zeros(300, dtype=int), np.ones(100, dtype=int)]
    costs = FeatureCosts.grouped([0.5, 0.2, 1.0, 0.3], ["blood", "blood", None, None], {"blood": 2})
    row = describe_problem(X, y, costs)
    assert (row["rows"], row["features"], row["classes"]) == (400, 4, 2)
    assert row["smallest_class_share"] == 0.25
    # pairs (0, 1) ~ 1, (0, 2) and (1, 2) ~ 0
    assert row["mean_abs_correlation"] == pytest.approx(1 / 3, abs=0.05)
    assert (row["cost_min"], row["cost_max"]) == (0.3, 2.5)
    assert row["cost_all"] == pytest.approx(4.0) and row["cost_groups"] == 1


def test_xi_curves_mark_each_curve_minimum(chosen):
    runs = chosen[chosen["strategy"] != "tuned"].drop(columns="strategy")
    runs = pd.concat([runs, chosen[chosen["hyperparameter_value"] == 2.0]]).drop_duplicates(
        ["problem", "rep", "method", "budget", "hyperparameter_value"]
    )
    curves = xi_curves(runs).set_index(["problem", "budget", "method", "xi"])
    assert curves.loc[("A", 1, "m1", 0.0), "mean"] == pytest.approx(0.32)
    assert curves.loc[("A", 1, "m1", 2.0), "is_minimum"]
    assert not curves.loc[("A", 1, "m1", 1.0), "is_minimum"]
    assert "m2" not in curves.index.get_level_values("method")  # no xi


def test_tuned_xi_is_compared_with_the_curves_best_point_in_hindsight():
    rows = []
    for rep in (1, 2, 3):
        for value, test in ((0.0, 0.30), (1.0, 0.20), (2.0, 0.10), (3.0, 0.10)):
            # OOB picks xi = 1 in replicates 1 and 2, xi = 2 in replicate 3
            oob = 0.0 if value == (2.0 if rep == 3 else 1.0) else 0.5
            rows.append(run("A", rep, "m1", value, 1, oob, test + 0.01 * rep))
    runs = pd.DataFrame(rows)
    chosen = choose_strategies(runs, ["tuned"])
    row = tuned_against_curves(chosen, runs).iloc[0]
    # minima tie at xi = 2 and 3 (0.12): the smallest is the best xi, both counted
    assert (row["best_xi"], row["n_minima"]) == (2.0, 2)
    assert row["curve_minimum"] == pytest.approx(0.12) and not row["below_curve"]
    # tuned minus the best point: 0.1, 0.1, 0 over the replicates
    assert row["mean"] == pytest.approx(0.2 / 3) and row["n_reps"] == 3
    assert not row["constant"] and 0 < row["p_value"] < 1 and row["p_holm"] == row["p_value"]


def paper_runs():
    """Setting C and real data, 3 replicates, one budget: the paper's methods and one other.
    On C auc beats pfi by 0.04-0.06 depending on the replicate; `other` is pfi + 0.01."""
    rows = []
    for problem in ("C", "wdbc"):
        for rep in (1, 2, 3):
            base = {"auc": 0.20, "pfi": 0.25 + 0.01 * (rep - 2) ** 2, "sts": 0.30, "fs": 0.40}
            for method, test in base.items():
                for value in (0.0, 1.0):
                    # xi = 1 is tuned (lower OOB error) and better by 0.02
                    rows.append(run(problem, rep, method, value, 1, 0.5 - value, test - value / 50))
            rows.append(run(problem, rep, "other", np.nan, 1, 0.3, base["pfi"] - 0.01, ""))
    return choose_strategies(pd.DataFrame(rows), ["agnostic", "simple", "tuned"])


def test_method_differences_are_paired_within_runs():
    table = method_differences(paper_runs())
    table = table.set_index(["problem", "method", "strategy", "versus_method", "versus_strategy"])
    auc_pfi = table.loc[("C", "auc", "tuned", "pfi", "tuned")]
    # differences -0.06, -0.05, -0.06 over the replicates
    assert auc_pfi["mean"] == pytest.approx(-0.17 / 3) and auc_pfi["n_reps"] == 3
    assert auc_pfi["lower"] and not auc_pfi["higher"]
    # FS-0 minus FS-1: +0.02 in every run, no spread: nothing to test, never significant
    fs = table.loc[("C", "fs", "agnostic", "fs", "simple")]
    assert fs["mean"] == pytest.approx(0.02) and fs["constant"] and not fs["higher"]
    # another method meets the recommended entries only
    other = table.xs("other", level="method")
    assert set(other.index.get_level_values("versus_method")) == {"pfi", "sts"}
    assert other.loc[("C", "fixed", "pfi", "tuned"), "mean"] == pytest.approx(0.01)
    # two problems: 10 paper pairs, xi = 0 against 1 for auc, pfi, sts and 2 for `other`
    assert len(table) == 2 * (10 + 3 + 2)
    # The paper's rule, on the entries' own intervals over the replicates: auc (0.18 in every
    # replicate) lies below pfi's [0.222, 0.251]; `other` (pfi + 0.01 in every replicate)
    # overlaps it, and their constant difference is no evidence either.
    assert auc_pfi["separate"]
    versus_pfi = other.loc[("C", "fixed", "pfi", "tuned")]
    assert not versus_pfi["separate"] and versus_pfi["constant"] and not versus_pfi["higher"]
    # the paired test behind `lower`, Holm-corrected over a comparison's setups in a group
    assert auc_pfi["p_value"] < 0.05 and auc_pfi["p_holm"] == auc_pfi["p_value"]
    assert versus_pfi["p_value"] == 1.0


def test_entry_ranks_rank_setup_means_like_the_paper():
    ranks = entry_ranks(paper_runs())
    paper = ranks[(ranks["ranking"] == "paper") & (ranks["group"] == "real")]
    assert paper["entries"].eq(8).all() and len(paper) == 8
    by_entry = paper.set_index("entry")["mean_rank"]
    # tuned (xi = 1) is better by 0.02 than xi = 0: auc, auc-0, pfi, pfi-0, sts, ...
    assert by_entry["auc"] == 1 and by_entry["auc-0"] == 2 and by_entry["fs-0"] == 8
    everything = ranks[(ranks["ranking"] == "all") & (ranks["group"] == "real")]
    # other (pfi's xi = 0 error - 0.01) ranks between pfi and pfi-0
    assert everything.set_index("entry")["mean_rank"]["other"] == 4


def test_selected_features_profile_informative_share_and_blocks():
    design = {
        "mu": np.array([1.0, 0.0, 0.0, 0.5]),
        "sigma_correlated": np.array(
            [[1, 0.5, 0, 0], [0.5, 1, 0, 0], [0, 0, 1, 0.3], [0, 0, 0.3, 1]], dtype=float
        ),
    }
    rows = [
        run("C", rep, "m", np.nan, 1, 0.2, 0.2, "") | {"features": features, "n_selected": 2}
        for rep, features in ((1, [0, 1]), (2, [0, 2]))
    ]
    chosen = choose_strategies(pd.DataFrame(rows), ["tuned"])
    profile = selected_features(chosen, design).iloc[0]
    assert profile["share_informative"] == 0.5
    assert profile["abs_mu_sum"] == 1.0
    # rep 1: the null feature 1 shares feature 0's block; rep 2: feature 2 does not
    assert profile["share_null_in_informative_block"] == 0.5
    assert selected_features(chosen, None).empty


def test_entry_ranks_count_a_data_set_with_several_cost_vectors_once():
    runs = paper_runs()
    repetition = runs[runs["problem"] == "wdbc"].assign(problem="wdbc_c2")
    # on the second cost vector the order of the entries is reversed
    repetition["test_mmce"] = 1 - repetition["test_mmce"]
    ranks = entry_ranks(pd.concat([runs, repetition], ignore_index=True))
    expected = entry_ranks(runs)
    pd.testing.assert_frame_equal(ranks, expected)


def test_paired_findings_on_real_data_use_the_corrected_resampled_standard_error():
    """The paired differences of a real data set's replicates (method differences, tuning
    gains, tuned against the curve) and the entries' own intervals behind the paper's rule get
    Nadeau & Bengio's sd * sqrt(1/n + n_test/n_train); a simulated setting keeps sd / sqrt(n)."""
    runs = paper_runs()
    runs = runs.assign(**{HELD_OUT_SHARE: held_out_shares(runs["kind"], 2 / 3)})
    plain = method_differences(paper_runs()).set_index(["problem", "method", "versus_method"])
    corrected = method_differences(runs).set_index(["problem", "method", "versus_method"])
    auc_pfi = ("wdbc", "auc", "pfi")
    factor = np.sqrt(1 + 3 * 0.5)  # sqrt(1/n + 0.5) / sqrt(1/n), n = 3
    assert corrected.loc[auc_pfi, "se"] == pytest.approx(plain.loc[auc_pfi, "se"] * factor)
    assert corrected.loc[auc_pfi, "p_value"] > plain.loc[auc_pfi, "p_value"]
    on_c = ("C", "auc", "pfi")
    assert corrected.loc[on_c, "se"] == plain.loc[on_c, "se"]
    # auc at 0.215 against pfi's 0.24, 0.23, 0.24: pfi's own interval starts at 0.222 with
    # sd / sqrt(n) (apart), at 0.214 corrected (overlapping)
    closer = runs.assign(
        test_mmce=runs["test_mmce"].where(
            (runs["problem"] != "wdbc") | (runs["method"] != "auc"), runs["test_mmce"] + 0.035
        )
    )
    for shares, separate in ((0.0, True), (0.5, False)):
        table = method_differences(
            closer.assign(**{HELD_OUT_SHARE: closer[HELD_OUT_SHARE] * 2 * shares})
        )
        row = table.set_index(["problem", "method", "versus_method"]).loc[auc_pfi]
        assert bool(row["separate"]) is separate
    gains = tuning_gains(runs, by=["problem", "budget"]).set_index(["problem", "method"])
    plain_gains = tuning_gains(paper_runs(), by=["problem", "budget"])
    plain_gains = plain_gains.set_index(["problem", "method"])
    assert (gains.loc["wdbc", "se"] >= plain_gains.loc["wdbc", "se"]).all()
