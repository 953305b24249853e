import logging
import re

import numpy as np
import pytest

from costfs.core.costs import BUDGET_TOLERANCE
from costfs.core.seeds import derive_seed
from costfs.engine.forest import oob_errors
from costfs.engine.trees import CommonRandomForests
from costfs.methods import fs, load_method
from costfs.methods._bcr import step_ratio
from tests.conftest import declared, run_method, small_selector

forward_paths = declared("fs", fs.forward_paths)

CHEAP_INFORMATIVE, EXPENSIVE_INFORMATIVE = 0, 1


@pytest.fixture
def known_problem():
    """x0 cheap and informative, x1 expensive and more informative, four dear noise columns."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=300)
    X = rng.normal(size=(300, 6))
    X[:, CHEAP_INFORMATIVE] += 1.5 * y
    X[:, EXPENSIVE_INFORMATIVE] += 2.5 * y
    costs = np.array([0.1, 1.0, 0.9, 0.9, 0.9, 0.9])
    return X, y, costs


@pytest.fixture
def random_problem(rng):
    X = rng.normal(size=(150, 8))
    y = (X[:, 0] + 0.6 * X[:, 3] - 0.4 * X[:, 5] + rng.normal(size=150) > 0).astype(int)
    costs = rng.uniform(0.1, 1.0, size=8)
    return X, y, costs


def features_of(path):
    return [step.feature for step in path]


def test_forward_path_is_the_known_one(known_problem):
    X, y, costs = known_problem
    search = forward_paths(X, y, costs, [3.0], [0.0, 3.0], seed=0, n_trees=50)
    agnostic, cost_aware = search.paths[0.0, 3.0], search.paths[3.0, 3.0]
    assert features_of(agnostic)[:2] == [EXPENSIVE_INFORMATIVE, CHEAP_INFORMATIVE]
    assert features_of(cost_aware)[:2] == [CHEAP_INFORMATIVE, EXPENSIVE_INFORMATIVE]
    # Both paths reach {x0, x1} after two steps and grow the same forests from there on.
    assert [(s.feature, s.error) for s in agnostic[2:]] == [
        (s.feature, s.error) for s in cost_aware[2:]
    ]
    # No early stopping: two noise columns (0.9 each) still fit the 1.9 left after x0 and x1.
    assert len(agnostic) == 4
    assert costs[features_of(agnostic)].sum() <= 3.0


def set_errors(X, y, forests, seed):
    """The OOB error of a set's `n_trees`-tree forest, computed for that set alone."""
    if forests == "common":

        def errors(sets, n_trees):
            common = CommonRandomForests(X, y, seed=derive_seed(seed, "fs", "common"))
            return np.array(
                [common.oob_errors([(tuple(features), n_trees)])[0] for features in sets]
            )
    else:

        def errors(sets, n_trees):
            seeds = [derive_seed(seed, "fs", *features) for features in sets]
            return np.array(oob_errors(X, y, sets, n_trees=[n_trees] * len(sets), seeds=seeds))

    return errors


@pytest.mark.parametrize("forests", fs.FORESTS)
def test_step_errors_depend_on_the_set_only(known_problem, forests):
    X, y, costs = known_problem
    search = forward_paths(X, y, costs, [3.0], [0.0, 3.0], seed=7, n_trees=40, forests=forests)
    errors = set_errors(X, y, forests, seed=7)
    for path in search.paths.values():
        for length, step in enumerate(path, start=1):
            features = sorted(features_of(path[:length]))
            assert step.error == errors([features], 40)[0]


def test_empty_set_error_is_the_majority_class_error(rng):
    y = np.r_[np.ones(70, dtype=int), np.zeros(30, dtype=int)]
    assert fs.empty_set_error(y) == pytest.approx(0.3)
    X = rng.normal(size=(100, 3)) + y[:, None]
    costs = np.array([0.5, 0.4, 0.6])
    search = forward_paths(X, y, costs, [2.0], [1.0], seed=1, n_trees=30)
    first = search.paths[1.0, 2.0][0]
    assert first.ratio == pytest.approx(step_ratio(first.error - 0.3, first.cost, 1.0, "multiply"))


@pytest.mark.parametrize("forests", fs.FORESTS)
@pytest.mark.parametrize("racing", [False, True])
def test_one_run_over_the_grid_equals_separate_runs(random_problem, racing, forests):
    X, y, costs = random_problem
    grid, budgets = [0.0, 0.5, 2.0], [0.8, 2.0]
    options = dict(seed=3, n_trees=64, racing=racing, forests=forests)
    together = forward_paths(X, y, costs, budgets, grid, **options)
    separate_fits = 0
    for (xi, budget), path in together.paths.items():
        alone = forward_paths(X, y, costs, [budget], [xi], **options)
        assert alone.paths[xi, budget] == path
        assert alone.fits == alone.requested
        separate_fits += alone.fits
    assert together.requested == separate_fits
    assert together.fits < together.requested
    records = run_method("fs", X, y, costs, budgets, grid, **options).records
    for record in records:
        expected = sorted(
            step.feature for step in together.paths[record["value"], record["budget"]]
        )
        assert record["features"].tolist() == expected


def exhaustive_path(X, y, costs, budget, xi, n_trees, errors_of):
    """Forward selection growing every eligible candidate of every step: the reference."""
    selected, spent, error, path = [], 0.0, fs.empty_set_error(y), []
    while True:
        fits = spent + costs <= budget + BUDGET_TOLERANCE
        fits[selected] = False
        candidates = np.flatnonzero(fits)
        if candidates.size == 0:
            return path
        errors = errors_of([sorted((*selected, int(j))) for j in candidates], n_trees)
        ratios = step_ratio(errors - error, costs[candidates], xi, "multiply")
        best = np.lexsort((candidates, costs[candidates], ratios))[0]
        feature = int(candidates[best])
        selected.append(feature)
        spent += costs[feature]
        error = float(errors[best])
        path.append(fs.Step(feature, float(costs[feature]), error, float(ratios[best])))


@pytest.mark.parametrize("forests", fs.FORESTS)
def test_bounded_steps_choose_what_growing_every_candidate_chooses(rng, forests):
    X = rng.normal(size=(150, 24))
    y = (X[:, :6].sum(axis=1) + rng.normal(size=150) > 0).astype(int)
    costs = rng.uniform(0.1, 1.0, size=24)
    grid, budgets = [0.0, 1.0, 3.0], [1.0, 3.0]
    search = forward_paths(
        X, y, costs, budgets, grid, seed=4, n_trees=24, racing=False, forests=forests
    )
    errors_of = set_errors(X, y, forests, seed=4)
    for (xi, budget), path in search.paths.items():
        assert path == exhaustive_path(X, y, costs, budget, xi, 24, errors_of)
    assert search.bounded > 0  # the test exercises the bound
    eligible = 0
    for (_, budget), path in search.paths.items():
        chosen = [step.feature for step in path]
        for length in range(len(path)):
            spent = costs[chosen[:length]].sum()
            fits = spent + np.delete(costs, chosen[:length]) <= budget + BUDGET_TOLERANCE
            eligible += int(fits.sum())
    # every eligible candidate of every step was either asked for (grown or served by the
    # memo) or dropped by the bound
    assert search.requested + search.bounded == eligible


def test_budget_is_never_exceeded_and_filled(random_problem):
    X, y, costs = random_problem
    budgets = [0.05, 0.3, 1.0, 1.7, 10.0]
    records = run_method("fs", X, y, costs, budgets, [0.0, 1.0], seed=2, n_trees=30).records
    assert [(r["value"], r["budget"]) for r in records] == [
        (xi, budget) for xi in (0.0, 1.0) for budget in budgets
    ]
    for record in records:
        chosen = record["features"]
        assert np.array_equal(chosen, np.unique(chosen))
        spent = costs[chosen].sum()
        assert spent <= record["budget"] + BUDGET_TOLERANCE
        left_out = np.setdiff1d(np.arange(costs.size), chosen)
        assert np.all(spent + costs[left_out] > record["budget"] + BUDGET_TOLERANCE)
    assert records[0]["features"].size == 0
    assert records[4]["features"].size == costs.size


@pytest.mark.parametrize("forests", fs.FORESTS)
@pytest.mark.parametrize("racing", [False, True])
def test_thread_count_does_not_change_the_result(random_problem, racing, forests):
    X, y, costs = random_problem
    options = dict(seed=5, n_trees=64, racing=racing, forests=forests)
    one = forward_paths(X, y, costs, [1.0, 2.5], [0.0, 1.0], n_jobs=1, **options)
    two = forward_paths(X, y, costs, [1.0, 2.5], [0.0, 1.0], n_jobs=2, **options)
    assert one.paths == two.paths
    assert one.errors == two.errors


def racing_trees(n_trees: int, racing: bool = True) -> list[int]:
    return [level.trees for level in fs.racing_schedule(n_trees, racing)]


def test_racing_levels():
    assert racing_trees(500, racing=False) == [500]
    assert racing_trees(500) == [7, 31, 125, 500]
    assert racing_trees(384) == [6, 24, 96, 384]
    assert racing_trees(383) == [23, 95, 383]
    assert racing_trees(100) == [6, 25, 100]
    assert racing_trees(64) == [4, 16, 64]
    assert racing_trees(50) == [12, 50]
    assert racing_trees(16) == [4, 16]
    assert racing_trees(12) == [12]


def test_racing_passes_on_shares_of_the_step_candidates():
    # (share, passes at least, skipped up to) per level. Below 384 trees each level passes on an
    # eighth of what reached it, at least 4; from 384 up the screen passes on a quarter of a
    # step of more than 16 and the later levels a sixteenth and an eighth, the last at least 2.
    schedules = {
        n: [level[1:] for level in fs.racing_schedule(n, True)] for n in (500, 384, 383, 100, 50)
    }
    screened = [(4, 4, 16), (16, 4, 4), (128, 2, 2), (1, 1, 0)]
    assert schedules == {
        500: screened,
        384: screened,
        383: [(8, 4, 4), (64, 4, 4), (1, 1, 0)],
        100: [(8, 4, 4), (64, 4, 4), (1, 1, 0)],
        50: [(8, 4, 4), (1, 1, 0)],
    }


@pytest.mark.parametrize("forests", fs.FORESTS)
@pytest.mark.parametrize(
    ("n_trees", "n_features", "forests_per_level"),
    [
        # 40 candidates on 16 trees, the best 5 (an eighth) on 64, the best 4 on 256 (4-tree
        # forests are too small to screen).
        (256, 40, {16: 40, 64: 5, 256: 4}),
        # 40 on 12 trees (3-tree forests are too small), the best 5 on 48.
        (48, 40, {12: 40, 48: 5}),
        # 40 on 8 trees, the best 10 (a quarter) on 32, the best 4 (at least 4; a sixteenth is
        # 3) on 128, the best 2 on 512.
        (512, 40, {8: 40, 32: 10, 128: 4, 512: 2}),
        # 16 candidates: the screen would pass on only 4, so it is skipped; the best 4 on 128,
        # the best 2 on 512.
        (512, 16, {32: 16, 128: 4, 512: 2}),
        # 3 candidates go straight to 128 trees, which drops one; 2 go straight to full forests.
        (512, 3, {128: 3, 512: 2}),
        (512, 2, {512: 2}),
    ],
)
def test_racing_grows_full_forests_only_for_contenders(
    rng, forests, n_trees, n_features, forests_per_level
):
    X = rng.normal(size=(120, n_features))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    costs = np.full(n_features, 0.5)
    search = forward_paths(
        X, y, costs, [0.5], [1.0], seed=0, n_trees=n_trees, racing=True, forests=forests
    )
    sizes = sorted(trees for features, trees in search.errors if features)
    assert sizes == [size for size, count in forests_per_level.items() for _ in range(count)]
    levels = list(forests_per_level.items())
    if forests == "common":  # a larger forest grows on from the smaller one
        grown = [
            count * (size - smaller)
            for (size, count), (smaller, _) in zip(levels, [(0, 0), *levels[:-1]], strict=True)
        ]
        assert search.trees == sum(grown)
    else:
        assert search.trees == sum(size * count for size, count in levels)


def test_steps_are_logged(random_problem, caplog):
    X, y, costs = random_problem
    with caplog.at_level(logging.INFO, logger="costfs"):
        run_method("fs", X, y, costs, [1.0], [0.0, 1.0], seed=0, n_trees=20)
    messages = [record.getMessage() for record in caplog.records]
    assert any(message.startswith("FS step 1: 2 of 2 paths active") for message in messages)
    assert any(message.startswith("FS done: 2 paths") for message in messages)


def test_unknown_positive_delta_rule_is_named(random_problem):
    X, y, costs = random_problem
    with pytest.raises(ValueError, match="positive_delta"):
        run_method("fs", X, y, costs, [1.0], [1.0], seed=0, n_trees=10, positive_delta="add")


def test_selector_equals_select(rng):
    X = rng.normal(size=(150, 6))
    y = (X[:, 0] + 0.5 * X[:, 3] + rng.normal(scale=0.5, size=150) > 0).astype(int)
    costs = np.array([0.4, 0.3, 0.3, 0.5, 0.2, 0.9])
    selector = small_selector(
        "fs", feature_costs=costs, budget=1.5, xi=0.5, racing=True, n_jobs=2, random_state=0
    ).fit(X, y)
    (record,) = run_method("fs", X, y, costs, [1.5], [0.5], n_trees=20, racing=True).records
    assert np.array_equal(selector.selected_features_, record["features"])


def test_an_exact_tie_reached_through_rounding_goes_to_the_cheaper_candidate():
    # OOB error 0.5 -> 0.3 at cost 1.0 and 0.5 -> 0.4 at cost 0.5: both BCRs are -0.2 (xi = 1)
    ratios = step_ratio(np.array([0.3 - 0.5, 0.4 - 0.5]), np.array([1.0, 0.5]), 1.0, "multiply")
    assert ratios[0] < ratios[1]
    assert fs._best_first(ratios, np.array([1.0, 0.5]), np.array([0, 1]))[0] == 1


def test_common_forests_run_on_the_numba_trees_whatever_the_study_engine():
    method = load_method("fs")
    for preference in ("auto", "sklearn", "sklearnex"):
        assert method.engine_for(preference, values={"forests": "common"}) == "numba"
    assert method.engine_for("sklearn", values={"forests": "per_set"}) == "sklearn"
    assert method.engine_for("auto", values={"forests": "per_set"}) in ("sklearnex", "sklearn")


@pytest.mark.parametrize("forests", fs.FORESTS)
def test_a_constant_column_is_never_a_candidate(random_problem, forests):
    X, y, costs = random_problem
    X = X.copy()
    X[:, 2] = 1.5
    search = forward_paths(X, y, costs, [costs.sum()], [0.0], seed=1, n_trees=20, forests=forests)
    chosen = features_of(search.paths[0.0, costs.sum()])
    assert sorted(chosen) == [0, 1, 3, 4, 5, 6, 7]


def test_a_lone_path_logs_no_forest_served_by_the_memo(rng, caplog):
    # A path shares its forests with no other, so every step's log must count none served; the
    # counts once ran a round ahead of the forests grown and went negative as candidates fell.
    X = rng.normal(size=(120, 30))
    y = (X[:, 0] + X[:, 1] + rng.normal(size=120) > 0).astype(int)
    with caplog.at_level(logging.INFO, logger="costfs"):
        forward_paths(
            X, y, np.full(30, 0.1), [1.0], [0.0], seed=0, n_trees=256, racing=True, forests="common"
        )
    served = [
        int(found.group(1))
        for found in (
            re.search(r"(-?\d+) more served by the memo", r.getMessage()) for r in caplog.records
        )
        if found
    ]
    assert len(served) >= 5
    assert served == [0] * len(served)
