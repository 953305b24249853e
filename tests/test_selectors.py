import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier

from tests.conftest import SELECTORS


def selector_for(method, costs):
    return SELECTORS[method]().set_params(feature_costs=costs, budget=1.0, xi=1.0, random_state=0)


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(150, 6))
    y = (X[:, 0] + 0.5 * X[:, 3] + rng.normal(scale=0.5, size=150) > 0).astype(int)
    costs = np.array([0.4, 0.3, 0.3, 0.5, 0.2, 0.9])
    return X, y, costs


@pytest.mark.parametrize("method", sorted(SELECTORS))
def test_selector_contract(method, problem):
    X, y, costs = problem
    selector = selector_for(method, costs)
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


@pytest.mark.parametrize("method", sorted(SELECTORS))
def test_selector_keeps_dataframe_feature_names(method, problem):
    X, y, costs = problem
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    selector = selector_for(method, costs).fit(frame, y)
    expected = [f"f{j}" for j in selector.selected_features_]
    assert list(selector.get_feature_names_out()) == expected


@pytest.mark.parametrize("method", sorted(SELECTORS))
def test_selector_in_a_pipeline(method, problem):
    X, y, costs = problem
    model = make_pipeline(selector_for(method, costs), DecisionTreeClassifier(random_state=0)).fit(
        X, y
    )
    assert model.predict(X).shape == (150,)


@pytest.mark.parametrize("method", sorted(SELECTORS))
def test_precomputed_scores_are_reused(method, problem):
    X, y, costs = problem
    fitted = selector_for(method, costs).fit(X, y)
    for budget, xi in ((0.5, 0.0), (2.0, 2.0)):
        direct = selector_for(method, costs).set_params(budget=budget, xi=xi).fit(X, y)
        reused = selector_for(method, costs).set_params(
            budget=budget, xi=xi, precomputed=fitted.precomputed_
        )
        reused.fit(X, y)
        assert np.array_equal(direct.selected_features_, reused.selected_features_)
        assert reused.precomputed_ is fitted.precomputed_


@pytest.mark.parametrize("method", sorted(SELECTORS))
def test_labels_other_than_zero_one(method, problem):
    X, y, costs = problem
    named = np.where(y == 1, "spam", "ham")
    assert np.array_equal(
        selector_for(method, costs).fit(X, named).get_support(),
        selector_for(method, costs).fit(X, y).get_support(),
    )
