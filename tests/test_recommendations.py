"""What a study recommends: the stability index, the consensus set, the verdicts."""

import numpy as np
import pandas as pd
import pytest

from costfs.core.costs import FeatureCosts
from costfs.study.aggregation import HELD_OUT_SHARE
from costfs.study.recommendations import consensus_set, recommendations, verdicts
from costfs.study.stability import nogueira_stability


def test_identical_sets_are_perfectly_stable():
    assert nogueira_stability([[0, 3], [0, 3], [0, 3]], 10) == (1.0, 1.0, 1.0)


def test_stability_is_one_minus_the_features_unbiased_variance_over_its_chance_value():
    rng = np.random.default_rng(1)
    sets = [rng.choice(12, size=rng.integers(1, 6), replace=False) for _ in range(7)]
    selected = np.zeros((7, 12))
    for row, features in enumerate(sets):
        selected[row, features] = 1
    share = selected.sum(axis=1).mean() / 12
    expected = 1 - selected.var(axis=0, ddof=1).mean() / (share * (1 - share))
    assert nogueira_stability(sets, 12)[0] == pytest.approx(expected)


def test_random_sets_of_one_size_have_stability_near_zero():
    rng = np.random.default_rng(2)
    values = [
        nogueira_stability([rng.choice(20, 5, replace=False) for _ in range(10)], 20)[0]
        for _ in range(300)
    ]
    assert abs(np.mean(values)) < 0.02


def test_the_interval_covers_the_population_stability_about_95_percent_of_the_time():
    # Features drawn independently with these probabilities: the population stability is
    # 1 - mean p(1 - p) / (k/d (1 - k/d)) with k/d the mean probability.
    rng = np.random.default_rng(3)
    p = np.array([0.95, 0.9, 0.8, 0.6, 0.3, 0.1, 0.05, 0.05, 0.02, 0.02])
    share = p.mean()
    population = 1 - np.mean(p * (1 - p)) / (share * (1 - share))
    covered = []
    for _ in range(400):
        draws = rng.random((40, p.size)) < p
        _, low, high = nogueira_stability([np.flatnonzero(row) for row in draws], p.size)
        covered.append(low <= population <= high)
    assert 0.9 <= np.mean(covered) <= 0.99


def test_stability_is_undefined_for_one_set_or_only_empty_sets():
    assert np.isnan(nogueira_stability([[1, 2]], 5)[0])
    assert np.isnan(nogueira_stability([[], []], 5)[0])


def test_the_consensus_keeps_majority_features_most_frequent_first_within_the_budget():
    # 0 and 1 share a draw (cost 2 once), 2 costs 1.5, 3 costs 0.5.
    costs = FeatureCosts.grouped(
        np.array([0.0, 0.0, 1.5, 0.5]), ["draw", "draw", "", ""], {"draw": 2.0}
    )
    selections = [[0, 1, 3], [0, 1, 2], [0, 2, 3], [0, 1]]
    features, frequency = consensus_set(selections, costs, budget=3.0)
    np.testing.assert_allclose(frequency, [1.0, 0.75, 0.5, 0.5])
    # 0 (2.0), 1 (its draw already paid), then 3 (0.5, cheaper than 2 at the same share);
    # 2 would bring the set to 4.0.
    assert features == [0, 1, 3]
    assert costs.total(features) == pytest.approx(2.5)


def _runs(errors: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "kind": "real",
                "problem": "p",
                "budget": 2.0,
                "method": method,
                "strategy": "tuned",
                "rep": rep,
                "test_mmce": error,
                "features": [0, 1] if rep % 2 else [0],
                "cost": 1.0,
            }
            for method, values in errors.items()
            for rep, error in enumerate(values, start=1)
        ]
    )


def test_a_method_is_best_only_when_it_beats_every_other_significantly():
    rng = np.random.default_rng(4)
    base = rng.uniform(0.2, 0.3, 10)
    clear = _runs({"a": base, "b": base + 0.05 + rng.normal(0, 0.005, 10)})
    assert verdicts(clear).to_dict() == {
        ("real", "p", 2.0, "a", "tuned"): "best",
        ("real", "p", 2.0, "b", "tuned"): "worse",
    }
    close = _runs({"a": base, "b": base + rng.normal(0, 0.02, 10), "c": base + 0.1})
    assert verdicts(close).to_dict() == {
        ("real", "p", 2.0, "a", "tuned"): "no significant difference",
        ("real", "p", 2.0, "b", "tuned"): "no significant difference",
        ("real", "p", 2.0, "c", "tuned"): "worse",
    }


def test_on_resampled_real_data_the_paired_test_is_corrected_for_overlapping_splits():
    """A difference of 2.5 naive standard errors over 10 splits: significant as if the splits
    were independent, not once the corrected resampled t (Nadeau & Bengio) inflates the
    variance by n · n_test/n_train + 1 = 6."""
    differences = np.array([0.01, 0.03, -0.01, 0.02, 0.04, 0.0, 0.02, 0.01, 0.03, 0.02])
    differences = differences - differences.mean() + 2.5 * differences.std(ddof=1) / np.sqrt(10)
    base = np.linspace(0.2, 0.3, 10)
    runs = _runs({"a": base, "b": base + differences})
    assert set(verdicts(runs).values) == {"best", "worse"}
    assert set(verdicts(runs.assign(**{HELD_OUT_SHARE: 0.5})).values) == {
        "no significant difference"
    }


def test_a_difference_without_variance_is_not_significant():
    base = np.linspace(0.2, 0.3, 6)
    assert set(verdicts(_runs({"a": base, "b": base + 0.01})).values) == {
        "no significant difference"
    }


def test_recommendations_name_the_features_with_their_frequencies_cost_and_interval():
    base = np.linspace(0.2, 0.3, 4)
    table = recommendations(
        _runs({"a": base, "b": base + 0.05}),
        {"p": ["age", "glucose", "bmi"]},
        {"p": FeatureCosts.ungrouped([1.0, 1.0, 1.0])},
    )
    first = table.iloc[0]
    assert (first["method"], first["features"], first["frequencies"]) == (
        "a",
        "age; glucose",
        "1.00; 0.50",
    )
    assert first["cost"] == 2.0
    assert first["ci_low"] < first["test_mmce"] < first["ci_high"]
    # Replicates 1 and 3 chose {age, glucose} itself: its own error is theirs, beside the
    # procedure's over all four.
    assert first["n_reps_with_set"] == 2
    assert first["set_test_mmce"] == pytest.approx(np.mean(base[[0, 2]]))
    assert first["test_mmce"] == pytest.approx(base.mean())
    assert 0 < first["stability"] < 1
