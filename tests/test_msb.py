import io
import math

import numpy as np
import pandas as pd
import pytest

from costfs.core.costs import BUDGET_TOLERANCE
from costfs.methods import msb
from tests.conftest import declared, prepare_method, run_method

model_schedule = declared("msb", msb.model_schedule)
model_sequences = declared("msb", msb.model_sequences)

SMALL = {"n_trees": 20, "importance_trees": 20, "l1_path_length": 15}


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(80, 6))
    y = (X[:, 0] + 0.7 * X[:, 3] + rng.normal(scale=0.6, size=80) > 0).astype(int)
    costs = np.array([0.4, 0.3, 0.3, 0.5, 0.2, 0.9])
    return X, y, costs


@pytest.fixture
def prepared(problem):
    X, y, _ = problem
    return prepare_method("msb", X, y, seed=1, **SMALL)


def assert_no_entry_dominated(schedule: pd.DataFrame):
    cost = schedule["cost"].to_numpy()
    error = schedule["oob_mmce"].to_numpy()
    for i in range(cost.size):
        others = np.arange(cost.size) != i
        assert not np.any((cost[i] >= cost[others]) & (error[i] >= error[others]))


def test_sequences_run_from_the_full_model_down_to_two_features(rng):
    costs = rng.uniform(0.1, 1.0, size=7)
    importances = np.array([0.0, 0.3, 0.1, 0.0, 0.2, 0.05, 0.4])
    supports = np.zeros((4, 7), dtype=bool)
    supports[0, [6]] = True  # a single feature: not a model
    supports[1, [6, 1]] = True
    supports[2, [6, 1, 4]] = True
    supports[3, [6, 1, 4]] = True  # a repeated support
    sequences = model_sequences(costs, importances, supports, gamma=0.1, seed=3)
    assert list(sequences) == list(msb.SEQUENCES)
    full = tuple(range(7))
    for name in ("cost", "importance", "sampling"):
        models = sequences[name]
        assert [len(model) for model in models] == list(range(7, 1, -1))
        assert models[0] == full
        for bigger, smaller in zip(models, models[1:], strict=False):
            assert set(smaller) < set(bigger)
    assert sequences["l1"] == [full, (1, 4, 6), (1, 6)]
    (first_by_cost,) = set(full) - set(sequences["cost"][1])
    assert first_by_cost == np.argmax(costs)
    (first_by_importance,) = set(full) - set(sequences["importance"][1])
    assert first_by_importance == (0 if costs[0] > costs[3] else 3)  # the pricier zero goes first


def test_importance_sequence_breaks_ties_by_cost():
    costs = np.array([0.2, 0.9, 0.5, 0.4])
    importances = np.array([0.0, 0.0, 0.3, 0.1])
    sequences = model_sequences(costs, importances, np.zeros((0, 4), dtype=bool), gamma=0.1, seed=0)
    # zero importance twice: the expensive feature 1 goes first, then 0, leaving {2, 3}
    assert sequences["importance"] == [(0, 1, 2, 3), (0, 2, 3), (2, 3)]
    assert sequences["cost"] == [(0, 1, 2, 3), (0, 2, 3), (0, 3)]


def test_one_feature_models_on_request(problem, prepared):
    costs = np.array([0.2, 0.9, 0.5, 0.4])
    importances = np.array([0.0, 0.0, 0.3, 0.1])
    supports = np.zeros((2, 4), dtype=bool)
    supports[0, [2]] = True
    supports[1, [2, 3]] = True
    sequences = model_sequences(costs, importances, supports, gamma=0.1, seed=0, min_model_size=1)
    assert sequences["importance"] == [(0, 1, 2, 3), (0, 2, 3), (2, 3), (2,)]
    assert sequences["cost"][-1] == (0,)
    assert sequences["l1"] == [(0, 1, 2, 3), (2, 3), (2,)]
    # a budget below every pair: empty with the paper's floor, one feature with the option
    X, y, costs = problem
    budget = np.sort(costs)[:2].sum() - 1e-3
    picks = [
        run_method(
            "msb", X, y, costs, [budget], [], prepared=prepared, n_trees=20, min_model_size=size
        ).records[0]["features"]
        for size in (2, 1)
    ]
    assert len(picks[0]) == 0 and len(picks[1]) == 1
    assert costs[picks[1]].sum() <= budget


def test_sampling_sequence_is_seeded():
    costs = np.linspace(0.1, 1.0, 30)
    importances = np.linspace(0.0, 0.2, 30)
    empty = np.zeros((0, 30), dtype=bool)

    def sampled(seed):
        return model_sequences(costs, importances, empty, gamma=0.1, seed=seed)["sampling"]

    assert sampled(4) == sampled(4)
    assert sampled(4) != sampled(5)


def test_l1_path_supports_are_distinct_and_non_empty(problem):
    X, y, _ = problem
    supports = msb.l1_path_supports(X, y, path_length=15)
    assert supports.shape[1] == 6 and supports.shape[0] >= 2
    assert supports.any(axis=1).all()
    assert len({tuple(row) for row in supports}) == supports.shape[0]
    assert supports[0].sum() < supports[-1].sum()  # sparse at small C, denser at large C


def test_multinomial_l1_path_first_finds_the_feature_that_separates_the_middle_class(rng):
    X = rng.normal(size=(240, 5))
    # class 1 lies between 0 and 2 on feature 3 and is set apart from the others by feature 1
    y = np.digitize(X[:, 3], [-0.6, 0.6])
    X[:, 1] += 2.0 * (y == 1)
    supports = msb.l1_path_supports(X, y, path_length=15)
    assert supports.any(axis=1).all() and supports[-1].sum() > supports[0].sum()
    assert set(np.flatnonzero(supports[0])) <= {1, 3}
    assert supports[:3].any(axis=0)[[1, 3]].all()


def test_pareto_schedule_keeps_only_non_dominated_models(rng):
    models = pd.DataFrame(
        {
            "cost": rng.integers(1, 10, size=60).astype(float),
            "oob_mmce": rng.integers(0, 20, size=60) / 40,
            "n_features": rng.integers(1, 5, size=60),
        }
    )
    schedule = msb.pareto_schedule(models)
    assert_no_entry_dominated(schedule)
    assert np.all(np.diff(schedule["cost"]) > 0)
    assert np.all(np.diff(schedule["oob_mmce"]) < 0)
    # every model is matched or beaten by a schedule entry that costs no more
    for cost, error in zip(models["cost"], models["oob_mmce"], strict=True):
        cheaper = schedule[schedule["cost"] <= cost]
        assert (cheaper["oob_mmce"] <= error).any()


def test_model_schedule(problem, prepared):
    X, y, costs = problem
    schedule = model_schedule(X, y, costs, seed=2, prepared=prepared, n_trees=20)
    assert list(schedule.columns) == msb.SCHEDULE_COLUMNS
    assert_no_entry_dominated(schedule)
    for row in schedule.itertuples():
        assert row.cost == pytest.approx(costs[list(row.features)].sum())
        assert row.n_features == len(row.features) >= 2
        assert set(row.sequence.split("+")) <= set(msb.SEQUENCES)
    restored = msb.schedule_from_arrays(msb.schedule_to_arrays(schedule))
    pd.testing.assert_frame_equal(restored, schedule)


@pytest.mark.parametrize("instance", range(3))
def test_budget_is_never_exceeded(instance):
    rng = np.random.default_rng(instance)
    X = rng.normal(size=(60, 7))
    y = (X[:, rng.integers(7)] + rng.normal(size=60) > 0).astype(int)
    costs = rng.uniform(0.1, 1.0, size=7)
    budgets = sorted(rng.uniform(0.1, 4.0, size=3))
    records = run_method("msb", X, y, costs, budgets, [], seed=instance, **SMALL).records
    assert [r["budget"] for r in records] == budgets
    for record in records:
        assert math.isnan(record["value"])
        assert costs[record["features"]].sum() <= record["budget"] + BUDGET_TOLERANCE
    errors = [r["schedule_oob_mmce"] for r in records if r["features"].size]
    assert errors == sorted(errors, reverse=True)  # a larger budget never picks a worse model


def test_empty_set_when_nothing_fits(problem, prepared):
    X, y, costs = problem
    (record,) = run_method(
        "msb", X, y, costs, [costs.min() / 2], [], prepared=prepared, seed=1, **SMALL
    ).records
    assert record["features"].size == 0
    assert math.isnan(record["schedule_oob_mmce"]) and record["sequence"] == ""


def test_same_seed_same_selection(problem, prepared):
    X, y, costs = problem
    budgets = [0.6, 1.0, 2.0]
    first = run_method(
        "msb", X, y, costs, budgets, [], prepared=prepared, seed=5, n_jobs=2, **SMALL
    ).records
    second = run_method("msb", X, y, costs, budgets, [], prepared=prepared, seed=5, **SMALL).records
    for a, b in zip(first, second, strict=True):
        assert np.array_equal(a["features"], b["features"])


def test_schedule_artifacts_store_without_pickle(rng):
    # Every feature carries signal, so the full model (cost 2.6) is the schedule's most
    # accurate and most expensive entry, whatever the forests draw.
    X = rng.normal(size=(200, 6))
    y = (X.sum(axis=1) > 0).astype(int)
    costs = np.array([0.4, 0.3, 0.3, 0.5, 0.2, 0.9])
    prepared = prepare_method("msb", X, y, seed=1, **SMALL)
    selection = run_method(
        "msb", X, y, costs, [1.0], [], prepared=prepared, seed=5, full_schedule=True, **SMALL
    )
    records, arrays = selection.records, selection.artifacts
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as stored:
        schedule = msb.schedule_from_arrays({name: stored[name] for name in stored.files})
    # the complete schedule reaches the full model's cost region and contains the choice
    assert schedule["cost"].max() > 1.0
    assert tuple(records[0]["features"]) in set(schedule["features"])
