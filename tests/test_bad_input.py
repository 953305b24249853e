"""The bad-input corpus, walked through for every selector: each case is a `DataError` (or
scikit-learn's own error) naming the offending column, row, key or value, or a documented
behaviour that is asserted."""

import numpy as np
import pandas as pd
import pytest

from costfs.core.costs import BUDGET_TOLERANCE
from costfs.core.validation import DataError
from costfs.methods import load_method, method_names
from tests.conftest import small_selector

COSTS = np.array([0.4, 0.3, 0.3, 0.5, 0.2, 0.9])
NAMES = [f"f{j}" for j in range(6)]


def make(method: str, **parameters):
    return small_selector(
        method, **{"random_state": 0, "feature_costs": COSTS, "budget": 1.0, **parameters}
    )


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(150, 6))
    y = (X[:, 0] + 0.5 * X[:, 3] + rng.normal(scale=0.5, size=150) > 0).astype(int)
    return X, y


@pytest.fixture(params=method_names())
def method(request):
    return request.param


def test_infinite_values_are_named(method, problem):
    X, y = problem
    X = X.copy()
    X[3, 2] = np.inf
    with pytest.raises(DataError, match="inf in row 3, column 2 is infinite"):
        make(method).fit(X, y)
    frame = pd.DataFrame(X, columns=NAMES)
    with pytest.raises(DataError, match="column 'f2' has an infinite value"):
        make(method).fit(frame, y)


def test_a_column_without_values_is_named(method, problem):
    X, y = problem
    X = X.copy()
    X[:, 2] = np.nan
    with pytest.raises(DataError, match="column 2 has no values"):
        make(method).fit(X, y)
    with pytest.raises(DataError, match="column 'f2' has no values"):
        make(method).fit(pd.DataFrame(X, columns=NAMES), y)


def test_a_column_of_numbers_and_text_is_named_with_the_way_out(method, problem):
    X, y = problem
    frame = pd.DataFrame(X, columns=NAMES).astype(object)
    frame.loc[7, "f1"] = "?"
    with pytest.raises(DataError, match=r"column 'f1' mixes numbers and text \(e.g. '\?' in row 7"):
        make(method).fit(frame, y)


def informative_with_missing_values(rng, n_rows=300):
    """f0 and f3 carry the class; f0 misses 25% of its values, more often in class 1, and
    the rows that miss it are still informative through f3."""
    X = rng.normal(size=(n_rows, 6))
    y = (X[:, 0] + X[:, 3] + rng.normal(scale=0.5, size=n_rows) > 0).astype(int)
    X[rng.random(n_rows) < np.where(y == 1, 0.35, 0.15), 0] = np.nan
    return pd.DataFrame(X, columns=NAMES), y


def test_every_method_selects_an_informative_feature_that_misses_values(method, rng):
    """No method refuses missing values, and none loses the feature that misses them: with
    unit costs and a budget of two, f0 (25% missing) is selected (random_fill: any two
    features). STS gets its default ensemble: with twenty trees per depth it misses f0 on
    median-imputed data too."""
    frame, y = informative_with_missing_values(rng)
    larger = {"trees_per_depth": 500} if method == "sts" else {}
    selector = make(method, feature_costs=None, budget=2.0, **larger).fit(frame, y)
    assert selector.total_cost_ <= 2.0
    chosen = set(selector.get_feature_names_out())
    assert "f0" in chosen or (method == "random_fill" and len(chosen) == 2)


def categorical_problem(rng, n_rows=300):
    """`grade` (three levels as text) decides the class with `f0`; `site` has 500 levels and
    no signal; `smoker` is boolean."""
    grade = rng.choice(["low", "mid", "high"], size=n_rows)
    f0 = rng.normal(size=n_rows)
    shift = pd.Series(grade).map({"low": -1.5, "mid": 1.5, "high": 0.0}).to_numpy()
    y = (shift + f0 + rng.normal(scale=0.5, size=n_rows) > 0).astype(int)
    frame = pd.DataFrame(
        {
            "f0": f0,
            "grade": grade,
            "site": [f"site{i}" for i in rng.integers(0, 500, size=n_rows)],
            "smoker": rng.random(n_rows) < 0.3,
            "f1": rng.normal(size=n_rows),
        }
    )
    return frame, y


def test_every_method_selects_a_categorical_column_as_one_feature(method, rng):
    """A text column whose positive level (mid) sits between the others in sorted order (no
    threshold on sorted level codes isolates it): every method but random_fill selects it at
    a budget of two unit costs, and none takes the 500-level column of noise, which a coding
    by the training rows' own classes would make look perfect. The selection names the input
    columns."""
    frame, y = categorical_problem(rng)
    selector = make(method, feature_costs=None, budget=2.0).fit(frame, y)
    names = list(selector.get_feature_names_out())
    assert set(names) <= set(frame.columns) and selector.total_cost_ <= 2.0
    if method != "random_fill":
        assert "grade" in names and "site" not in names
    assert selector.transform(frame).shape == (300, len(names))


def test_a_categorical_column_is_priced_once_by_its_name(method, rng):
    frame, y = categorical_problem(rng)
    costs = {"f0": 1.0, "grade": 2.5, "site": 0.5, "smoker": 0.25, "f1": 1.0}
    selector = make(method, feature_costs=costs, budget=10.0).fit(frame, y)
    names = selector.get_feature_names_out()
    assert selector.total_cost_ == pytest.approx(sum(costs[name] for name in names))


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (np.ones(150), r"target has 1 class \(1.0\); at least two are needed"),
        (np.r_[np.zeros(149), np.nan], "missing or infinite"),
        (np.zeros(140), "expected 150 labels"),
    ],
)
def test_targets_without_two_classes_are_rejected(method, problem, target, message):
    X, _ = problem
    with pytest.raises(DataError, match=message):
        make(method).fit(X, target)


def test_three_classes_are_selected_on_or_refused_by_name(method, problem):
    X, _ = problem
    target = np.arange(150) % 3
    if load_method(method).multi_class:
        assert make(method).fit(X, target).total_cost_ <= 1.0 + BUDGET_TOLERANCE
    else:
        with pytest.raises(DataError, match=f"method {method} handles two classes only"):
            make(method).fit(X, target)


@pytest.mark.parametrize(
    ("costs", "message"),
    [
        (COSTS[:4], "expected 6 costs"),
        (np.r_[COSTS[:5], -1.0], "cost of feature 5 is -1.0"),
        (np.r_[COSTS[:5], np.nan], "cost of feature 5 is nan"),
        (list("abcdef"), "costs must be numbers"),
    ],
)
def test_bad_costs_are_named(method, problem, costs, message):
    X, y = problem
    with pytest.raises(DataError, match=message):
        make(method, feature_costs=costs).fit(X, y)


@pytest.mark.parametrize(("budget", "message"), [(-1.0, "-1.0"), ("a", "'a'"), (np.inf, "inf")])
def test_bad_budgets_are_named(method, problem, budget, message):
    X, y = problem
    with pytest.raises(DataError, match=f"budget: must be a number >= 0, got {message}"):
        make(method, budget=budget).fit(X, y)


def test_a_budget_of_0_buys_free_features_only(method, problem):
    """ "What do the free features give?": at budget 0 a method chooses among the features of
    cost 0 and pays nothing."""
    X, y = problem
    costs = np.array([0.0, 0.0, 3.0, 2.0, 1.0, 4.0])[: X.shape[1]]
    free = set(np.flatnonzero(costs == 0).tolist())
    selector = make(method, feature_costs=costs, budget=0).fit(X, y)
    chosen = set(np.flatnonzero(selector.get_support()).tolist())
    assert chosen <= free


def test_costs_keyed_by_name_follow_the_columns(method, problem):
    X, y = problem
    frame = pd.DataFrame(X, columns=NAMES)
    by_name = pd.Series(COSTS, index=NAMES).iloc[::-1]
    named = make(method, feature_costs=by_name).fit(frame, y)
    ordered = make(method).fit(frame, y)
    assert np.array_equal(named.get_support(), ordered.get_support())
    with pytest.raises(
        DataError, match=r"no cost for \['f5'\], costs for unknown features \['g'\]"
    ):
        make(method, feature_costs=dict(zip(NAMES[:5] + ["g"], COSTS, strict=True))).fit(frame, y)
    with pytest.raises(DataError, match="need X with column names"):
        make(method, feature_costs=dict(zip(NAMES, COSTS, strict=True))).fit(X, y)


def test_columns_at_transform_must_match_those_at_fit(method, problem):
    X, y = problem
    selector = make(method).fit(pd.DataFrame(X, columns=NAMES), y)
    renamed = pd.DataFrame(X, columns=[f"g{j}" for j in range(6)])
    with pytest.raises(ValueError, match="Feature names unseen at fit time:\n- g0"):
        selector.transform(renamed)
    with (
        pytest.warns(UserWarning, match="X does not have valid feature names"),
        pytest.raises(ValueError, match="X has 5 features, but .* is expecting 6"),
    ):
        selector.transform(X[:, :5])


def test_constant_column_is_never_chosen_over_an_informative_one(method, problem):
    X, y = problem
    X = X.copy()
    X[:, 0] = 3.0  # replaces the strongest feature, so f3 is the informative one left
    one_feature = make(method, feature_costs=np.ones(6), budget=1.5).fit(X, y)
    assert 0 not in one_feature.selected_features_
    everything = make(method, feature_costs=np.ones(6), budget=6.0).fit(X, y)
    assert everything.total_cost_ <= 6.0


def test_duplicated_columns_are_features_with_their_own_costs(method, problem):
    X, y = problem
    X = np.c_[X, X[:, 0]]
    costs = np.r_[COSTS, 0.4]
    first = make(method, feature_costs=costs).fit(X, y)
    second = make(method, feature_costs=costs).fit(X, y)
    assert np.array_equal(first.selected_features_, second.selected_features_)
    assert first.total_cost_ <= 1.0 + 1e-9


def test_budget_below_every_cost_selects_nothing(method, problem):
    X, y = problem
    selector = make(method, budget=0.1).fit(X, y)
    assert selector.selected_features_.size == 0 and selector.total_cost_ == 0.0
    with pytest.warns(UserWarning, match="No features were selected"):
        assert selector.transform(X).shape == (150, 0)


def test_budget_above_the_total_cost_stays_within_it(method, problem):
    X, y = problem
    selector = make(method, budget=100.0).fit(X, y)
    assert 0 < selector.selected_features_.size <= 6
    assert selector.total_cost_ <= COSTS.sum() + 1e-9


def test_a_few_rows_work_or_name_the_limit(method, rng):
    X = rng.normal(size=(8, 6))
    y = np.array([0, 1] * 3 + [0, 0])  # three rows of class 1, five of class 0
    selector = make(method, budget=100.0)
    if method == "featboost":
        selector.set_params(n_folds=4)
        with pytest.raises(DataError, match="n_folds=4 .* a class has only 3"):
            selector.fit(X, y)
        selector.set_params(n_folds=3)
    selector.fit(X, y)
    assert selector.total_cost_ <= COSTS.sum() + 1e-9
