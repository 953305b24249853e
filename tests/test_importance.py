import numpy as np
from sklearn.metrics import roc_auc_score

from costfs.importance import auc_scores, permutation_importance


def test_auc_scores_match_scikit_learn(rng):
    X = rng.normal(size=(200, 6))
    X[:, 5] = np.round(X[:, 5])  # ties
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    expected = [2 * abs(roc_auc_score(y, X[:, j]) - 0.5) for j in range(6)]
    assert np.allclose(auc_scores(X, y), expected)


def test_permutation_importance_finds_the_signal_and_is_thread_independent(rng):
    X = rng.normal(size=(300, 8))
    y = (X[:, 2] - X[:, 5] > 0).astype(int)
    one = permutation_importance(X, y, n_trees=60, seed=4, n_jobs=1)
    two = permutation_importance(X, y, n_trees=60, seed=4, n_jobs=2)
    assert np.array_equal(one, two)
    assert set(np.argsort(one)[-2:]) == {2, 5}
    assert one.min() >= 0
    assert not np.array_equal(one, permutation_importance(X, y, n_trees=60, seed=5))
