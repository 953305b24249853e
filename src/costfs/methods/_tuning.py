"""A selector's tuned hyperparameter: the study's `tuned` strategy on one data set, as
`costfs select` tunes it (`costfs.study.single_run.select_once`): every value of a grid
selects, a Random Forest is refit on each distinct selected set, and the value whose set has
the lowest OOB error wins (ties: the lower cost, then the lower value)."""

from collections.abc import Sequence

from costfs.core.costs import FeatureCosts
from costfs.engine.trees import RefitForests, refit_seed

TUNED = "tuned"
"""The hyperparameter value that asks for tuning."""

XI_TUNING_GRID = (0.0, 0.5, 1.0, 2.0)
"""The xi grid tuned over when none is given: the default study's."""

TUNING_TREES = 500
"""Trees of the refits that score the grid's sets (`costfs select`'s default)."""


def tuning_grid(hyperparameter) -> tuple[float, ...]:
    """The grid a hyperparameter is tuned over: `XI_TUNING_GRID` for xi, else its own."""
    return XI_TUNING_GRID if hyperparameter.name == "xi" else tuple(hyperparameter.grid)


def tuned_record(
    records: Sequence[dict], X, y, costs, *, seed: int, n_trees: int, n_jobs: int
) -> dict:
    """The record of the lowest refit OOB error (ties: lower cost, then lower value), with its
    `oob_mmce`."""
    costs = FeatureCosts.of(costs)
    sets = [tuple(sorted(int(j) for j in record["features"])) for record in records]
    refits = RefitForests(X, y, subsets=sets)
    errors: dict[tuple[int, ...], float] = {}
    scored = []
    for record, features in zip(records, sets, strict=True):
        if features not in errors:
            # Seeded as the study's evaluation seeds the refit of the same set.
            errors[features], _, _ = refits.errors(
                features, n_trees=n_trees, seed=refit_seed((seed,), features), n_jobs=n_jobs
            )
        key = (errors[features], costs.total(features), float(record["value"]))
        scored.append((key, {**record, "oob_mmce": errors[features]}))
    return min(scored, key=lambda pair: pair[0])[1]
