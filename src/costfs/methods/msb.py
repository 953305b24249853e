"""msB (Yan et al.): model sequences search under a budget, through a Pareto model schedule.

Four nested model sequences run from the full model down to two features (the paper's; with
`min_model_size: 1` down to one):
- `cost`: drop the most expensive feature (ties: the less important, then the lower index);
  a feature's cost in the sequences is its cost on its own (its group's shared cost included),
  a model's cost is that of its set (each group's shared cost once);
- `importance`: drop the least important feature (ties: the more expensive, then the lower
  index); importance is the OOB permutation importance of one Random Forest on all features
  (`costfs.engine.importance.permutation_importance`, as the paper's "permutation accuracy");
- `sampling`: drop a feature drawn with probability proportional to 1 / (I_j / c_j)^gamma, the
  inverse of the paper's normalised importance (seeded); importances clipped at 0 are raised
  to half the smallest positive importance, so that a zero-importance feature is the likeliest
  to go without making the others impossible to draw;
- `l1`: the full model, then the distinct supports with at least two features along the
  L1-logistic regularisation path (standardised X, liblinear, `l1_path_length` values of C from
  the smallest C with a non-empty support to 10^4 times it), densest first; for K > 2 classes
  the multinomial L1 logistic regression (saga).

Every distinct model is scored by the OOB error of a Random Forest of `n_trees` trees seeded
from (seed, sorted feature set), so a set scores the same whichever sequences propose it. The
forests are the numba trees of the refits by default (exact CART, about half oneDAL's time on a
simulated problem's models, and no scikit-learn to import), or a forest engine's. The
union of the models, cut to the non-dominated ones in (cost, OOB error), is the model schedule;
for each budget msB takes the schedule's best model that fits (none fits: the empty set, so with
the paper's two-feature floor a budget below the cheapest pair a sequence keeps selects nothing).

`select` scores only models that cost at most the largest budget (the others can never be
chosen); `full_schedule=True` scores all of them, for a complete cost-accuracy curve. The
importances and the L1 supports do not depend on costs: `prepare` computes them once per data
set. The by-cost and sampling sequences depend on the costs, so they are built in `select`.
"""

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.core.seeds import derive_seed
from costfs.engine.forest import ENGINES, oob_errors
from costfs.engine.importance import IMPORTANCE_ENGINES, permutation_importance
from costfs.engine.trees import RefitForests, resolve_refit_engine
from costfs.methods._base import Method, Parameter, Selection, boolean, integer, number
from costfs.methods._bcr import ratio_cost
from costfs.methods._l1 import l1_supports, smallest_c, standardised

if TYPE_CHECKING:
    import pandas as pd

SEQUENCES = ("cost", "importance", "sampling", "l1")

L1_PATH_DECADES = 4
"""The L1 path's C values span this many decades upwards from the sparsest non-empty model."""

SCHEDULE_COLUMNS = ["cost", "oob_mmce", "n_features", "features", "sequence"]


def l1_path_supports(X: np.ndarray, y: np.ndarray, *, path_length: int = 100) -> np.ndarray:
    """The distinct non-empty supports along the L1-logistic path (`costfs.methods._l1`), in
    order of increasing C (as rows of a bool matrix: row i marks the features of support i)."""
    X = standardised(X)
    Cs = smallest_c(X, y) * np.logspace(0, L1_PATH_DECADES, path_length)
    supports = list(l1_supports(X, y, Cs))
    return np.array(supports, dtype=bool).reshape(len(supports), X.shape[1])


def cost_free_parts(
    X: np.ndarray,
    y: np.ndarray,
    *,
    seed: int,
    importance_trees: int,
    l1_path_length: int,
    n_jobs: int = 1,
    engine: str = "sklearn",
) -> dict:
    """The cost-free parts: permutation importances (on `engine`) and the L1 path's supports."""
    return {
        "importances": permutation_importance(
            X, y, n_trees=importance_trees, seed=seed, n_jobs=n_jobs, engine=engine
        ),
        "l1_supports": l1_path_supports(X, y, path_length=l1_path_length),
    }


def _dropping(removal_order: np.ndarray, min_model_size: int) -> list[tuple[int, ...]]:
    """The models left as features are dropped in `removal_order`: from all down to the last
    `min_model_size` (the full model at least)."""
    n_features = removal_order.size
    return [
        tuple(int(j) for j in np.sort(removal_order[dropped:]))
        for dropped in range(max(n_features - min_model_size + 1, 1))
    ]


def sampling_weights(importances: np.ndarray, costs: np.ndarray, gamma: float) -> np.ndarray:
    """The paper's normalised importance (I_j / c_j)^gamma, zero importances raised (see top)."""
    importances = np.asarray(importances, dtype=float)
    positive = importances[importances > 0]
    floor = positive.min() / 2 if positive.size else 1.0
    return (np.maximum(importances, floor) / ratio_cost(costs)) ** gamma


def model_sequences(
    costs: np.ndarray,
    importances: np.ndarray,
    l1_supports: np.ndarray,
    *,
    gamma: float,
    seed: int,
    min_model_size: int,
) -> dict[str, list[tuple[int, ...]]]:
    """The four sequences of models (sorted feature tuples), each starting at the full model
    and keeping at least `min_model_size` features; `l1_supports` in order of increasing C
    (`l1_path_supports`), walked from dense to sparse."""
    costs = np.asarray(costs, dtype=float)
    importances = np.asarray(importances, dtype=float)
    index = np.arange(costs.size)
    rng = np.random.default_rng(derive_seed(seed, "msb", "sampling"))
    remaining = list(index)
    inverse_weights = 1.0 / sampling_weights(importances, costs, gamma)
    sampled = []
    while remaining:
        probabilities = inverse_weights[remaining] / inverse_weights[remaining].sum()
        sampled.append(remaining.pop(rng.choice(len(remaining), p=probabilities)))
    l1_path = [tuple(int(j) for j in index)]
    for support in l1_supports[::-1]:
        model = tuple(int(j) for j in np.flatnonzero(support))
        if len(model) >= min_model_size and model not in l1_path:
            l1_path.append(model)
    return {
        "cost": _dropping(np.lexsort((index, importances, -costs)), min_model_size),
        "importance": _dropping(np.lexsort((index, -costs, importances)), min_model_size),
        "sampling": _dropping(np.array(sampled), min_model_size),
        "l1": l1_path,
    }


def pareto_schedule(models: "pd.DataFrame") -> "pd.DataFrame":
    """The models no other model beats: each has a lower OOB error than every cheaper one
    (equal cost: the lower error, then fewer features)."""
    ordered = models.sort_values(["cost", "oob_mmce", "n_features"], kind="stable")
    best_cheaper = ordered["oob_mmce"].cummin().shift(fill_value=math.inf)
    return ordered[ordered["oob_mmce"] < best_cheaper].reset_index(drop=True)


def model_schedule(
    X: np.ndarray,
    y: np.ndarray,
    costs: np.ndarray,
    *,
    seed: int,
    prepared: Mapping[str, np.ndarray],
    n_trees: int,
    gamma: float,
    min_model_size: int,
    max_cost: float = math.inf,
    n_jobs: int = 1,
    engine: str = "auto",
) -> "pd.DataFrame":
    """msB's model schedule over the models costing at most `max_cost`, by increasing cost
    (and decreasing OOB error): columns cost, oob_mmce, n_features, features (sorted tuple),
    sequence (the sequences that propose the model, joined by "+").

    `prepared` holds the cost-free parts on (X, y) (`cost_free_parts`).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    costs = FeatureCosts.of(costs)
    sequences = model_sequences(
        costs.standalone(),
        prepared["importances"],
        prepared["l1_supports"],
        gamma=gamma,
        seed=seed,
        min_model_size=min_model_size,
    )
    proposers: dict[tuple[int, ...], list[str]] = {}
    for name, models in sequences.items():
        for model in models:
            if costs.total(model) <= max_cost + BUDGET_TOLERANCE:
                proposers.setdefault(model, [])
                if name not in proposers[model]:
                    proposers[model].append(name)
    models = sorted(proposers)
    seeds = [derive_seed(seed, "msb", *model) for model in models]
    if resolve_refit_engine(engine) == "numba":
        refits = RefitForests(X, y, subsets=models)
        errors = [
            refits.errors(model, n_trees=n_trees, seed=model_seed, n_jobs=n_jobs)[0]
            for model, model_seed in zip(models, seeds, strict=True)
        ]
    else:
        errors = oob_errors(
            X, y, models, n_trees=[n_trees] * len(models), seeds=seeds, n_jobs=n_jobs, engine=engine
        )
    import pandas as pd  # here: the preparation's job writes arrays only and needs no pandas

    scored = pd.DataFrame(
        {
            "cost": [costs.total(model) for model in models],
            "oob_mmce": errors,
            "n_features": [len(model) for model in models],
            "features": models,
            "sequence": ["+".join(proposers[model]) for model in models],
        },
        columns=SCHEDULE_COLUMNS,
    )
    return pareto_schedule(scored)


def schedule_to_arrays(schedule: "pd.DataFrame") -> dict[str, np.ndarray]:
    """The schedule as flat arrays for `np.savez`: entry i has features
    `features[feature_start[i]:feature_start[i+1]]`."""
    sizes = schedule["n_features"].to_numpy(dtype=np.int64)
    return {
        "cost": schedule["cost"].to_numpy(dtype=float),
        "oob_mmce": schedule["oob_mmce"].to_numpy(dtype=float),
        "sequence": schedule["sequence"].to_numpy(dtype=str),
        "feature_start": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        "features": np.array([j for model in schedule["features"] for j in model], dtype=np.int32),
    }


def schedule_from_arrays(arrays: Mapping[str, np.ndarray]) -> "pd.DataFrame":
    """Inverse of `schedule_to_arrays`."""
    import pandas as pd

    start = arrays["feature_start"]
    models = [
        tuple(int(j) for j in arrays["features"][start[i] : start[i + 1]])
        for i in range(start.size - 1)
    ]
    return pd.DataFrame(
        {
            "cost": arrays["cost"],
            "oob_mmce": arrays["oob_mmce"],
            "n_features": [len(model) for model in models],
            "features": models,
            "sequence": arrays["sequence"].astype(str),
        },
        columns=SCHEDULE_COLUMNS,
    )


def best_within(schedule: "pd.DataFrame", budget: float) -> "pd.Series | None":
    """The schedule's model with the lowest OOB error among those that fit, or None."""
    fitting = schedule[schedule["cost"] <= budget + BUDGET_TOLERANCE]
    return None if fitting.empty else fitting.loc[fitting["oob_mmce"].idxmin()]


class ModelScheduleSelector(Method):
    summary = (
        "msB (Yan et al.): models by cost, by importance, by importance/cost-weighted sampling "
        "and along the L1-logistic path, scored by RF OOB error; the Pareto model schedule "
        "gives, per budget, the best model that fits; schedules in "
        "`results/schedules/msb.parquet`"
    )
    parameters = (
        Parameter(
            "n_trees",
            integer(),
            200,
            "trees of the forests that score each model of the schedule (OOB error)",
        ),
        Parameter(
            "gamma", number(minimum=0), 0.1, "exponent of the sampling weights (I_j / c_j)^γ"
        ),
        Parameter(
            "min_model_size",
            integer(),
            2,
            "the sequences stop at this many features (the paper: 2; 1 adds one-feature models, "
            "so budgets below every kept pair still get a model)",
        ),
        Parameter(
            "importance_trees",
            integer(),
            500,
            "trees of the permutation-importance forest behind the importance and sampling "
            "sequences",
            stage="prepare",
        ),
        Parameter(
            "l1_path_length",
            integer(),
            100,
            "points of the L1-logistic regularisation path",
            stage="prepare",
        ),
        Parameter(
            "full_schedule",
            boolean(),
            False,
            "score every model, not only those within the largest budget (slower; the "
            "schedule then covers all costs)",
        ),
    )
    engines = ("numba", *ENGINES)
    preparation_engines = IMPORTANCE_ENGINES
    parallel_selection = True
    parallel_preparation = True  # its forests, the same on any thread count
    missing_values = (
        "native in the forests (scikit-learn's rule); the L1-logistic path replaces a "
        "missing standardised value by 0, the mean"
    )
    colour = "#882255"
    exact_path = True

    def prepare(self, X, y, context, *, importance_trees, l1_path_length):
        return cost_free_parts(
            X,
            y,
            seed=context.seed,
            importance_trees=importance_trees,
            l1_path_length=l1_path_length,
            n_jobs=context.n_jobs,
            engine=context.engine,
        )

    def select(
        self, X, y, costs, budgets, grid, context, *, n_trees, gamma, min_model_size, full_schedule
    ):
        """Per budget: the sorted `features` of the best fitting schedule model (empty if
        none fits), its `schedule_oob_mmce` and the `sequence`s that proposed it (`value` is
        NaN: msB has no hyperparameter); the schedule is kept (`schedule_to_arrays`)."""
        schedule = model_schedule(
            X,
            y,
            costs,
            seed=context.seed,
            prepared=context.prepared,
            n_trees=n_trees,
            gamma=gamma,
            min_model_size=min_model_size,
            max_cost=math.inf if full_schedule else max(budgets),
            n_jobs=context.n_jobs,
            engine=context.engine,
        )
        records = [self._record(best_within(schedule, budget), budget) for budget in budgets]
        return Selection(records, schedule_to_arrays(schedule))

    def path_steps(self, selection, costs):
        """The model schedule's models that are the best fitting at their own cost, each
        from its true cost on: the schedule up to the largest budget asked for (`fit`'s
        budget). A model within the budget tolerance of a cheaper one's cost is chosen there
        too, and listed from its own cost."""
        schedule = schedule_from_arrays(selection.artifacts)
        steps = []
        for cost in sorted({0.0, *(float(cost) for cost in schedule["cost"])}):
            record = self._record(best_within(schedule, cost), cost)
            steps.append((costs.total(record["features"]), record))
        return steps

    @staticmethod
    def _record(chosen, budget: float) -> dict:
        return {
            "value": math.nan,
            "budget": budget,
            "features": np.array([] if chosen is None else chosen["features"], dtype=int),
            "schedule_oob_mmce": math.nan if chosen is None else float(chosen["oob_mmce"]),
            "sequence": "" if chosen is None else chosen["sequence"],
        }

    def schedule(self, artifacts):
        return schedule_from_arrays(artifacts)
