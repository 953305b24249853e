import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata, spearmanr, ttest_ind
from sklearn.metrics import roc_auc_score

from costfs.engine.importance import auc_scores, mid_ranks, permutation_importance


def test_auc_scores_match_scikit_learn(rng):
    X = rng.normal(size=(200, 6))
    X[:, 5] = np.round(X[:, 5])  # ties
    y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    expected = [2 * abs(roc_auc_score(y, X[:, j]) - 0.5) for j in range(6)]
    assert np.allclose(auc_scores(X, y), expected)


def test_multi_class_auc_scores_are_the_mean_one_vs_rest_score(rng):
    X = rng.normal(size=(300, 5))
    X[:, 4] = np.round(X[:, 4])
    # class 1 sits between classes 0 and 2 on feature 0: a binary AUC would miss it
    y = np.digitize(X[:, 0] + rng.normal(scale=0.3, size=300), [-0.5, 0.5])
    expected = [
        np.mean([2 * abs(roc_auc_score(y == k, X[:, j]) - 0.5) for k in range(3)]) for j in range(5)
    ]
    assert np.allclose(auc_scores(X, y), expected)
    assert auc_scores(X, y).argmax() == 0


@pytest.mark.parametrize("engine", ["numba", "sklearn", "sklearnex"])
def test_permutation_importance_handles_three_classes(rng, engine):
    X = rng.normal(size=(300, 6))
    y = np.digitize(X[:, 1] + 0.3 * rng.normal(size=300), [-0.5, 0.5])
    scores = permutation_importance(X, y, n_trees=60, seed=0, engine=engine)
    assert scores.argmax() == 1 and scores[1] > 0.2


@pytest.mark.parametrize("engine", ["numba", "sklearn"])
def test_permutation_importance_finds_the_signal_and_is_thread_independent(rng, engine):
    X = rng.normal(size=(300, 8))
    y = (X[:, 2] - X[:, 5] > 0).astype(int)
    one = permutation_importance(X, y, n_trees=60, seed=4, n_jobs=1, engine=engine)
    two = permutation_importance(X, y, n_trees=60, seed=4, n_jobs=2, engine=engine)
    assert np.array_equal(one, two)
    assert set(np.argsort(one)[-2:]) == {2, 5}
    assert one.min() >= 0
    other_seed = permutation_importance(X, y, n_trees=60, seed=5, engine=engine)
    assert not np.array_equal(one, other_seed)


def test_onedal_permutation_importance_is_thread_independent(rng):
    X = rng.normal(size=(300, 8))
    y = (X[:, 2] - X[:, 5] > 0).astype(int)
    one = permutation_importance(X, y, n_trees=90, seed=4, n_jobs=1, engine="sklearnex")
    two = permutation_importance(X, y, n_trees=90, seed=4, n_jobs=2, engine="sklearnex")
    assert np.array_equal(one, two)
    assert set(np.argsort(one)[-2:]) == {2, 5}


@pytest.mark.parametrize("engine", ["numba", "sklearnex"])
def test_importances_agree_with_the_reference_within_monte_carlo_error(data_sets, engine):
    """Same definition, different forests (numba's exact trees from other random draws,
    oneDAL's histogram splits): on wdbc the per-feature means over independent forests differ
    from scikit-learn's by no more than their Monte Carlo error (Welch t, Bonferroni over the
    30 features) and rank the features alike."""
    data = pd.read_csv(data_sets / "wdbc.csv.gz")
    y = data.pop("target").to_numpy()
    X = data.to_numpy(dtype=float)
    replicates = {
        engine: np.array(
            [
                permutation_importance(X, y, n_trees=200, seed=seed, engine=engine)
                for seed in range(6)
            ]
        )
        for engine in (engine, "sklearn")
    }
    other, reference = replicates[engine], replicates["sklearn"]
    p_values = ttest_ind(other, reference, axis=0, equal_var=False).pvalue
    assert np.nanmin(p_values) > 0.01 / X.shape[1]
    assert spearmanr(other.mean(axis=0), reference.mean(axis=0)).statistic > 0.95
    assert other.mean(axis=0).sum() == pytest.approx(reference.mean(axis=0).sum(), rel=0.05)


def test_permutation_importance_names_an_unknown_engine(rng):
    X = rng.normal(size=(40, 3))
    with pytest.raises(ValueError, match="engine must be one of"):
        permutation_importance(X, (X[:, 0] > 0).astype(int), n_trees=5, seed=0, engine="ranger")


@pytest.mark.parametrize("n_values", [2, 5, 1000])
def test_mid_ranks_equal_scipys_average_ranks(rng, n_values):
    values = rng.integers(0, n_values, size=300).astype(float)
    assert np.array_equal(mid_ranks(values), rankdata(values))
    values[7] = np.nan
    assert np.isnan(mid_ranks(values)).all()
    assert mid_ranks(np.array([])).size == 0
