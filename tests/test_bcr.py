import numpy as np
import pytest

from costfs.methods._bcr import (
    fill_budget,
    filter_ratio,
    filter_selection,
    rank_by_ratio,
    ratio_ranks,
    step_ratio,
)


def test_step_ratio_sign_rule():
    delta = np.array([-0.1, -0.1, 0.1, 0.1])
    cost = np.array([0.5, 2.0, 0.5, 2.0])
    ratio = step_ratio(delta, cost, xi=1.0, positive_delta="multiply")
    assert np.allclose(ratio, [-0.2, -0.05, 0.05, 0.2])
    # A worsening step is least bad when cheap; the literal form would prefer the expensive one.
    assert ratio[2] < ratio[3]
    literal = step_ratio(delta, cost, xi=1.0, positive_delta="divide")
    assert literal[3] < literal[2]


def test_xi_zero_orders_by_score_only():
    scores = np.array([0.3, 0.9, 0.5, 0.1])
    costs = np.array([0.1, 1.0, 0.2, 0.1])
    assert list(rank_by_ratio(scores / costs**0.0, costs)) == [1, 2, 0, 3]
    assert list(filter_selection(scores, costs, budget=10, xi=0.0)) == [0, 1, 2, 3]
    assert list(filter_selection(scores, costs, budget=1.0, xi=0.0)) == [1]


def test_large_xi_prefers_cheap_features():
    scores = np.array([0.3, 0.9, 0.5, 0.1])
    costs = np.array([0.1, 1.0, 0.2, 0.1])
    # score / cost^3: 300, 0.9, 62.5, 100 -> the cheap weak feature 3 beats feature 2.
    assert list(filter_selection(scores, costs, budget=0.35, xi=3.0)) == [0, 3]


def test_unaffordable_features_are_skipped_not_stopped_at():
    order = np.array([0, 1, 2])
    costs = np.array([0.6, 0.6, 0.3])
    assert list(fill_budget(order, costs, budget=1.0)) == [0, 2]


def test_ties_go_to_lower_cost_then_lower_index():
    ratios = np.array([1.0, 1.0, 1.0, 2.0])
    costs = np.array([0.5, 0.2, 0.2, 0.9])
    assert list(rank_by_ratio(ratios, costs)) == [3, 1, 2, 0]


def test_exact_budget_fits_despite_float_sums():
    costs = np.array([0.1] * 10)
    assert filter_selection(np.ones(10), costs, budget=1.0, xi=1.0).size == 10


@pytest.mark.parametrize("seed", range(20))
def test_budget_is_never_exceeded(seed):
    rng = np.random.default_rng(seed)
    scores = rng.uniform(size=50)
    costs = rng.uniform(0.1, 1.0, size=50)
    budget = rng.uniform(0.05, 10)
    xi = rng.choice([0.0, 0.5, 1.0, 3.0])
    selected = filter_selection(scores, costs, budget, xi)
    assert costs[selected].sum() <= budget + 1e-9
    # Filled: no left-out feature still fits.
    left = np.setdiff1d(np.arange(50), selected)
    assert not np.any(costs[left] + costs[selected].sum() <= budget)


def test_budget_below_every_cost_gives_empty_set():
    assert filter_selection(np.ones(3), np.array([0.5, 0.6, 0.7]), 0.4, 1.0).size == 0


def test_ratio_ranks_tie_values_equal_up_to_rounding():
    ratios = np.array([(0.35 - 0.15) / 0.5, 0.1 / 0.25, np.inf, -1.0, 0.41, np.inf, np.nan])
    assert ratios[0] != ratios[1]  # the rounding the ranks must not see
    assert ratio_ranks(ratios).tolist() == [1, 1, 3, 0, 2, 3, 4]


@pytest.mark.parametrize(
    ("xi", "scores", "costs"),
    [
        # 0.175 / 0.25 = 0.7 < 0.525 / 0.75 = 0.7000000000000001
        (1.0, [0.525, 0.175, 0.01], [0.75, 0.25, 1.0]),
        # 0.03 / 0.09^0.5 = 0.1 < 0.07 / 0.49^0.5 = 0.10000000000000002
        (0.5, [0.07, 0.03, 0.01], [0.49, 0.09, 1.0]),
    ],
)
def test_filter_ties_through_rounding_go_to_the_cheaper_feature(xi, scores, costs):
    scores, costs = np.array(scores), np.array(costs)
    ratios = filter_ratio(scores, costs, xi)
    assert ratios[0] > ratios[1]  # in floats the dearer feature would win
    assert rank_by_ratio(ratios, costs)[:2].tolist() == [1, 0]
    assert filter_selection(scores, costs, costs[1], xi).tolist() == [1]


def test_step_ties_through_rounding_go_to_the_cheaper_step():
    # -0.2 at cost 0.5 against -0.1 at cost 0.25 (xi = 1), the changes from error differences
    delta = np.array([0.15 - 0.35, 0.15 - 0.25])
    ratios = step_ratio(delta, np.array([0.5, 0.25]), 1.0, "multiply")
    assert ratios[0] != ratios[1]
    assert np.lexsort((np.arange(2), [0.5, 0.25], ratio_ranks(ratios)))[0] == 1


def test_free_features_come_first_ordered_by_their_benefit():
    scores = np.array([0.1, 0.5, 0.3, 0.9])
    costs = np.array([0.0, 0.0, 1.0, 2.0])
    assert rank_by_ratio(filter_ratio(scores, costs, 1.0), costs).tolist() == [1, 0, 3, 2]
    # xi = 0 ignores every cost alike: by score alone
    assert rank_by_ratio(filter_ratio(scores, costs, 0.0), costs).tolist() == [3, 1, 2, 0]
    # a free improvement beats any paid one; among the free, the larger improvement first
    delta = np.array([-0.01, -0.02, -0.3])
    ratios = step_ratio(delta, np.array([0.0, 0.0, 0.1]), 1.0, "multiply")
    assert np.argsort(ratios).tolist() == [1, 0, 2]
    assert np.isfinite(ratios).all()
