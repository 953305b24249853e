import functools
import inspect
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from costfs.methods import Context, load_method, load_selector

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
    "cegb": {"n_estimators": 20},
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
    return load_selector(method)(**{**SMALL.get(method, {}), **parameters})


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
        Context(seed, n_jobs, declared.engine_for(engine, stage="prepare")),
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


MESSY_BLOOD_COST = 0.8
"""The shared cost of the messy clinic's `blood` group, given only in its costs file."""


def write_messy_clinic(directory: Path) -> dict:
    """A clinical data set as it comes, from wdbc's first eight features: the three `blood`
    features miss values (`?` and empty cells), more often where the class is 1; `grade` is
    text (low / mid / high, from a fourth feature, some missing); `age` (a sixth feature) is
    free; `blood`'s shared cost is a row of the costs file only. Writes clinic.csv and
    clinic_costs.csv; returns their paths, the own costs by name and the blood features."""
    rng = np.random.default_rng(29)
    wdbc = pd.read_csv(DATA / "wdbc.csv.gz")
    names = ["crp", "ferritin", "hba1c", "bmi", "waist", "age", "pulse"]
    frame = wdbc.iloc[:, [0, 1, 2, 4, 5, 6, 8]].set_axis(names, axis=1).astype(object)
    target = wdbc["target"].to_numpy()
    for column in names[:3]:
        missing = rng.random(target.size) < np.where(target == 1, 0.3, 0.1)
        frame.loc[missing, column] = rng.choice(["?", ""], size=int(missing.sum()))
    grade = pd.qcut(wdbc.iloc[:, 3], 3, labels=["low", "mid", "high"]).astype(object)
    grade[rng.random(target.size) < 0.05] = None
    frame.insert(3, "grade", grade)
    frame["target"] = target
    data = directory / "clinic.csv"
    frame.to_csv(data, index=False)
    own = pd.Series(
        [0.3, 0.0, 0.2, 1.0, 0.5, 0.7, 0.0, 0.4], index=[*names[:3], "grade", *names[3:]]
    )
    group = ["blood" if name in names[:3] else "" for name in own.index]
    table = pd.DataFrame({"feature": own.index, "cost": own.to_numpy(), "group": group})
    table.loc[len(table)] = ["", MESSY_BLOOD_COST, "blood"]
    costs = directory / "clinic_costs.csv"
    table.to_csv(costs, index=False)
    return {"data": data, "costs": costs, "own": own, "blood": set(names[:3])}


def true_cost(own: pd.Series, blood: set, features) -> float:
    """Own costs plus the blood draw once, if any of its features is used."""
    return float(own[list(features)].sum()) + (MESSY_BLOOD_COST if blood & set(features) else 0.0)
