"""The budget path every selector exposes after one fit (`path_`), checked the same way for
every method: the selection at a budget, asked for alone, is the path's entry in force there."""

import itertools

import numpy as np
import pandas as pd
import pytest

import costfs
from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.engine.fill import INITIAL_INTERVALS, PAIRWISE_BLOCK, set_totals
from costfs.methods import load_method, method_names
from costfs.methods._base import Selection
from costfs.methods._bcr import fill_budget
from costfs.methods._path import entry_at, fill_path, path_table
from costfs.methods.msb import pareto_schedule, schedule_to_arrays
from tests.conftest import SMALL, run_method, small_selector

OWN = np.array([0.0, 0.3, 0.4, 0.2, 0.5, 0.6, 0.0, 0.7])
"""Features 0 and 6 are free; 1 and 3 share the draw below."""
GROUPS = [None, "draw", None, "draw", None, None, None, None]
DRAW = {"draw": 0.25}
GRID = [0.0, 0.3, 0.6, 0.9, 1.2, 1.8, 2.5, 4.0]


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(140, 8))
    y = (X[:, 0] + X[:, 1] + 0.7 * X[:, 4] + rng.normal(scale=0.6, size=140) > 0).astype(int)
    return X, y


def alone(method: str, X, y, costs, budget: float, options: dict) -> np.ndarray:
    """The selector's set at `budget` from a `select` call asked for that budget only."""
    declared = load_method(method)
    hyperparameter = declared.hyperparameter
    grid = (
        [] if hyperparameter is None else [options.get(hyperparameter.name, hyperparameter.default)]
    )
    parameters = {**SMALL.get(method, {}), **options}
    parameters.pop(getattr(hyperparameter, "name", None), None)
    selection = run_method(method, X, y, costs, [budget], grid, seed=3, **parameters)
    return np.asarray(declared.choose_record(selection.records)["features"], dtype=int)


def check_path(method: str, X, y, options: dict | None = None):
    options = options or {}
    costs = FeatureCosts.grouped(OWN, GROUPS, DRAW)
    selector = small_selector(
        method,
        feature_costs=OWN,
        feature_groups=GROUPS,
        group_costs=DRAW,
        budget=1.2,
        path_budgets=GRID,
        random_state=3,
        **options,
    ).fit(X, y)
    path = selector.path_
    assert list(path.columns[:6]) == [
        "budget",
        "cost",
        "n_features",
        "features",
        "added",
        "dropped",
    ]
    assert path["budget"].is_monotonic_increasing and path["budget"].iloc[0] == 0.0
    entries = path.to_dict("records")
    for entry in entries:
        indices = list(entry["feature_indices"])
        assert entry["cost"] == pytest.approx(costs.total(indices))
        assert entry["cost"] <= entry["budget"] + BUDGET_TOLERANCE
        assert entry["features"] == tuple(f"x{index}" for index in indices)
    for previous, entry in itertools.pairwise(entries):
        assert set(previous["feature_indices"]) != set(entry["feature_indices"])
        assert set(entry["added"]) == set(entry["features"]) - set(previous["features"])
        assert set(entry["dropped"]) == set(previous["features"]) - set(entry["features"])
    # The fit's own selection is its budget's entry.
    assert entry_at(entries, 1.2)["feature_indices"] == tuple(selector.selected_features_)
    if selector.path_exact_:
        # Every step of the staircase and budgets just around each, and budgets between.
        steps = path["budget"].to_numpy()
        between = (steps[:-1] + steps[1:]) / 2
        probes = {*steps, *(steps[1:] - 1e-6), *between, 0.05, 1.2}
    else:
        probes = set(GRID)
    for budget in sorted(probes):
        expected = alone(method, X, y, costs, float(budget), options)
        assert entry_at(entries, budget)["feature_indices"] == tuple(expected), budget
    return selector


@pytest.mark.parametrize("method", method_names())
def test_the_selection_at_any_budget_is_the_paths_entry_there(method, problem):
    X, y = problem
    selector = check_path(method, X, y)
    assert selector.path_exact_ == load_method(method).path_is_exact(
        {**load_method(method).defaults(), **SMALL.get(method, {})}
    )


@pytest.mark.parametrize(
    ("method", "options", "exact"),
    [
        ("fs", {"racing": False}, True),
        ("sts", {"depth_bound": "budget"}, False),
        ("auc", {"xi": "tuned"}, False),
        ("auc", {"xi": 0.0}, True),
    ],
)
def test_the_path_is_exact_where_the_settings_keep_the_staircase(method, options, exact, problem):
    X, y = problem
    if options.get("xi") == "tuned":
        selector = small_selector(
            method, feature_costs=OWN, budget=1.2, path_budgets=[0.5, 1.2], xi="tuned"
        ).fit(X, y)
        assert not selector.path_exact_
        assert set(selector.path_["budget"]) <= {0.5, 1.2}
        return
    assert check_path(method, X, y, options).path_exact_ is exact


def test_exact_paths_state_every_change_and_grid_paths_only_the_grid(problem):
    X, y = problem
    auc = costfs.AUCFilter(feature_costs=OWN, budget=1.0).fit(X, y)
    # Nothing but budgets decides a filter's path: asking for a grid changes nothing.
    gridded = costfs.AUCFilter(feature_costs=OWN, budget=1.0, path_budgets=[0.5]).fit(X, y)
    assert auc.path_.equals(gridded.path_)
    budget_rf = costfs.BudgetRFSelector(
        feature_costs=OWN, budget=1.0, n_trees_max=5, random_state=0
    ).fit(X, y)
    assert not budget_rf.path_exact_ and list(budget_rf.path_["budget"]) == [1.0]


def test_msbs_path_is_its_model_schedule(problem):
    X, y = problem
    selector = small_selector("msb", feature_costs=OWN, budget=1.0, random_state=3).fit(X, y)
    costs = FeatureCosts.of(OWN)
    declared = load_method("msb")
    selection = run_method("msb", X, y, costs, [1.0], [], seed=3, **SMALL["msb"])
    schedule = declared.schedule(selection.artifacts)
    front = costfs.pareto_front(schedule["cost"], schedule["oob_mmce"])
    path = selector.path_[selector.path_["n_features"] > 0]
    assert path["cost"].tolist() == pytest.approx(front["cost"].tolist())
    assert path["schedule_oob_mmce"].tolist() == pytest.approx(front["error"].tolist())


@pytest.mark.parametrize("bad", [[-1.0], ["a"], [float("nan")]])
def test_bad_path_budgets_are_named(bad, problem):
    X, y = problem
    with pytest.raises(costfs.core.errors.DataError, match="path_budgets"):
        costfs.BudgetRFSelector(feature_costs=OWN, path_budgets=bad, n_trees_max=5).fit(X, y)


@pytest.mark.parametrize("seed", range(40))
def test_a_fill_orders_path_holds_the_fill_at_every_budget(seed):
    """Integer costs make many budgets land exactly on a set's cost; shared-cost groups and a
    free feature change what each feature adds as the walk goes."""
    rng = np.random.default_rng(seed)
    n_features = 9
    own = rng.integers(0, 6, n_features).astype(float)
    groups = rng.choice(["a", "b", None], n_features)
    costs = FeatureCosts.grouped(own, groups, {"a": 3.0, "b": 2.0})
    order = rng.permutation(n_features)
    budget = costs.total(np.arange(n_features)) * 0.8
    steps = fill_path(order, costs, budget)
    starts = [cost for cost, _ in steps]
    assert starts == sorted(starts) and starts[-1] <= budget + BUDGET_TOLERANCE
    for cost, features in steps:
        assert cost == costs.total(features)
    for probe in np.arange(0.0, budget + BUDGET_TOLERANCE, 0.25):
        in_force = [features for cost, features in steps if cost <= probe + BUDGET_TOLERANCE][-1]
        np.testing.assert_array_equal(in_force, fill_budget(order, costs, probe))
    # Every set of the path is the fill at its own cost: no step is missing or spurious.
    for cost, features in steps:
        np.testing.assert_array_equal(features, fill_budget(order, costs, cost))


@pytest.mark.parametrize("seed", range(40))
def test_a_fill_path_over_decimal_costs_lists_each_set_once(seed):
    """Costs like 0.1 and 0.2 sum to a set's cost differently in the walk's order and in the
    set's: a set must still be listed once, and be the fill at its own cost."""
    rng = np.random.default_rng(seed)
    n_features = int(rng.integers(3, 12))
    own = rng.integers(1, 6, n_features) / 10
    groups = rng.choice(["a", None], n_features) if seed % 2 else [None] * n_features
    costs = FeatureCosts.grouped(own, groups, {"a": 0.3})
    order = rng.permutation(n_features)
    budget = costs.total(np.arange(n_features))
    steps = fill_path(order, costs, budget)
    starts = [cost for cost, _ in steps]
    assert all(later - earlier > BUDGET_TOLERANCE for earlier, later in itertools.pairwise(starts))
    for (cost, features), end in zip(steps, [*starts[1:], budget + 1], strict=True):
        for probe in (cost, (cost + end) / 2):
            np.testing.assert_array_equal(features, fill_budget(order, costs, probe))


@pytest.mark.parametrize("grouped", [False, True])
def test_a_paths_set_costs_are_the_sets_true_costs_bit_for_bit(grouped):
    """The path's costs are summed in a compiled loop; decimal costs over sets of every size
    around numpy's blocks of eight and of `PAIRWISE_BLOCK` must come out as `total` sums them,
    to the last bit, or a set would sit a hair off its own budget."""
    rng = np.random.default_rng(11)
    n_features = 3 * PAIRWISE_BLOCK + 5
    own = np.round(rng.uniform(0.01, 100, n_features), 2)
    labels = rng.choice([f"g{k}" for k in range(12)] + [None] * 4, n_features)
    costs = FeatureCosts.grouped(
        own,
        labels if grouped else [None] * n_features,
        {f"g{k}": round(float(rng.uniform(0, 9)), 3) for k in range(12)},
    )
    sizes = [*range(0, 2 * PAIRWISE_BLOCK + 20), n_features]
    members = np.zeros((len(sizes), n_features), dtype=bool)
    for row, size in enumerate(sizes):
        members[row, rng.choice(n_features, size, replace=False)] = True
    totals = set_totals(members, costs.own, costs.group.astype(np.int64), costs.shared)
    expected = [costs.total(np.flatnonzero(row)) for row in members]
    assert totals.tolist() == expected


def test_a_fill_path_longer_than_the_walks_first_arrays_holds_the_fill():
    """Forty features of distinct costs split the budget range into more intervals than
    the walk first makes room for: the arrays grow without losing an interval."""
    rng = np.random.default_rng(5)
    n_features = 40
    own = np.round(rng.uniform(1, 100, n_features), 2)
    groups = rng.choice(["a", "b", None], n_features)
    costs = FeatureCosts.grouped(own, groups, {"a": 7.5, "b": 0.0})
    order = rng.permutation(n_features)
    budget = costs.total(np.arange(n_features))
    steps = fill_path(order, costs, budget)
    assert len(steps) > INITIAL_INTERVALS
    starts = [cost for cost, _ in steps]
    for (cost, features), end in zip(steps, [*starts[1:], budget + 1], strict=True):
        for probe in (cost, (cost + end) / 2):
            np.testing.assert_array_equal(features, fill_budget(order, costs, probe))


def test_msbs_path_lists_a_model_at_its_true_cost_beside_a_near_tie():
    """Costs 0.1 + 0.2 and 0.3 differ by a float step: at the schedule cost 0.3 the better
    model of cost 0.1 + 0.2 is within the tolerance and chosen; it is listed at its own cost."""
    costs = FeatureCosts.ungrouped([0.1, 0.2, 0.3])
    models = [(2,), (0, 1)]
    schedule = pareto_schedule(
        pd.DataFrame(
            {
                "cost": [costs.total(model) for model in models],
                "oob_mmce": [0.3, 0.2],
                "n_features": [1, 2],
                "features": models,
                "sequence": ["cost", "cost"],
            }
        )
    )
    selection = Selection(
        [{"value": np.nan, "budget": 1.0, "features": np.array([0, 1])}],
        schedule_to_arrays(schedule),
    )
    steps = load_method("msb").path_steps(selection, costs)
    path = path_table(steps, costs, None, 3, at_cost=True)
    assert path["feature_indices"].tolist() == [(), (0, 1)]
    for cost, indices in zip(path["cost"], path["feature_indices"], strict=True):
        assert cost == costs.total(list(indices))


def test_a_random_fill_path_over_decimal_costs_has_no_set_twice(problem):
    X, y = problem[0], problem[1]
    selector = costfs.RandomFillSelector(
        feature_costs=[0.1, 0.1, 0.2, 0.4], budget=0.8, random_state=2
    ).fit(X[:, :4], y)
    assert selector.path_["budget"].is_unique
    middle = costfs.RandomFillSelector(
        feature_costs=[0.1, 0.1, 0.2, 0.4], budget=0.6, random_state=2
    ).fit(X[:, :4], y)
    in_force = entry_at(
        [
            {"budget": b, "features": f}
            for b, f in zip(
                selector.path_["budget"], selector.path_["feature_indices"], strict=True
            )
        ],
        0.6,
    )
    assert tuple(in_force["features"]) == tuple(middle.selected_features_)
