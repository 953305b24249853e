import numpy as np
import pytest

from costfs.bcr import fill_budget, filter_selection, rank_by_ratio, step_ratio


def test_step_ratio_sign_rule():
    delta = np.array([-0.1, -0.1, 0.1, 0.1])
    cost = np.array([0.5, 2.0, 0.5, 2.0])
    ratio = step_ratio(delta, cost, xi=1.0)
    assert np.allclose(ratio, [-0.2, -0.05, 0.05, 0.2])
    # A worsening step is least bad when cheap; the literal form would prefer the expensive one.
    assert ratio[2] < ratio[3]
    literal = step_ratio(delta, cost, xi=1.0, positive_delta="divide")
    assert literal[3] < literal[2]
    with pytest.raises(ValueError, match="positive_delta"):
        step_ratio(delta, cost, 1.0, positive_delta="square")


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
