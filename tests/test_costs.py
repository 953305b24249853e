"""Feature costs with shared-cost groups (costfs.core.costs)."""

import numpy as np
import pandas as pd
import pytest

import costfs
from costfs.core.costs import FeatureCosts
from costfs.core.validation import DataError
from costfs.methods import sts
from costfs.methods._bcr import fill_budget
from costfs.methods.sts import pack_ensemble, path_features
from tests.conftest import declared

selection_paths = declared("sts", sts.selection_paths)

# glucose and insulin come from one blood draw (2.10, paid once)
OWN = np.array([17.61, 22.78, 1.0, 5.0])
GROUPS = ["blood", "blood", None, None]
COSTS = FeatureCosts.grouped(OWN, GROUPS, {"blood": 2.10})


def test_a_group_is_paid_once():
    assert COSTS.total([0]) == pytest.approx(17.61 + 2.10)
    assert COSTS.total([0, 1]) == pytest.approx(17.61 + 22.78 + 2.10)
    assert COSTS.total([2, 3]) == pytest.approx(6.0)
    assert COSTS.total([]) == 0
    paid = np.array([True, False, False, False])
    # insulin is cheaper once glucose (its draw) is paid; a paid feature adds nothing
    assert COSTS.added(paid, [0, 1, 2]).tolist() == pytest.approx([0.0, 22.78, 1.0])
    assert COSTS.standalone() == pytest.approx([19.71, 24.88, 1.0, 5.0])
    acquired = np.array([[True, True, False, False], [False, False, True, False]])
    assert COSTS.row_totals(acquired) == pytest.approx([42.49, 1.0])


def test_without_groups_the_costs_are_the_plain_sums():
    plain = FeatureCosts.of(OWN)
    assert not plain.has_groups
    assert plain.total([0, 1]) == OWN[[0, 1]].sum()
    assert np.array_equal(plain.standalone(), OWN)
    assert FeatureCosts.from_arrays({"costs": OWN}).total([3]) == 5.0
    round_trip = FeatureCosts.from_arrays(COSTS.to_arrays())
    assert round_trip.total([0, 1]) == COSTS.total([0, 1])
    assert round_trip.group_names == ("blood",)


def test_a_fill_takes_a_feature_that_fits_once_its_group_is_paid():
    # glucose + draw = 19.71; insulin then adds 22.78: both fit 42.5, though insulin alone
    # (24.88) would not fit what is left after glucose with the draw counted twice
    assert fill_budget(np.array([0, 1, 2]), COSTS, 42.5).tolist() == [0, 1]
    assert fill_budget(np.array([0, 1, 2]), OWN + [2.10, 2.10, 0, 0], 42.5).tolist() == [0, 2]


def test_sts_counts_a_trees_group_once():
    # tree 1 (insulin, the better tree) pays the draw; tree 0 (glucose) then adds its own cost
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    votes = np.array([[1, 1, 1, 0, 0, 0, 0, 1], [1, 1, 1, 1, 0, 0, 1, 0]])
    prepared = pack_ensemble([[0], [1]], votes)
    ((path,),) = selection_paths(prepared, y, COSTS, [42.5], [0.0])
    assert path_features(path).tolist() == [0, 1]
    assert [step.added_cost for step in path] == pytest.approx([24.88, 17.61])


def test_forward_selection_pays_the_group_once(rng):
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    selector = costfs.ForwardSelector(
        feature_costs=OWN,
        feature_groups=GROUPS,
        group_costs={"blood": 2.10},
        budget=42.5,
        xi=0.0,
        n_trees=30,
        random_state=0,
    ).fit(X, y)
    assert selector.selected_features_.tolist()[:2] == [0, 1]
    assert selector.total_cost_ == pytest.approx(42.49)


@pytest.mark.parametrize(
    ("groups", "group_costs", "message"),
    [
        ({"a": "blood"}, {"urine": 1.0}, r"no shared cost for group\(s\) \['blood'\]"),
        ({"a": "blood"}, {"blood": -1.0}, "shared cost of group 'blood' is -1.0"),
        ({"a": "blood"}, {"blood": "cheap"}, "shared cost of group 'blood' is 'cheap'"),
        ({"z": "blood"}, {"blood": 1.0}, r"unknown features \['z'\]"),
        ({"a": "blood"}, None, "feature_groups and group_costs go together"),
    ],
)
def test_bad_groups_are_named(groups, group_costs, message):
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(30, 2)), columns=["a", "b"])
    y = (X["a"] > 0).astype(int)
    selector = costfs.AUCFilter(feature_groups=groups, group_costs=group_costs, budget=2.0)
    with pytest.raises(DataError, match=message):
        selector.fit(X, y)
