import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier

import costfs
from costfs.validation import DataError

SELECTORS = [
    lambda costs: costs_selector(costfs.AUCFilter, costs),
    lambda costs: costs_selector(costfs.PermutationImportanceFilter, costs, n_trees=40),
    lambda costs: costs_selector(costfs.ShallowTreeSelector, costs, trees_per_depth=20),
    lambda costs: costs_selector(costfs.FeatureLimitedTreeSelector, costs, trees_per_k=10),
]


def costs_selector(cls, costs, **extra):
    return cls(feature_costs=costs, budget=1.0, xi=1.0, random_state=0, **extra)


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(150, 6))
    y = (X[:, 0] + 0.5 * X[:, 3] + rng.normal(scale=0.5, size=150) > 0).astype(int)
    costs = np.array([0.4, 0.3, 0.3, 0.5, 0.2, 0.9])
    return X, y, costs


@pytest.mark.parametrize("make", SELECTORS)
def test_selector_contract(make, problem):
    X, y, costs = problem
    selector = make(costs)
    with pytest.raises(NotFittedError):
        selector.get_support()
    assert selector.fit(X, y) is selector
    support = selector.get_support()
    assert support.shape == (6,) and support.dtype == bool
    assert costs[support].sum() <= 1.0 + 1e-9
    assert selector.total_cost_ == pytest.approx(costs[support].sum())
    assert np.array_equal(selector.get_support(indices=True), selector.selected_features_)
    assert np.array_equal(selector.transform(X), X[:, support])
    cloned = clone(selector)
    assert not hasattr(cloned, "support_")
    assert np.array_equal(cloned.get_params()["feature_costs"], costs)
    assert np.array_equal(cloned.fit(X, y).get_support(), support)


@pytest.mark.parametrize("make", SELECTORS)
def test_selector_keeps_dataframe_feature_names(make, problem):
    X, y, costs = problem
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    selector = make(costs).fit(frame, y)
    expected = [f"f{j}" for j in selector.selected_features_]
    assert list(selector.get_feature_names_out()) == expected


@pytest.mark.parametrize("make", SELECTORS)
def test_selector_in_a_pipeline(make, problem):
    X, y, costs = problem
    model = make_pipeline(make(costs), DecisionTreeClassifier(random_state=0)).fit(X, y)
    assert model.predict(X).shape == (150,)


@pytest.mark.parametrize("make", SELECTORS)
def test_precomputed_scores_are_reused(make, problem):
    X, y, costs = problem
    fitted = make(costs).fit(X, y)
    for budget, xi in ((0.5, 0.0), (2.0, 2.0)):
        direct = make(costs).set_params(budget=budget, xi=xi).fit(X, y)
        reused = make(costs).set_params(budget=budget, xi=xi, precomputed=fitted.precomputed_)
        reused.fit(X, y)
        assert np.array_equal(direct.selected_features_, reused.selected_features_)
        assert reused.precomputed_ is fitted.precomputed_


@pytest.mark.parametrize("make", SELECTORS)
def test_labels_other_than_zero_one(make, problem):
    X, y, costs = problem
    named = np.where(y == 1, "spam", "ham")
    assert np.array_equal(
        make(costs).fit(X, named).get_support(), make(costs).fit(X, y).get_support()
    )


@pytest.mark.parametrize("make", SELECTORS)
def test_budget_below_every_cost_selects_nothing(make, problem):
    X, y, costs = problem
    selector = make(costs).set_params(budget=0.1).fit(X, y)
    assert selector.selected_features_.size == 0
    assert selector.total_cost_ == 0.0


@pytest.mark.parametrize("make", SELECTORS)
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(feature_costs=[0.1, 0.2]), "expected 6 costs"),
        (dict(feature_costs=[0.1, 0.2, 0.3, 0.4, 0.5, -1.0]), "cost of feature 5"),
        (dict(feature_costs=[0.1, 0.2, 0.3, 0.4, 0.5, np.nan]), "cost of feature 5"),
        (dict(feature_costs=None), "costs are missing"),
        (dict(budget=0), "budget"),
        (dict(budget="lots"), "budget"),
    ],
)
def test_bad_costs_and_budgets_are_named(make, problem, change, message):
    X, y, costs = problem
    with pytest.raises(DataError, match=message):
        make(costs).set_params(**change).fit(X, y)


@pytest.mark.parametrize("make", SELECTORS)
def test_single_class_target_is_rejected(make, problem):
    X, _, costs = problem
    with pytest.raises(DataError, match="exactly two classes"):
        make(costs).fit(X, np.zeros(150))


@pytest.mark.parametrize("make", SELECTORS)
def test_missing_values_are_rejected(make, problem):
    X, y, costs = problem
    X = X.copy()
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        make(costs).fit(X, y)
