"""A selector's budget path: the budgets at which its selection changes, each with the set.

Exact paths. Most methods choose, at a budget, the best of the candidates that fit it by an
order that does not depend on the budget (a filter's fill order, STS's and forward selection's
greedy steps without racing, the L1 path's largest fitting support, msB's best fitting
schedule model). Such a method's set S(b) is also its set at every budget between S(b)'s true
cost c and b: every step's choice still fits, and no rejected candidate fits better. Its
selection is then a staircase whose steps are the true costs of the sets it selects, and
`exact_path` finds every step by asking for the set just below each step found (a budget
below c cannot buy S(b)) until no new set appears, starting from 0, the fit's own budget and
a few budgets in between: the path up to the fit's budget, which is all a budget's selection
computes. The closure is the proof: below each step
the set found is one of the path's, so no budget falls between two steps unasked.

Fill paths. A method that fills every budget from one order (the filters, a ranking) has its
path read off the order in one pass (`fill_path`), without asking for budgets.

Grid paths. A method that fits per budget (BudgetRF's and CEGB's budgeted trees, FeatBoost's
affordability resets, racing's survivor counts, STS's depth bound by budget, a tuned
hyperparameter) has no such staircase; `grid_path` selects at each budget of a grid and keeps
the budgets where the set changes.
"""

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.core.validation import DataError

SEED_BUDGETS = 32
"""Budgets between 0 and the fit's budget asked for in the first round of an exact path
not read off the fit's own call: most steps are found there, in one call, and the closure
rounds fill the gaps."""

BUDGET_DEPENDENT = ("value", "budget", "features", "unused_budget")
"""Record keys that are not the set's own (the path carries every other)."""

Chooser = Callable[[Sequence[float]], list[dict]]
"""Budgets -> the selector's chosen record at each, in order (keys `features`, `value`, ...)."""


def _features(record: dict) -> tuple[int, ...]:
    return tuple(sorted(np.asarray(record["features"], dtype=int).tolist()))


def _just_below(cost: float) -> float:
    """The budget just too small for a set of true cost `cost` (a set fits at its cost plus
    `BUDGET_TOLERANCE`)."""
    return max(cost - 2 * BUDGET_TOLERANCE, 0.0)


def exact_path(
    choose: Chooser,
    costs,
    budget: float,
    steps_from_first_call: Callable[[], list[tuple[float, dict]] | None] | None = None,
) -> tuple[list[tuple[float, dict]], dict]:
    """The exact budget path up to `budget` of a method whose set is constant between its true
    cost and the budget (see the module doc), as (true cost, record) steps for `path_table`,
    and its record at `budget`.
    `steps_from_first_call`, where given, may read the whole path off the first call's
    selection (msB's model schedule, a fill order) as (true cost, record) pairs, each set
    from its own true cost on: no closure rounds then."""
    costs = FeatureCosts.of(costs)
    asked: dict[float, dict] = {}
    queries = {0.0, float(budget), *np.linspace(0.0, budget, SEED_BUDGETS + 2)[1:-1].tolist()}
    if steps_from_first_call is not None:
        # The fit's own budget alone: where the path is read off this call, no other is asked.
        (asked[float(budget)],) = choose([float(budget)])
        steps = steps_from_first_call()
        if steps is not None:
            return steps, asked[float(budget)]
    expanded: set[float] = set()
    set_costs: dict[tuple[int, ...], float] = {}
    answers = list(asked.values())
    while queries:
        batch = sorted(queries - asked.keys())
        if batch:
            new = choose(batch)
            asked.update(zip(batch, new, strict=True))
            answers += new
        for record in answers:
            features = _features(record)
            if features not in set_costs:
                set_costs[features] = costs.total(features)
        answers = []
        found = set(set_costs.values())
        queries = {_just_below(cost) for cost in found - expanded if cost > 0} - asked.keys()
        expanded |= found
    # Each set holds from its own true cost on: its first budget on the path.
    steps = {}
    for record in asked.values():
        features = _features(record)
        steps.setdefault(features, (set_costs[features], record))
    return list(steps.values()), asked[float(budget)]


def fill_path(order, costs, budget: float) -> list[tuple[float, np.ndarray]]:
    """The exact budget path up to `budget` of walking `order` and keeping each feature whose
    added cost still fits (`costfs.methods._bcr.fill_budget`), as (true cost, sorted features)
    pairs, one per set by increasing cost.

    One walk of the order over the whole budget range (`costfs.engine.fill`) with bounds in
    budgets plus `BUDGET_TOLERANCE` and sums accumulated in the walk's order: the comparisons
    of a fill, in the same floating point. Each set is reported at its true cost, as
    `FeatureCosts.total` sums it."""
    # Here: numba, which a method's stage jobs do not load.
    from costfs.engine.fill import fill_intervals, set_totals

    costs = FeatureCosts.of(costs)
    group = costs.group.astype(np.int64)
    starts, kept = fill_intervals(
        np.asarray(order, dtype=np.int64),
        costs.own,
        group,
        costs.shared,
        BUDGET_TOLERANCE,
        float(budget) + BUDGET_TOLERANCE,
    )
    # A set whose interval is narrower than the tolerance holds at no budget that can be told
    # from the next set's: the two start at the same cost, summed in two orders.
    wide = np.append(np.diff(starts) > BUDGET_TOLERANCE, True)
    members = kept[wide]
    sets, features = np.nonzero(members)
    bounds = np.searchsorted(sets, np.arange(members.shape[0] + 1)).tolist()
    chosen = [features[start:end] for start, end in itertools.pairwise(bounds)]
    totals = set_totals(members, costs.own, group, costs.shared).tolist()
    return list(zip(totals, chosen, strict=True))


def grid_path(
    choose: Chooser, budgets: Sequence[float]
) -> tuple[list[tuple[float, dict]], list[dict]]:
    """The path over a grid of budgets, as (budget, record) steps for `path_table`; and the
    chosen records, one per budget."""
    budgets = sorted({float(budget) for budget in budgets})
    records = choose(budgets)
    return list(zip(budgets, records, strict=True)), records


def entry_at(entries: Sequence[dict], budget: float) -> dict | None:
    """The path's entry in force at `budget`: the last that starts at or below it (a set of
    true cost c is bought from c on, within `BUDGET_TOLERANCE`); None below the first."""
    fitting = [entry for entry in entries if entry["budget"] <= budget + BUDGET_TOLERANCE]
    return fitting[-1] if fitting else None


def check_path_budgets(path_budgets, source: str) -> list[float]:
    """`path_budgets` as a list of floats (None: none), or a `DataError` naming the value."""
    if path_budgets is None:
        return []
    values = np.atleast_1d(np.asarray(path_budgets, dtype=object))
    checked = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float | np.number):
            raise DataError(f"{source}: path_budgets must be numbers >= 0, got {value!r}")
        if not (math.isfinite(value) and value >= 0):
            raise DataError(f"{source}: path_budgets must be finite and >= 0, got {value!r}")
        checked.append(float(value))
    return checked


def _listed(members: np.ndarray, labels: np.ndarray | None = None) -> np.ndarray:
    """Per row of the boolean matrix `members`, its True columns (their `labels`, an object
    array, if given) as a tuple, in order: a one-dimensional object array, which pandas takes
    as it is."""
    rows, columns = np.nonzero(members)
    bounds = np.searchsorted(rows, np.arange(members.shape[0] + 1)).tolist()
    flat = columns.tolist() if labels is None else labels[columns].tolist()
    listed = (tuple(flat[start:end]) for start, end in itertools.pairwise(bounds))
    return np.fromiter(listed, dtype=object, count=members.shape[0])


def path_table(
    steps: Sequence[tuple[float, dict]],
    costs: FeatureCosts,
    feature_names,
    n_features: int,
    *,
    at_cost: bool = False,
) -> pd.DataFrame:
    """The path as a table from (budget, record) steps, one row per change of set by
    increasing budget: `budget` (where the set takes over), `cost` (its true cost),
    `n_features`, then `features`, `added` and `dropped` as tuples of column names (`x0`,
    `x1`, ... without names), `feature_indices` the selected columns, then the records' own
    columns. `at_cost`: each step's budget is its set's true cost (an exact path's steps), so
    no cost is summed again."""
    names = np.array(
        [str(name) for name in feature_names]
        if feature_names is not None
        else [f"x{index}" for index in range(n_features)],
        dtype=object,
    )
    ordered = sorted(steps, key=lambda step: step[0])
    chosen = [np.asarray(record["features"], dtype=int) for _, record in ordered]
    members = np.zeros((len(ordered), n_features), dtype=bool)
    members[
        np.repeat(np.arange(len(chosen)), [features.size for features in chosen]),
        np.concatenate(chosen) if chosen else np.zeros(0, dtype=int),
    ] = True
    # A row is kept where its set differs from the row before it.
    changed = np.ones(len(ordered), dtype=bool)
    changed[1:] = (members[1:] != members[:-1]).any(axis=1)
    kept = np.flatnonzero(changed).tolist()
    members = members[changed]
    before = np.zeros_like(members)
    before[1:] = members[:-1]
    indices = _listed(members)
    budgets = np.array([ordered[row][0] for row in kept], dtype=float)
    records = [ordered[row][1] for row in kept]
    columns = {
        "budget": budgets,
        "cost": budgets if at_cost else np.array([costs.total(one) for one in indices]),
        "n_features": members.sum(axis=1),
        "features": _listed(members, names),
        "added": _listed(members & ~before, names),
        "dropped": _listed(before & ~members, names),
        "feature_indices": indices,
    }
    for key in dict.fromkeys(itertools.chain.from_iterable(records)):
        if key not in BUDGET_DEPENDENT and key not in columns:
            columns[key] = [record.get(key) for record in records]
    # By column: pandas reads a list of dicts holding tuples row by row, slowly.
    return pd.DataFrame(columns)
