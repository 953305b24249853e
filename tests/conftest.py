import functools
import inspect
from pathlib import Path

import numpy as np
import pytest

from costfs.methods import load_method

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data"
"""The paper's six real data sets, committed with the project (data/README.md)."""

SMALL = {
    "pfi": {"n_trees": 30},
    "sts": {"trees_per_depth": 20},
    "sts_features": {"trees_per_k": 10},
    "fs": {"n_trees": 20},
    "budget_rf": {"n_trees_max": 5},
    "msb": {"n_trees": 20, "importance_trees": 20, "l1_path_length": 10},
    "featboost": {"n_estimators": 10, "n_candidates": 5, "max_bin": 32},
    "xgb_fs": {"n_estimators": 10},
    "boruta": {"max_iter": 10},
}
"""Smaller settings of the slower methods for unit tests; a method not listed (e.g. a new one)
runs with its declared defaults."""


def declared(method: str, function, **values):
    """`function`, a helper of `method`'s file, with the method's declared values of the
    parameters it takes, then `values`: helpers have no defaults of their own."""
    accepted = inspect.signature(function).parameters
    defaults = load_method(method).defaults()
    return functools.partial(
        function, **{name: defaults[name] for name in defaults if name in accepted}, **values
    )


def small_selector(method: str, **parameters):
    """The method's selector with the small settings and `parameters`."""
    return load_method(method).selector_class(**{**SMALL.get(method, {}), **parameters})


def run_method(
    method: str,
    X,
    y,
    costs,
    budgets,
    grid,
    *,
    seed: int = 0,
    prepared=None,
    n_jobs: int = 1,
    engine: str = "auto",
    **parameters,
):
    """The method's `select` (after its `prepare` unless `prepared` is given), with its
    declared defaults for the parameters not given: a `Selection`."""
    _, selection = load_method(method).prepare_and_select(
        X,
        y,
        costs,
        budgets,
        grid,
        seed=seed,
        n_jobs=n_jobs,
        engine=engine,
        prepared=prepared,
        **parameters,
    )
    return selection


def prepare_method(
    method: str, X, y, *, seed: int = 0, n_jobs: int = 1, engine="auto", **parameters
):
    declared = load_method(method)
    values = {**declared.defaults(), **parameters}
    return declared.prepare(
        X,
        y,
        seed=seed,
        n_jobs=n_jobs,
        engine=declared.engine_for(engine, stage="prepare"),
        **declared.stage_parameters(values, "prepare"),
    )


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def data_sets() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"the real data sets are expected in {DATA}")
    return DATA
