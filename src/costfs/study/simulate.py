"""Simulated data of the RF paper (section 3.2.1): Gaussian classes, block correlation, costs."""

import numpy as np

SETTINGS = {
    "A": ("independent", "independent"),
    "B": ("independent", "correlated"),
    "C": ("correlated", "independent"),
    "D": ("correlated", "correlated"),
}
"""Setting -> (data type, cost type)."""


def truncated_normal(rng: np.random.Generator, size: int, sd: float, bound: float) -> np.ndarray:
    """Draws from N(0, sd) restricted to [-bound, bound] by rejection sampling."""
    values = np.empty(0)
    while values.size < size:
        draws = rng.normal(0.0, sd, size=2 * size)
        values = np.concatenate([values, draws[np.abs(draws) <= bound]])
    return values[:size]


def block_correlation(rng: np.random.Generator, n_features: int, n_blocks: int) -> np.ndarray:
    """Block-diagonal correlation matrix (rho_i ~ U(0,1) per block), rows and columns permuted."""
    if n_features % n_blocks:
        raise ValueError(f"n_features={n_features} is not a multiple of n_blocks={n_blocks}")
    size = n_features // n_blocks
    sigma = np.zeros((n_features, n_features))
    for block, rho in enumerate(rng.uniform(0.0, 1.0, size=n_blocks)):
        span = slice(block * size, (block + 1) * size)
        sigma[span, span] = rho
    np.fill_diagonal(sigma, 1.0)
    order = rng.permutation(n_features)
    return sigma[np.ix_(order, order)]


def draw_design(
    rng: np.random.Generator,
    *,
    n_features: int,
    n_informative: int,
    beta_sd: float,
    beta_bound: float,
    n_blocks: int,
    cost_min: float,
    cost_max: float,
    cost_noise_sd: float,
) -> dict[str, np.ndarray]:
    """What the study draws once per seed: mu, the correlated Sigma and both cost vectors."""
    if not 0 < n_informative <= n_features:
        raise ValueError(f"n_informative={n_informative} must lie in 1..n_features={n_features}")
    mu = np.zeros(n_features)
    mu[:n_informative] = truncated_normal(rng, n_informative, beta_sd, beta_bound)
    sigma = block_correlation(rng, n_features, n_blocks)
    independent_costs = rng.uniform(cost_min, cost_max, size=n_features)
    noise = rng.normal(0.0, cost_noise_sd, size=n_features)
    correlated_costs = np.clip(np.abs(mu) + noise, cost_min, cost_max)
    return {
        "mu": mu,
        "sigma_correlated": sigma,
        "costs_independent": independent_costs,
        "costs_correlated": correlated_costs,
    }


def draw_samples(
    rng: np.random.Generator, n_rows: int, mu: np.ndarray, sigma: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """y ~ Bernoulli(0.5); X | y ~ N(y * mu, Sigma) (Sigma = identity when None)."""
    y = rng.integers(0, 2, size=n_rows)
    noise = rng.standard_normal((n_rows, mu.size))
    if sigma is not None:
        noise = noise @ np.linalg.cholesky(sigma).T
    return noise + y[:, None] * mu, y


def feature_names(n_features: int) -> list[str]:
    return [f"x{j + 1}" for j in range(n_features)]
