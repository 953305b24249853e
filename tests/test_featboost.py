import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from costfs.core.costs import BUDGET_TOLERANCE
from costfs.methods import _knn, featboost
from costfs.methods._xgboost import xgboost_classifier
from costfs.methods.featboost import FeatBoostModels
from tests.conftest import declared, prepare_method, run_method

featboost_path = declared("featboost", featboost.featboost_path)

SMALL_XGBOOST = {"n_estimators": 10, "max_depth": 3}


def run(X, y, costs, budgets, grid, seed=0, **params):
    params = {**SMALL_XGBOOST, **params}
    return run_method("featboost", X, y, costs, budgets, grid, seed=seed, **params).records


def small_models(X, y, **params):
    return declared("featboost", FeatBoostModels)(X, y, seed=0, **{**SMALL_XGBOOST, **params})


@pytest.fixture
def easy_problem():
    """x0 cheap and informative, x1 dear and more informative, four noise columns."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=240)
    X = rng.normal(size=(240, 6))
    X[:, 0] += 1.5 * y
    X[:, 1] += 3.0 * y
    costs = np.array([0.1, 1.0, 0.5, 0.5, 0.5, 0.5])
    return X, y, costs


def random_instance(rng):
    n, p = 90, 7
    X = rng.normal(size=(n, p))
    y = (X[:, 0] - 0.7 * X[:, 2] + rng.normal(size=n) > 0).astype(int)
    return X, y, rng.uniform(0.1, 1.0, size=p)


class ScriptedModels:
    """Stands in for H1 and H2: equal weights rank 0, 1, 2, 3; any other weights rank 0, 3,
    1, 2. With two candidates only the reset to equal weights finds feature 1."""

    accuracy_by_set = {(): 0.5, (0,): 0.7, (1,): 0.6, (0, 3): 0.65, (0, 1): 0.8, (0, 1, 3): 0.75}
    n_rows = 4

    def equal_weights(self):
        return np.ones(self.n_rows)

    def importance(self, weights):
        ranking = [0, 1, 2, 3] if np.allclose(weights, 1) else [0, 3, 1, 2]
        importance = np.zeros(4)
        importance[ranking] = [4, 3, 2, 1]
        return importance

    def accuracy(self, features):
        return self.accuracy_by_set[tuple(sorted(features))]

    def accuracies(self, selected, candidates):
        return np.array([self.accuracy((*selected, int(j))) for j in candidates])

    def loss(self, features):
        return np.array([1.0, 2.0, 3.0, 4.0]) if features == (0,) else np.array([2.0, 1, 1, 1])


def test_the_reset_happens_at_most_once():
    path = featboost_path(ScriptedModels(), np.ones(4), budget=10.0, xi=0.0, n_candidates=2)
    # 0 is chosen; the re-weighted ranking offers only 3, which does not help; the reset (equal
    # weights) finds 1; then 3 fails again and, the reset being spent, the search stops.
    assert path.features == (0, 1)
    assert path.resets == 1
    assert path.stop == "repeated"
    assert path.accuracy == 0.8


def test_the_pseudocode_rule_rearms_the_reset_after_each_addition():
    path = featboost_path(
        ScriptedModels(), np.ones(4), budget=10.0, xi=0.0, n_candidates=2, reset_rule="rearm"
    )
    # as above until 1 is added, which re-arms the reset: 3 fails, the second reset offers
    # only selected features, and with the reset spent again the search stops.
    assert path.features == (0, 1)
    assert path.resets == 2
    assert path.stop == "repeated"


def test_stops_when_a_feature_would_be_selected_twice(easy_problem):
    X, y, _ = easy_problem
    copies = np.repeat(X[:, [0]], 3, axis=1)
    costs = np.array([0.3, 0.2, 0.4])
    models = small_models(copies, y)
    # Even accepting any loss of accuracy, a copy adds nothing and the selected copy (no added
    # cost) wins the tie: the best candidate is already selected, before and after the reset.
    path = featboost_path(models, costs, budget=10.0, xi=0.0, epsilon=-1.0)
    assert path.features == (1,)
    assert path.resets == 1
    assert path.stop == "repeated"


def test_same_seed_same_selection():
    X, y, costs = random_instance(np.random.default_rng(3))
    first = run(X, y, costs, [0.8, 2.0], [0.0, 1.0], seed=7)
    second = run(X, y, costs, [0.8, 2.0], [0.0, 1.0], seed=7)
    for a, b in zip(first, second, strict=True):
        assert np.array_equal(a["features"], b["features"])
        assert a["resets"] == b["resets"]


def test_budget_never_exceeded():
    rng = np.random.default_rng(11)
    for _ in range(4):
        X, y, costs = random_instance(rng)
        budgets = sorted(rng.uniform(0.2, 3.0, size=2))
        for record in run(X, y, costs, budgets, [0.0, 1.0, 2.0], n_candidates=4):
            spent = costs[record["features"]].sum()
            assert spent <= record["budget"] + BUDGET_TOLERANCE
            assert record["unused_budget"] == pytest.approx(record["budget"] - spent)
            assert record["resets"] in (0, 1)
            assert np.array_equal(record["features"], np.unique(record["features"]))


def test_paths_do_not_depend_on_the_other_paths_of_the_call():
    X, y, costs = random_instance(np.random.default_rng(5))
    together = run(X, y, costs, [0.7, 2.5], [0.0, 2.0])
    for record in together:
        (alone,) = run(X, y, costs, [record["budget"]], [record["value"]])
        assert np.array_equal(alone["features"], record["features"])


def test_prepared_ranking_is_the_one_select_computes():
    X, y, costs = random_instance(np.random.default_rng(8))
    params = {**SMALL_XGBOOST, "n_candidates": 3}
    prepared = prepare_method("featboost", X, y, seed=1, **params)
    models = declared("featboost", FeatBoostModels)(X, y, seed=1, **SMALL_XGBOOST)
    assert np.array_equal(models.importance(models.equal_weights()), prepared["scores"])


def test_empty_set_when_nothing_fits(easy_problem):
    X, y, costs = easy_problem
    (record,) = run(X, y, costs, [0.05], [1.0])
    assert record["features"].size == 0
    assert record["unused_budget"] == pytest.approx(0.05)
    path = featboost_path(small_models(X, y), costs, budget=0.05, xi=1.0)
    assert path.stop == "budget" and path.features == ()


def test_informative_features_first(easy_problem):
    X, y, costs = easy_problem
    models = small_models(X, y)
    agnostic = featboost_path(models, costs, budget=10.0, xi=0.0)
    assert agnostic.features[0] == 1
    # With a steep cost trade-off the cheap informative feature comes first.
    assert featboost_path(models, costs, budget=10.0, xi=2.0).features[0] == 0


def test_max_features_selected_caps_the_search(easy_problem):
    X, y, costs = easy_problem
    path = featboost_path(small_models(X, y), costs, 10.0, 0.0, max_features_selected=1)
    assert path.features == (1,) and path.stop == "max_features"


@pytest.mark.parametrize("n_classes", [2, 3])
def test_knn_accuracies_match_scikit_learn_with_the_scaler_fit_in_each_fold(n_classes):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 6)) * [1.0, 5.0, 0.2, 1.0, 3.0, 1.0] + [0, 0, 0, 4.0, 0, 0]
    X[:30, 3] += 10.0  # a shift that whole-data scaling would leak into the held-out fold
    signal = X[:, 0] + rng.normal(size=120)
    y = np.digitize(signal, [0.0] if n_classes == 2 else [-0.5, 0.5])
    models = small_models(X, y, n_neighbors=5)
    candidates = np.array([0, 2, 4, 5])
    expected = []
    for j in candidates:
        columns = X[:, [1, 3, j]]
        knn = make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=5))
        expected.append(
            np.mean(
                [
                    np.mean(knn.fit(columns[train], y[train]).predict(columns[test]) == y[test])
                    for train, test in models.folds
                ]
            )
        )
    assert np.allclose(models.accuracies((1, 3), candidates), expected)


def test_multi_class_loss_is_the_softmax_cross_entropy():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 4))
    y = np.digitize(X[:, 0] + rng.normal(scale=0.5, size=90), [-0.5, 0.5])
    models = small_models(X, y)
    model = xgboost_classifier(**models.xgboost).fit(X[:, [0, 2]], y)
    probability = model.predict_proba(X[:, [0, 2]])[np.arange(90), y]
    assert np.allclose(models.loss((0, 2)), -np.log(probability), rtol=1e-5)


def test_xgboost_evaluator(easy_problem):
    X, y, costs = easy_problem
    (record,) = run(X, y, costs, [2.0], [0.0], evaluator="xgboost", n_candidates=3)
    assert 1 in record["features"]
    assert costs[record["features"]].sum() <= 2.0 + BUDGET_TOLERANCE
    with pytest.raises(ValueError, match="evaluator"):
        run(X, y, costs, [2.0], [0.0], evaluator="svm")


def brute_force_votes(selected_distances, test_columns, train_columns, labels, k, n_classes):
    """`knn_votes`'s rule over every training row of every (candidate, test row) pair."""
    votes = np.empty(test_columns.shape, dtype=np.int64)
    for c, i in np.ndindex(*test_columns.shape):
        distances = selected_distances[i] + (test_columns[c, i] - train_columns[c]) ** 2
        kth = np.sort(distances)[k - 1]
        closer, tied = distances < kth, distances == kth
        score = np.bincount(labels[closer], minlength=n_classes) * tied.sum()
        score += np.bincount(labels[tied], minlength=n_classes) * (k - closer.sum())
        votes[c, i] = np.argmax(score)
    return votes


def expected_vote_accuracy(models, fold, columns):
    """Share of the fold's held-out rows that the brute-force k-NN rule over `columns` gets
    right, the last column being the candidate."""
    train, test = models.folds[fold]
    X_train, X_test = models.fold_columns[fold]
    *selected, candidate = columns
    selected_distances = ((X_test[:, None, selected] - X_train[None, :, selected]) ** 2).sum(axis=2)
    votes = brute_force_votes(
        selected_distances,
        X_test[None, :, candidate],
        X_train[None, :, candidate],
        models.y[train],
        models.n_neighbors,
        models.n_classes,
    )
    return np.mean(votes[0] == models.y[test])


@pytest.mark.parametrize("n_classes", [2, 3])
def test_knn_rows_tied_at_the_kth_distance_share_the_votes_left(n_classes):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(150, 4)).astype(float)  # few values: ties everywhere
    y = rng.integers(0, n_classes, size=150)
    models = small_models(X, y)
    candidates = np.array([1, 2, 3])
    for fold in range(len(models.folds)):
        expected = [expected_vote_accuracy(models, fold, [0, j]) for j in candidates]
        assert np.allclose(models._knn_accuracies(fold, [0], candidates), expected)


def test_knn_accuracies_do_not_depend_on_the_order_of_the_rows():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 3, size=(150, 4)).astype(float)
    y = (X[:, 0] + rng.integers(0, 2, size=150) > 2).astype(int)
    models = small_models(X, y)
    shuffled = small_models(X, y)
    # The same folds with the rows of every training fold in another order.
    shuffled.folds = [(rng.permutation(train), test) for train, test in models.folds]
    shuffled.fold_columns = [
        shuffled._evaluated_columns(train, test) for train, test in shuffled.folds
    ]
    candidates = np.array([1, 2, 3])
    for fold in range(len(models.folds)):
        assert np.array_equal(
            models._knn_accuracies(fold, [0], candidates),
            shuffled._knn_accuracies(fold, [0], candidates),
        )


def test_distances_kept_from_the_last_step_equal_distances_summed_afresh():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(150, 6)) * rng.uniform(0.1, 10.0, size=6)
    y = rng.integers(0, 2, size=150)
    models = small_models(X, y)
    path = (4, 0, 5, 2)
    for fold in range(len(models.folds)):
        # A path's steps, then a path that starts anew and one that branches off.
        for selected in [path[:n] for n in range(len(path) + 1)] + [(), (4, 1), (4, 0, 5)]:
            afresh = small_models(X, y)._selected_distances(fold, selected)
            assert np.array_equal(models._selected_distances(fold, selected), afresh)
            assert models.fold_distances[fold][0] == selected


@pytest.mark.parametrize("values", ["continuous", "few"])
def test_knn_votes_skipping_far_rows_equal_the_brute_force_for_any_near_share(values):
    rng = np.random.default_rng(7)
    n_train, n_test, k, n_classes = 400, 60, 5, 3
    draw = rng.normal if values == "continuous" else lambda size: rng.integers(0, 6, size)
    # Two selected columns and four candidates, one of them on a far wider scale, so that
    # some pairs find their k nearest among the few rows nearest on the selected columns and
    # others do not.
    train, test = draw(size=(6, n_train)).astype(float), draw(size=(6, n_test)).astype(float)
    train[5] *= 20.0
    test[5] *= 20.0
    labels = rng.integers(0, n_classes, size=n_train)
    selected = ((test[:2, :, None] - train[:2, None, :]) ** 2).sum(axis=0)
    expected = brute_force_votes(selected, test[2:], train[2:], labels, k, n_classes)
    added = (test[2:, :, None] - train[2:, None, :]) ** 2
    kth = np.sort(selected[None] + added, axis=2)[:, :, k - 1]
    n_near = 20
    # A pair takes the short path when its k-th distance is within the test row's bound.
    bound = np.sort(selected, axis=1)[:, n_near - 1]
    assert (kth <= bound).any() and (kth > bound).any()
    for near in (0, n_near, n_train):
        votes = _knn.knn_votes(selected, test[2:], train[2:], labels, k, n_classes, near)
        assert np.array_equal(votes, expected)


def test_accuracies_are_memoised_in_the_order_of_selection():
    """k-NN adds up the columns' distances in the order of selection, so a set reached in
    another order is scored in that order, not served the first order's accuracy."""
    X, y, _ = random_instance(np.random.default_rng(4))
    models = small_models(X, y)
    models.accuracies((2, 0), np.array([1]))
    models.accuracies((0, 2), np.array([1]))
    assert {(2, 0, 1), (0, 2, 1)} <= models.accuracy_memo.keys()
    fresh = small_models(X, y)
    assert models.accuracy((0, 2, 1)) == fresh.accuracies((0, 2), np.array([1]))[0]
