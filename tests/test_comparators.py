"""XGB-FS, ReliefF and Boruta: cost-agnostic rankings filled to the budget."""

import math
import sys

import numpy as np
import pytest

from costfs.core.costs import BUDGET_TOLERANCE
from costfs.engine.forest import gini_importances, random_forest
from costfs.methods import boruta, relieff, xgb_fs
from tests.conftest import prepare_method, run_method, small_selector

SMALL = {
    "xgb_fs": {"n_estimators": 20, "max_depth": 4},
    "relieff": {},
    "boruta": {"max_iter": 12, "n_estimators": 40},
}
MODULES = {"xgb_fs": xgb_fs, "relieff": relieff, "boruta": boruta}
N_INFORMATIVE = 2


@pytest.fixture(scope="module")
def easy_problem():
    """Two informative columns, six of pure noise."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=160)
    X = rng.normal(size=(160, 8))
    X[:, 0] += 2.0 * y
    X[:, 1] -= 1.5 * y
    return X, y


@pytest.fixture(scope="module")
def prepared(easy_problem):
    X, y = easy_problem
    return {name: prepare_method(name, X, y, seed=3, **SMALL[name]) for name in MODULES}


def select(name, prepared, X, y, costs, budgets, **params):
    return run_method(
        name, X, y, costs, budgets, [], prepared=prepared[name], seed=3, **SMALL[name], **params
    ).records


@pytest.mark.parametrize("name", MODULES)
def test_budget_never_exceeded(name, easy_problem, prepared):
    X, y = easy_problem
    rng = np.random.default_rng(1)
    for _ in range(20):
        costs = rng.uniform(0.05, 1.0, size=X.shape[1])
        budgets = sorted(rng.uniform(0.1, 4.0, size=3).tolist())
        records = select(name, prepared, X, y, costs, budgets)
        assert [record["budget"] for record in records] == budgets
        for record in records:
            spent = costs[record["features"]].sum()
            assert spent <= record["budget"] + BUDGET_TOLERANCE
            assert record["unused_budget"] == pytest.approx(record["budget"] - spent)
            assert math.isnan(record["value"])


@pytest.mark.parametrize("name", MODULES)
def test_empty_set_when_every_cost_exceeds_the_budget(name, easy_problem, prepared):
    X, y = easy_problem
    costs = np.full(X.shape[1], 2.0)
    (record,) = select(name, prepared, X, y, costs, [1.5])
    assert record["features"].size == 0


@pytest.mark.parametrize("name", MODULES)
def test_same_seed_same_selection(name, easy_problem, prepared):
    X, y = easy_problem
    again = prepare_method(name, X, y, seed=3, **SMALL[name])
    for key, values in prepared[name].items():
        assert np.array_equal(again[key], values)


@pytest.mark.parametrize("name", MODULES)
def test_informative_features_ranked_above_noise(name, easy_problem, prepared):
    X, y = easy_problem
    costs = np.ones(X.shape[1])
    (record,) = select(name, prepared, X, y, costs, [N_INFORMATIVE])
    assert record["features"].tolist() == [0, 1]


@pytest.mark.parametrize("module", [xgb_fs, relieff])
def test_mean_threshold_limits_the_fill(module, easy_problem, prepared):
    X, y = easy_problem
    name = module.__name__.rsplit(".", 1)[1]
    scores = prepared[name]["scores"]
    costs = np.full(X.shape[1], 0.1)
    (thresholded,) = select(name, prepared, X, y, costs, [10.0])
    (everything,) = select(name, prepared, X, y, costs, [10.0], threshold="none")
    assert thresholded["features"].tolist() == np.flatnonzero(scores >= scores.mean()).tolist()
    assert everything["features"].tolist() == list(range(X.shape[1]))
    with pytest.raises(ValueError, match="threshold"):
        select(name, prepared, X, y, costs, [10.0], threshold="median")


def test_boruta_keeps_its_decisions_apart():
    decisions = np.array([boruta.REJECTED, boruta.CONFIRMED, boruta.TENTATIVE, boruta.CONFIRMED])
    importance = np.array([0.9, 0.1, 0.5, 0.3])
    costs = np.ones(4)
    assert boruta.boruta_order(decisions, importance, costs, "confirmed").tolist() == [3, 1]
    assert boruta.boruta_order(decisions, importance, costs, "tentative").tolist() == [3, 1, 2]
    assert boruta.boruta_order(decisions, importance, costs, "all").tolist() == [3, 1, 2, 0]


def test_boruta_confirms_the_informative_features(prepared):
    decisions = prepared["boruta"]["decisions"]
    assert (decisions[:N_INFORMATIVE] == boruta.CONFIRMED).all()


@pytest.mark.parametrize("engine", ["sklearnex", "sklearn"])
@pytest.mark.parametrize("missing", [False, True])
def test_gini_importances_are_the_forests_own_and_draw_what_it_draws(easy_problem, engine, missing):
    """Boruta's importances, the same floats as `feature_importances_`, and its generator
    (shared with the forest) left where `feature_importances_` leaves it; with missing values
    sklearnex fits scikit-learn's forest."""
    X, y = easy_problem
    if missing:
        X = X.copy()
        X[::7, 0] = np.nan
    importances, next_draws = [], []
    for compute in (gini_importances, lambda forest: forest.feature_importances_):
        generator = np.random.RandomState(11)
        forest = random_forest(n_trees=1, n_features=X.shape[1], seed=0, engine=engine)
        forest.set_params(
            n_estimators=30, random_state=generator, oob_score=False, max_depth=5
        ).fit(X, y)
        importances.append(compute(forest))
        next_draws.append(generator.randint(2**31))
    assert np.array_equal(importances[0], importances[1])
    assert next_draws[0] == next_draws[1]
    assert importances[0].sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("method", "module"),
    [
        ("xgb_fs", "xgboost"),
        ("featboost", "xgboost"),
        ("relieff", "skrebate"),
        ("boruta", "boruta"),
    ],
)
def test_a_missing_extra_is_named(method, module, monkeypatch, rng):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    X = rng.normal(size=(40, 4))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ImportError, match=rf"needs the package '{module}'.*costfs\[related\]"):
        small_selector(method, budget=2.0).fit(X, y)


@pytest.mark.parametrize(
    "kind", ["continuous", "discrete", "mixed", "missing", "multiclass", "small class"]
)
def test_relieff_scores_are_skrebates_own(kind):
    """The neighbour search in numpy finds skrebate's neighbours: its scores, float for float,
    with ties in distance (discrete columns), missing values, three classes, and a class of
    fewer rows than `n_neighbors` (whose rows count themselves as hits, as in skrebate)."""
    skrebate = pytest.importorskip("skrebate")
    rng = np.random.default_rng(5)
    n_rows = 90
    y = rng.integers(0, 3 if kind == "multiclass" else 2, size=n_rows)
    if kind == "small class":
        y = np.where(np.arange(n_rows) < 6, 2, y)
    X = rng.normal(size=(n_rows, 6)) + y[:, None] * np.array([1.0, 0.5, 0, 0, 0, 0])
    if kind in ("discrete", "mixed"):
        columns = slice(None) if kind == "discrete" else slice(0, 3)
        X[:, columns] = np.round(X[:, columns])
    if kind == "missing":
        X[rng.random(X.shape) < 0.1] = np.nan
    stock = skrebate.ReliefF(
        n_neighbors=10,
        categorical_threshold=10,
        label_type="binary" if np.unique(y).size == 2 else "multiclass",
        n_jobs=1,
    ).fit(X, y)
    scores = relieff.relieff_scores(X, y, n_neighbors=10, categorical_threshold=10)
    assert np.array_equal(scores, stock.feature_importances_)
