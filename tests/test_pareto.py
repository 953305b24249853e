import numpy as np
import pytest

import costfs
from costfs.core.pareto import on_pareto_front


def test_area_under_a_known_error_staircase_by_hand():
    # Best error affordable: 1 on [0, 1), 0.4 on [1, 2), 0.3 on [2, 4), 0.2 on [4, 5]; the point
    # (3, 0.35) is dominated by (2, 0.3) and the point at cost 6 lies beyond the reference.
    costs = [2.0, 1.0, 4.0, 3.0, 6.0]
    errors = [0.3, 0.4, 0.2, 0.35, 0.0]
    area = costfs.area_under_pareto(costs, errors, kind="error", full_cost=5.0)
    assert area == pytest.approx((1 * 1.0 + 1 * 0.4 + 2 * 0.3 + 1 * 0.2) / 5)


def test_accuracy_area_is_normalised_by_the_full_cost_and_complements_the_error_area():
    # Accuracy 0 on [0, 1), 0.5 on [1, 2), 0.75 on [2, 8]: the full model costs 8.
    costs, accuracies = [1.0, 2.0], [0.5, 0.75]
    area = costfs.area_under_pareto(costs, accuracies, full_cost=8.0)
    assert area == pytest.approx((1 * 0.0 + 1 * 0.5 + 6 * 0.75) / 8)
    errors = [1 - accuracy for accuracy in accuracies]
    error_area = costfs.area_under_pareto(costs, errors, kind="error", full_cost=8.0)
    assert area + error_area == pytest.approx(1.0)


def test_another_reference_cost_cuts_the_staircase_there():
    area = costfs.area_under_pareto(
        [1.0, 2.0, 3.0], [0.5, 0.6, 0.9], full_cost=10.0, reference_cost=2.0
    )
    assert area == pytest.approx((1 * 0.0 + 1 * 0.5) / 2)


def test_area_needs_a_positive_reference_and_a_known_kind():
    with pytest.raises(ValueError, match="positive"):
        costfs.area_under_pareto([0.0], [0.5], full_cost=0.0)
    with pytest.raises(ValueError, match="full_cost"):
        costfs.area_under_pareto([1.0], [0.5])
    with pytest.raises(ValueError, match="kind"):
        costfs.area_under_pareto([1.0], [0.5], full_cost=1.0, kind="loss")


def test_pareto_front_keeps_only_strict_improvements_of_either_kind():
    front = costfs.pareto_front([3, 1, 2, 2, 5], [0.2, 0.4, 0.4, 0.3, 0.2])
    assert front.to_dict("list") == {"cost": [1.0, 2.0, 3.0], "error": [0.4, 0.3, 0.2]}
    accuracy = costfs.pareto_front([3, 1, 2, 2, 5], [0.8, 0.6, 0.6, 0.7, 0.8], kind="accuracy")
    assert accuracy.to_dict("list") == {"cost": [1.0, 2.0, 3.0], "accuracy": [0.6, 0.7, 0.8]}
    assert on_pareto_front([1, 1], [0.3, 0.3]).tolist() == [True, False]
    assert np.array_equal(
        on_pareto_front([2, 1], [0.1, 0.2], kind="accuracy"), np.array([False, True])
    )
