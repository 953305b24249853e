"""The contract every method keeps, checked the same way for every file under
src/costfs/methods/: its declaration, its selections (budget, empty set, seeds, reuse of the
cost-free part) and its scikit-learn selector. A new method file is checked by being there."""

import inspect
import math
import re

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

import costfs
from costfs.cli import storage
from costfs.cli.stages.selection import selection_table
from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.core.errors import DataError
from costfs.methods import load_method, load_selector, method_names
from costfs.methods._base import Method, Selection
from costfs.methods._kept import clear_all
from costfs.methods._selector import FINGERPRINT, CostConstrainedSelector
from costfs.study.method_docs import DOCUMENTS, updated
from tests.conftest import REPO, SMALL, run_method, small_selector

METHODS = method_names()


@pytest.fixture(params=METHODS)
def method(request) -> str:
    return request.param


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(150, 6))
    y = (X[:, 0] + 0.5 * X[:, 3] + rng.normal(scale=0.5, size=150) > 0).astype(int)
    costs = np.array([0.4, 0.3, 0.3, 0.5, 0.2, 0.9])
    return X, y, costs


def grid_of(method: str) -> list:
    hyperparameter = load_method(method).hyperparameter
    if hyperparameter is None:
        return []
    return [0.0, 1.0, 2.0] if hyperparameter.name == "xi" else list(hyperparameter.grid[:2])


# The declaration


def test_the_method_is_declared_in_its_own_file(method):
    declared = load_method(method)
    assert isinstance(declared, Method) and declared.name == method
    assert declared.summary and all(parameter.help for parameter in declared.parameters)
    selector = getattr(costfs, type(declared).__name__)
    assert selector is load_selector(method) and selector.name == method
    assert issubclass(selector, type(declared)) and issubclass(selector, CostConstrainedSelector)
    assert type(declared).__module__ == f"costfs.methods.{method}"
    source = (REPO / "src" / "costfs" / "methods" / f"{method}.py").read_text()
    assert re.search(rf"^class {type(declared).__name__}\(", source, re.MULTILINE)
    assert declared.figure_colour().startswith("#")
    assert set(declared.strategies) <= {"agnostic", "simple", "tuned", "fixed"}


def test_the_package_names_every_method_s_selector_once():
    assert {type(load_method(name)).__name__: name for name in METHODS} == costfs.SELECTORS
    assert sorted(costfs.__all__) == sorted(
        [*costfs.SELECTORS, "area_under_pareto", "cost_accuracy_curve", "pareto_front"]
    )


def test_prepare_and_select_take_exactly_their_stage_parameters(method):
    declared = load_method(method)
    for stage in ("prepare", "select"):
        if stage == "prepare" and not declared.has_preparation:
            continue
        signature = inspect.signature(getattr(declared, stage))
        keywords = {
            name
            for name, parameter in signature.parameters.items()
            if parameter.kind == parameter.KEYWORD_ONLY
        }
        assert keywords == set(declared.stage_parameters({}, stage)), stage
        assert list(signature.parameters)[-len(keywords) - 1] == "context", stage


def test_the_selector_signature_follows_the_declaration(method):
    declared = load_method(method)
    signature = inspect.signature(load_selector(method))
    assert all(p.kind == p.KEYWORD_ONLY for p in signature.parameters.values())
    assert all(p.annotation is not p.empty for p in signature.parameters.values())
    names = list(signature.parameters)
    assert [p.name for p in declared.parameters] == [n for n in names if n in declared.defaults()]
    expected = {
        "feature_costs",
        "feature_groups",
        "group_costs",
        "budget",
        "path_budgets",
        "random_state",
        "n_jobs",
        *declared.defaults(),
    }
    if declared.hyperparameter is not None:
        expected.add(declared.hyperparameter.name)
    if declared.has_preparation:
        expected.add("precomputed")
    if declared.all_engines:
        expected.add("engine")
    assert set(names) == expected
    for parameter in declared.parameters:
        default = signature.parameters[parameter.name].default
        expected = parameter.default
        assert default == (tuple(expected) if isinstance(expected, list) else expected)
        # every default is a valid value
        declared.check_parameters({parameter.name: default}, "default")


def test_bad_parameter_values_are_named(method, problem):
    X, y, costs = problem
    for parameter in load_method(method).parameters:
        selector = small_selector(method, feature_costs=costs, **{parameter.name: "not-a-value"})
        with pytest.raises(ValueError, match=f"parameter {parameter.name}: 'not-a-value'"):
            selector.fit(X, y)


@pytest.mark.parametrize("value", [-1.0, math.nan, math.inf])
def test_bad_hyperparameter_values_are_named(method, problem, value):
    """The selector's value and every value of a grid are checked against the hyperparameter's
    schema; a method without a hyperparameter has no such keyword."""
    X, y, costs = problem
    hyperparameter = load_method(method).hyperparameter
    if hyperparameter is None:
        with pytest.raises(TypeError, match="xi"):
            small_selector(method, xi=value)
        return
    name = hyperparameter.name
    selector = small_selector(method, feature_costs=costs, **{name: value})
    with pytest.raises(DataError, match=f"{type(selector).__name__}: parameter {name}: {value!r}"):
        selector.fit(X, y)
    with pytest.raises(DataError, match=f"parameter {name}: {value!r}"):
        run_method(method, X, y, costs, [1.0], [grid_of(method)[0], value], **small(method))


@pytest.mark.parametrize("path", sorted(DOCUMENTS))
def test_generated_documents_are_current(path):
    text = (REPO / path).read_text()
    assert updated(path, text) == text, f"run scripts/update_docs.py ({path} is stale)"


# The selections


def test_budget_is_never_exceeded(method, rng):
    for instance in range(2):
        X = rng.normal(size=(90, 7))
        y = (X[:, instance] + rng.normal(size=90) > 0).astype(int)
        costs = rng.uniform(0.1, 1.0, size=7)
        budgets = [0.3, 1.0, 2.5, 10.0]
        selection = run_method(
            method, X, y, costs, budgets, grid_of(method), seed=instance, **small(method)
        )
        assert isinstance(selection, Selection)
        # every (value, budget) equally often (BudgetRF: once per cost exponent)
        cells = pd.Series([(record["value"], record["budget"]) for record in selection.records])
        counts = cells.map(lambda cell: (float(cell[0]) if grid_of(method) else 0, cell[1]))
        expected = {(float(v), b) for v in grid_of(method) or [0] for b in budgets}
        assert set(counts) == expected
        assert counts.value_counts().nunique() == 1
        for record in selection.records:
            features = np.asarray(record["features"])
            assert np.array_equal(features, np.unique(features))
            assert costs[features].sum() <= record["budget"] + BUDGET_TOLERANCE


def test_shared_group_costs_are_paid_once_and_the_budget_holds(method, rng):
    """Features 0, 1, 3 share a group of cost 0.6, paid once: every selection's true cost
    (own costs plus each used group once) fits its budget, and the selector reports it."""
    X = rng.normal(size=(120, 6))
    y = (X[:, 0] + X[:, 1] + X[:, 3] + rng.normal(scale=0.5, size=120) > 0).astype(int)
    own = np.array([0.2, 0.3, 0.4, 0.2, 0.5, 0.6])
    costs = FeatureCosts.grouped(own, ["lab", "lab", None, "lab", None, None], {"lab": 0.6})
    budgets = [0.5, 1.0, 1.6]
    selection = run_method(method, X, y, costs, budgets, grid_of(method), seed=1, **small(method))
    for record in selection.records:
        assert costs.total(record["features"]) <= record["budget"] + BUDGET_TOLERANCE
    selector = small_selector(
        method,
        feature_costs=own,
        feature_groups=["lab", "lab", None, "lab", None, None],
        group_costs={"lab": 0.6},
        budget=1.6,
        random_state=1,
    ).fit(X, y)
    assert selector.total_cost_ == pytest.approx(costs.total(selector.selected_features_))
    assert selector.total_cost_ <= 1.6 + BUDGET_TOLERANCE


def test_free_features_cost_nothing_and_fit_any_budget(method, rng):
    """Features 0 and 3 are free (cost 0), features 1 and 2 cost nothing beyond their group's
    shared cost: below every positive cost exactly the free features are selected, and every
    selection's true cost fits its budget."""
    X = rng.normal(size=(150, 6))
    y = (X[:, 0] + X[:, 1] + X[:, 3] + rng.normal(scale=0.5, size=150) > 0).astype(int)
    own = np.array([0.0, 0.0, 0.0, 0.0, 0.2, 0.9])
    costs = FeatureCosts.grouped(own, [None, "lab", "lab", None, None, None], {"lab": 0.5})
    budgets = [0.1, 0.6, 2.0]
    selection = run_method(method, X, y, costs, budgets, grid_of(method), seed=2, **small(method))
    for record in selection.records:
        features = np.asarray(record["features"], dtype=int)
        assert costs.total(features) <= record["budget"] + BUDGET_TOLERANCE
        if record["budget"] == 0.1:  # the two free features, both informative
            assert set(features.tolist()) == {0, 3}
    selector = small_selector(method, feature_costs=own, budget=0.1, random_state=2).fit(X, y)
    assert set(selector.selected_features_.tolist()) <= {0, 3, 1, 2}
    assert selector.total_cost_ == 0.0


def test_empty_set_when_nothing_fits(method, problem):
    X, y, costs = problem
    selection = run_method(method, X, y, costs, [0.1], grid_of(method), **small(method))
    assert all(len(record["features"]) == 0 for record in selection.records)


def test_same_seed_same_selection_on_one_thread_or_two(method, problem):
    X, y, costs = problem
    runs = []
    for n_jobs in (1, 2):
        clear_all()  # the second run computes afresh, on its own threads
        runs.append(
            run_method(method, X, y, costs, [0.8, 2.0], grid_of(method), seed=5, n_jobs=n_jobs)
        )
    for first, second in zip(*(run.records for run in runs), strict=True):
        assert np.array_equal(first["features"], second["features"])


def test_the_selection_table_reads_as_pandas_would_have_written_it(method, problem, tmp_path):
    # The selection job writes its table without pandas; the evaluation and BudgetRF's join
    # read it, and it must hold what a table built by pandas from the records would hold.
    X, y, costs = problem
    selection = run_method(method, X, y, costs, [0.8, 2], grid_of(method), **small(method))
    storage.write_table(
        tmp_path / "written.parquet", selection_table(load_method(method), selection, "numba")
    )
    expected = pd.DataFrame(selection.records).astype({"value": float})
    expected["features"] = [np.asarray(f, dtype=np.int64).tolist() for f in expected["features"]]
    hyperparameter = load_method(method).hyperparameter
    expected.insert(0, "hyperparameter", "" if hyperparameter is None else hyperparameter.name)
    expected["selection_engine"] = "numba"
    storage.write_table(tmp_path / "expected.parquet", expected)
    schemas = [
        pq.read_schema(tmp_path / f"{name}.parquet").remove_metadata()
        for name in ("written", "expected")
    ]
    assert schemas[0] == schemas[1]
    pd.testing.assert_frame_equal(
        storage.read_table(tmp_path / "written.parquet"),
        storage.read_table(tmp_path / "expected.parquet"),
    )


def test_a_cost_free_part_of_other_data_or_settings_is_refused_naming_what_differs(method, problem):
    X, y, costs = problem
    declared = load_method(method)
    if not declared.has_preparation:
        return
    fitted = small_selector(method, feature_costs=costs, random_state=0).fit(X, y)
    reused = {"feature_costs": costs, "precomputed": fitted.precomputed_}
    other_X, other_y = X.copy(), y.copy()
    other_X[0, 0] += 1.0
    other_y[[0, 1]] = other_y[[1, 0]] if other_y[0] != other_y[1] else 1 - other_y[[0, 1]]
    cases = [
        (small_selector(method, random_state=0, **reused), other_X, y, r"another X than"),
        (small_selector(method, random_state=0, **reused), X, other_y, r"another y than"),
        (small_selector(method, random_state=1, **reused), X, y, r"random_state or engine"),
    ]
    for selector, X_fit, y_fit, message in cases:
        with pytest.raises(DataError, match=message):
            selector.fit(X_fit, y_fit)
    without = {key: value for key, value in fitted.precomputed_.items() if key != FINGERPRINT}
    with pytest.raises(DataError, match="has no 'fingerprint'"):
        small_selector(method, feature_costs=costs, random_state=0, precomputed=without).fit(X, y)


def test_preparation_is_reused_across_budgets_and_hyperparameter(method, problem, monkeypatch):
    X, y, costs = problem
    declared = load_method(method)
    fitted = small_selector(method, feature_costs=costs, random_state=0).fit(X, y)
    if not declared.has_preparation:
        assert fitted.precomputed_ is None
        return
    value = grid_of(method)[-1] if declared.hyperparameter else None
    changes = [{"budget": 0.5}, {"budget": 2.0}]
    if value is not None:
        changes.append({"budget": 2.0, declared.hyperparameter.name: value})
    direct = [
        small_selector(method, feature_costs=costs, random_state=0, **change).fit(X, y)
        for change in changes
    ]

    def no_preparation(*args, **kwargs):
        raise AssertionError("the cost-free part was computed again")

    monkeypatch.setattr(type(declared), "prepare", no_preparation)
    for change, expected in zip(changes, direct, strict=True):
        reused = small_selector(
            method, feature_costs=costs, random_state=0, precomputed=fitted.precomputed_, **change
        ).fit(X, y)
        assert np.array_equal(reused.selected_features_, expected.selected_features_)
        assert reused.precomputed_ is fitted.precomputed_


# The selector


def test_selector_contract(method, problem):
    X, y, costs = problem
    selector = small_selector(method, feature_costs=costs, budget=1.0, random_state=0)
    with pytest.raises(NotFittedError):
        selector.get_support()
    assert selector.fit(X, y) is selector
    support = selector.get_support()
    assert support.shape == (6,) and support.dtype == bool
    assert selector.total_cost_ == pytest.approx(costs[support].sum())
    assert selector.total_cost_ <= 1.0 + BUDGET_TOLERANCE
    assert np.array_equal(selector.get_support(indices=True), selector.selected_features_)
    assert np.array_equal(selector.transform(X), X[:, support])
    cloned = clone(selector)
    assert not hasattr(cloned, "support_")
    assert np.array_equal(cloned.fit(X, y).get_support(), support)
    named = np.where(y == 1, "spam", "ham")
    assert np.array_equal(clone(selector).fit(X, named).get_support(), support)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(6)])
    by_name = clone(selector).fit(frame, y)
    assert list(by_name.get_feature_names_out()) == [f"f{j}" for j in by_name.selected_features_]
    model = make_pipeline(clone(selector), DecisionTreeClassifier(random_state=0)).fit(X, named)
    assert set(model.predict(X)) <= {"spam", "ham"}


def test_the_selector_equals_the_method(method, problem):
    X, y, costs = problem
    declared = load_method(method)
    value = grid_of(method)[-1] if declared.hyperparameter else None
    options = {} if value is None else {declared.hyperparameter.name: value}
    selector = small_selector(method, feature_costs=costs, budget=1.5, random_state=4, **options)
    record = declared.choose_record(
        run_method(
            method, X, y, costs, [1.5], [] if value is None else [value], seed=4, **small(method)
        ).records
    )
    assert np.array_equal(selector.fit(X, y).selected_features_, record["features"])
    if value is None:
        assert math.isnan(record["value"])


def test_the_engine_reaches_every_forest_of_the_method(method, problem):
    """Under `auto` each stage runs on its first engine with the default parameters; an
    engine the study asks for reaches the stage's forests wherever the method supports it: the
    cost-free forest of pFI and msB included."""
    X, y, costs = problem
    declared = load_method(method)
    for stage in ("prepare", "select"):
        engines = declared.stage_engines(stage, declared.defaults())
        assert set(engines) <= set(declared.all_engines)
        assert declared.engine_for("auto", stage) == (engines[0] if engines else "none")
        for engine in ("sklearn", "sklearnex"):
            expected = engine if engine in engines else (engines[0] if engines else "none")
            assert declared.engine_for(engine, stage) == expected
    if "sklearnex" in declared.preparation_engines and declared.has_preparation:
        prepared = {
            engine: small_selector(method, feature_costs=costs, budget=1.5, engine=engine)
            .fit(X, y)
            .precomputed_
            for engine in ("sklearn", "sklearnex")
        }
        assert any(
            not np.array_equal(prepared["sklearn"][key], prepared["sklearnex"][key])
            for key in prepared["sklearn"]
            if key != FINGERPRINT
        )


def test_without_costs_every_feature_costs_one(method, problem):
    X, y, _ = problem
    selector = small_selector(method, budget=2.0, random_state=0).fit(X, y)
    assert selector.selected_features_.size <= 2
    assert selector.total_cost_ == selector.selected_features_.size


def small(method: str) -> dict:
    return SMALL.get(method, {})


# scikit-learn's own estimator checks. Several fit on targets with three or four classes
# (make_blobs): a method without multi-class support must refuse them with its DataError.
MULTI_CLASS_CHECKS = (
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_dtype_object",
    "check_estimators_fit_returns_self",
    "check_estimators_overwrite_params",
    "check_f_contiguous_array_estimator",
    "check_fit2d_predict1d",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
)


def expected_failed_checks(estimator) -> dict[str, str]:
    failing = {}
    if not estimator.multi_class:
        reason = f"method {estimator.name} handles two classes only (DataError)"
        failing |= dict.fromkeys(MULTI_CLASS_CHECKS, reason)
    if type(estimator).__name__ == "BorutaSelector":
        failing["check_transformer_n_iter"] = (
            "max_iter is Boruta's own; the selector has no n_iter_"
        )
    return failing


@parametrize_with_checks(
    [small_selector(method) for method in METHODS],
    expected_failed_checks=expected_failed_checks,
)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
