import numpy as np
import pytest

from costfs.study.simulate import block_correlation, draw_design, draw_samples, truncated_normal

DESIGN = dict(
    n_features=40,
    n_informative=20,
    beta_sd=0.5,
    beta_bound=1.0,
    n_blocks=4,
    cost_min=0.1,
    cost_max=1.0,
    cost_noise_sd=0.2,
)


def test_truncated_normal_stays_within_bound_and_keeps_its_spread(rng):
    values = truncated_normal(rng, 20000, sd=0.5, bound=1.0)
    assert values.shape == (20000,)
    assert np.abs(values).max() <= 1.0
    # sd of N(0, 0.5) truncated at +-2 sd is about 0.44; a wrong sd or bound moves it far.
    assert 0.42 < values.std() < 0.46


def test_block_correlation_has_permuted_constant_blocks(rng):
    sigma = block_correlation(rng, 40, 4)
    assert np.allclose(sigma, sigma.T)
    assert np.allclose(np.diag(sigma), 1.0)
    np.linalg.cholesky(sigma)  # positive definite
    # Every feature shares its block's rho with exactly block_size - 1 others and is
    # uncorrelated with the rest; the blocks are not contiguous after the permutation.
    blocks = []
    for row in sigma:
        partners = np.flatnonzero((row != 0) & (row != 1.0))
        assert partners.size == 9
        assert np.unique(row[partners]).size == 1
        blocks.append(frozenset(partners.tolist()) | {int(np.flatnonzero(row == 1.0)[0])})
    assert len(set(blocks)) == 4
    assert any(block != frozenset(range(min(block), min(block) + 10)) for block in blocks)


def test_block_correlation_rejects_uneven_blocks(rng):
    with pytest.raises(ValueError, match="multiple of n_blocks"):
        block_correlation(rng, 10, 3)


def test_design_means_and_cost_formulas(rng):
    design = draw_design(rng, **DESIGN)
    mu = design["mu"]
    assert np.all(mu[20:] == 0) and np.all(mu[:20] != 0)
    assert np.abs(mu).max() <= 1.0
    for name in ("costs_independent", "costs_correlated"):
        assert design[name].min() >= 0.1 and design[name].max() <= 1.0
    correlated = design["costs_correlated"]
    # c_j = clip(|beta_j| + eps): informative features cost more on average than noise ones.
    assert correlated[:20].mean() > correlated[20:].mean()
    assert np.corrcoef(np.abs(mu), correlated)[0, 1] > 0.5


def test_correlated_costs_follow_their_formula():
    first = draw_design(np.random.default_rng(7), **DESIGN)
    rng = np.random.default_rng(7)
    mu = np.zeros(40)
    mu[:20] = truncated_normal(rng, 20, 0.5, 1.0)
    block_correlation(rng, 40, 4)
    rng.uniform(0.1, 1.0, size=40)
    noise = rng.normal(0.0, 0.2, size=40)
    assert np.allclose(first["costs_correlated"], np.clip(np.abs(mu) + noise, 0.1, 1.0))


def test_samples_have_balanced_classes_and_shifted_means(rng):
    mu = np.r_[np.full(5, 1.0), np.zeros(5)]
    X, y = draw_samples(rng, 20000, mu, None)
    assert abs(y.mean() - 0.5) < 0.02
    shift = X[y == 1].mean(axis=0) - X[y == 0].mean(axis=0)
    assert np.allclose(shift, mu, atol=0.05)


def test_samples_follow_the_correlation_matrix(rng):
    sigma = block_correlation(rng, 20, 2)
    X, y = draw_samples(rng, 20000, np.zeros(20), sigma)
    assert np.allclose(np.corrcoef(X, rowvar=False), sigma, atol=0.05)
