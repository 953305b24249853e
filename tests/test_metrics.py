"""Test metrics from vote shares, and the refits that record them."""

import numpy as np
import pytest
from sklearn.metrics import (
    balanced_accuracy_score,
    brier_score_loss,
    confusion_matrix,
    roc_auc_score,
)

from costfs.core.metrics import METRICS, classification_metrics
from costfs.engine.trees import refit_errors
from costfs.study.evaluation import evaluate_feature_sets


def test_without_ties_the_metrics_are_scikit_learns(rng):
    y = rng.integers(0, 2, 200)
    shares = np.clip(0.5 + (y - 0.5) * 0.4 + rng.normal(0, 0.3, 200), 0.01, 0.99)
    shares[np.isclose(shares, 0.5)] = 0.51
    both = np.column_stack([1 - shares, shares])
    predicted = (shares > 0.5).astype(int)
    (tn, fp), (fn, tp) = confusion_matrix(y, predicted)
    assert classification_metrics(y, both) == pytest.approx(
        {
            "mmce": np.mean(predicted != y),
            "auc": roc_auc_score(y, shares),
            "brier": brier_score_loss(y, shares),
            "sensitivity": tp / (tp + fn),
            "specificity": tn / (tn + fp),
        }
    )


def test_a_tied_vote_counts_as_a_random_pick_among_the_tied_classes():
    y = np.array([1, 0])
    shares = np.array([[0.5, 0.5], [0.8, 0.2]])
    metrics = classification_metrics(y, shares, ("mmce", "sensitivity", "specificity"))
    assert metrics == {"mmce": 0.25, "sensitivity": 0.5, "specificity": 1.0}


def test_with_more_classes_sensitivity_is_balanced_accuracy(rng):
    y = rng.integers(0, 3, 150)
    shares = rng.dirichlet(np.ones(3), 150)
    shares[np.arange(150), y] += 0.3
    shares /= shares.sum(axis=1, keepdims=True)
    metrics = classification_metrics(y, shares, ("sensitivity", "auc"))
    assert metrics["sensitivity"] == pytest.approx(
        balanced_accuracy_score(y, shares.argmax(axis=1))
    )
    assert metrics["auc"] == pytest.approx(roc_auc_score(y, shares, multi_class="ovr"))


def test_a_class_missing_from_the_test_labels_leaves_auc_undefined():
    metrics = classification_metrics(np.zeros(4, dtype=int), np.full((4, 2), 0.5), ("auc",))
    assert np.isnan(metrics["auc"])


def test_unknown_metrics_are_named():
    with pytest.raises(ValueError, match="'accuracy'"):
        classification_metrics(np.zeros(2, dtype=int), np.ones((2, 2)) / 2, ("accuracy",))


@pytest.mark.parametrize("engine", ["numba", "sklearn"])
def test_the_refits_test_error_is_the_mmce_of_its_vote_shares(rng, engine):
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + rng.normal(0, 1, 120) > 0).astype(int)
    _, test, shares = refit_errors(
        X[:80], y[:80], X[80:], y[80:], n_trees=40, seed=2, engine=engine
    )
    assert classification_metrics(y[80:], shares, ("mmce",))["mmce"] == pytest.approx(test)


def test_recording_metrics_leaves_the_errors_as_they_were(rng):
    X = rng.normal(size=(150, 5))
    y = (X[:, 1] > 0).astype(int)
    sets = [(0, 1), (2,), ()]
    arguments = (X[:100], y[:100], X[100:], y[100:], sets)
    plain = evaluate_feature_sets(*arguments, n_trees=30, seed_parts=(1,))
    measured = evaluate_feature_sets(*arguments, n_trees=30, seed_parts=(1,), metrics=METRICS)
    columns = ["features", "oob_mmce", "test_mmce"]
    assert measured[columns].equals(plain[columns])
    assert measured["test_auc"].between(0, 1).all()
    informative = measured[[features == (0, 1) for features in measured["features"]]]
    assert informative["test_auc"].item() > 0.8
