import numpy as np
import pandas as pd
import pytest
import yaml

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.methods import cegb
from tests.conftest import DATA, REPO, run_method


@pytest.fixture(scope="module")
def wdbc():
    data = pd.read_csv(DATA / "wdbc.csv.gz")
    X = data.drop(columns="target").to_numpy(dtype=float)
    return X, data["target"].to_numpy()


def test_every_budget_of_the_default_study_is_kept_on_wdbc(wdbc):
    X, y = wdbc
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    budgets = config["real_data"]["datasets"]["wdbc"]["budgets"]
    settings = config["methods"]["cegb"]
    costs = np.random.default_rng(3).uniform(0.1, 1.0, X.shape[1])
    selection = run_method(
        "cegb",
        X,
        y,
        costs,
        budgets,
        [],
        seed=1,
        n_estimators=settings["n_estimators"],
        n_bisections=settings["n_bisections"],
    )
    spent = [costs[record["features"]].sum() for record in selection.records]
    assert all(s <= b + BUDGET_TOLERANCE for s, b in zip(spent, budgets, strict=True))
    assert all(len(record["features"]) > 0 for record in selection.records)
    assert spent == sorted(spent)  # more money buys more here


def test_the_tradeoff_is_the_smallest_found_within_the_budget_with_groups(wdbc):
    X, y = wdbc
    own = np.random.default_rng(4).uniform(0.1, 1.0, X.shape[1])
    groups = ["draw" if j % 5 == 0 else None for j in range(X.shape[1])]
    costs = FeatureCosts.grouped(own, groups, {"draw": 0.5})
    used = cegb.UsedFeatures(X, y, costs, seed=1, n_estimators=20, num_leaves=31, learning_rate=0.1)
    for budget in (0.5, 1.5, 4.0):
        features, tradeoff = cegb.within_budget(used, costs, budget, n_bisections=6)
        assert costs.total(features) <= budget + BUDGET_TOLERANCE
        assert np.array_equal(features, used(tradeoff))
        # the plain model is over budget, so some smaller tradeoff was tried and did not fit
        assert costs.total(used(0.0)) > budget
        below = [t for t in used.memo if t < tradeoff]
        assert any(costs.total(used(t)) > budget + BUDGET_TOLERANCE for t in below)


def test_a_budget_the_plain_model_fits_takes_the_plain_model(wdbc):
    X, y = wdbc
    costs = np.full(X.shape[1], 0.01)
    used = cegb.UsedFeatures(X, y, costs, seed=1, n_estimators=20, num_leaves=31, learning_rate=0.1)
    features, tradeoff = cegb.within_budget(used, costs, 10.0, n_bisections=6)
    assert tradeoff == 0.0 and np.array_equal(features, used(0.0))


def mostly_zero_problem():
    """2000 x 30, three quarters of each column zero: LightGBM bundles such sparse columns."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(2000, 30)) * (rng.random((2000, 30)) < 0.25)
    y = (X[:, :6].sum(axis=1) + rng.normal(scale=0.5, size=2000) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("data", ["wdbc", "mostly zero"])
def test_the_used_features_are_the_same_on_one_thread_or_two(wdbc, data):
    """`deterministic=True`: LightGBM's model, so the features it uses, does not depend on the
    threads (a selection job runs on two), dense columns or sparse ones."""
    X, y = wdbc if data == "wdbc" else mostly_zero_problem()
    costs = np.random.default_rng(5).uniform(0.1, 1.0, X.shape[1])
    options = dict(seed=3, n_estimators=20, num_leaves=31, learning_rate=0.1)
    one, two = (cegb.UsedFeatures(X, y, costs, n_jobs=n, **options) for n in (1, 2))
    tradeoffs = [0.0, 0.01, 0.1, 0.5, 2.0, 20.0]
    assert all(np.array_equal(one(t), two(t)) for t in tradeoffs)
    assert len({len(one(t)) for t in tradeoffs}) >= 3  # the tradeoffs use different sets
