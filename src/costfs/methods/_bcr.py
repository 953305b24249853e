"""The benefit-cost ratio (BCR) and filling a budget from a ranking (RF paper, section 2)."""

import math

import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, NO_GROUP, FeatureCosts
from costfs.methods._base import Parameter, Selection, choice

POSITIVE_DELTA_RULES = {
    "multiply": lambda delta, weight: np.where(delta < 0, delta / weight, delta * weight),
    "divide": lambda delta, weight: delta / weight,
}
"""BCR of a step from its error change `delta` and weight cost^xi, by the rule for delta >= 0."""
POSITIVE_DELTA = Parameter(
    "positive_delta",
    choice(*POSITIVE_DELTA_RULES),
    "multiply",
    "BCR of a step that does not lower the error: Δ·Δc^ξ (prefers cheap candidates) or the "
    "paper's literal Δ/Δc^ξ (`divide`)",
)
"""The BCR option shared by the step-wise methods (STS, its variant, forward selection)."""

FREE_COST = 1e-12
"""The cost at which a free feature (added cost 0) enters a benefit-cost ratio: benefit / cost^xi
is then larger than that of any feature with a cost (costs mean nothing below the budget
tolerance), so with xi > 0 free features come first, ordered by their benefit; with xi = 0 every
cost is ignored alike."""

RATIO_TOLERANCE = 1e-9
"""Relative slack under which two ratios are an exact tie: -0.2 / 0.5 and -0.1 / 0.25 are equal,
but reached through different error changes and costs they can differ in the last bit."""


def ratio_ranks(ratios: np.ndarray) -> np.ndarray:
    """Dense ranks of `ratios` (0 = smallest) in which values within `RATIO_TOLERANCE`
    (relative) of the next smaller one share its rank; sort keys that leave exact ties to the
    tie rules (lower added cost, then lower index) instead of to floating-point rounding."""
    ratios = np.asarray(ratios, dtype=float)
    order = np.argsort(ratios, kind="stable")
    ordered = ratios[order]
    with np.errstate(invalid="ignore"):  # inf - inf
        gap = ordered[1:] - ordered[:-1]
    scale = np.maximum(np.abs(ordered[1:]), np.abs(ordered[:-1]))
    close = np.isfinite(gap) & (gap <= RATIO_TOLERANCE * scale)
    same = (ordered[1:] == ordered[:-1]) | close
    ranks = np.empty(ratios.size, dtype=np.int64)
    ranks[order] = np.concatenate([[0], np.cumsum(~same)])
    return ranks


def ratio_cost(costs) -> np.ndarray:
    """Costs as they enter a benefit-cost ratio: a free feature's 0 as `FREE_COST`."""
    return np.maximum(np.asarray(costs, dtype=float), FREE_COST)


def step_ratio(
    delta: np.ndarray, added_cost: np.ndarray, xi: float, positive_delta: str
) -> np.ndarray:
    """BCR of steps that change the error by `delta` at `added_cost` > 0; smaller is better.

    delta / cost^xi for improvements. For delta >= 0 the paper's formula would prefer expensive
    candidates, so `positive_delta="multiply"` makes it delta * cost^xi ("divide": the literal
    form; `POSITIVE_DELTA`).
    """
    delta = np.asarray(delta, dtype=float)
    return POSITIVE_DELTA_RULES[positive_delta](delta, ratio_cost(added_cost) ** xi)


def filter_ratio(scores: np.ndarray, costs, xi: float) -> np.ndarray:
    """BCR of a filter: score / cost^xi, with each feature's cost on its own (its group's
    shared cost included); larger is better."""
    return np.asarray(scores, dtype=float) / ratio_cost(FeatureCosts.of(costs).standalone()) ** xi


def rank_by_ratio(ratios: np.ndarray, costs) -> np.ndarray:
    """Feature indices by decreasing ratio; ties (`ratio_ranks`) by lower cost (on its own),
    then lower index."""
    standalone = FeatureCosts.of(costs).standalone()
    return np.lexsort((np.arange(ratios.size), standalone, -ratio_ranks(ratios)))


def fill_budgets(order: np.ndarray, costs, budgets) -> list[np.ndarray]:
    """Per budget: walk `order`, keep each feature whose added cost (its own, plus its group's
    shared cost the first time the group is used) still fits, skip the rest; sorted selected
    indices. All budgets walk together, each with its own sums in the walk's order."""
    costs = FeatureCosts.of(costs)
    top = np.asarray(budgets, dtype=float) + BUDGET_TOLERANCE
    spent = np.zeros(top.size)
    kept = np.zeros((top.size, costs.n_features), dtype=bool)
    paid = np.zeros((top.size, costs.shared.size), dtype=bool)
    for feature in np.asarray(order, dtype=int):
        group = costs.group[feature]
        added = costs.added_to_each(feature, paid)
        fits = spent + added <= top
        spent = np.where(fits, spent + added, spent)
        kept[:, feature] = fits
        if group != NO_GROUP:
            paid[:, group] |= fits
    return [np.flatnonzero(row) for row in kept]


def fill_budget(order: np.ndarray, costs, budget: float) -> np.ndarray:
    """`fill_budgets` at one budget."""
    return fill_budgets(order, costs, [budget])[0]


def filter_selection(scores: np.ndarray, costs, budget: float, xi: float) -> np.ndarray:
    """The filters' rule: rank by score / cost^xi and fill the budget."""
    return fill_budget(rank_by_ratio(filter_ratio(scores, costs, xi), costs), costs, budget)


def filter_selections(
    scores: np.ndarray, costs: np.ndarray, budgets: list[float], grid: list[float]
) -> Selection:
    """A filter's selection for every (xi, budget), with its fill order where one xi is asked."""
    records = []
    for xi in grid:
        order = rank_by_ratio(filter_ratio(scores, costs, xi), costs)
        records += [
            {"value": xi, "budget": budget, "features": features}
            for budget, features in zip(budgets, fill_budgets(order, costs, budgets), strict=True)
        ]
    return Selection(records, fill_order=order if len(grid) == 1 else None)


def ranking_selections(order: np.ndarray, costs: np.ndarray, budgets: list[float]) -> Selection:
    """The selection of a grid-less method: per budget, `order` walked and filled to the
    budget."""
    order = np.asarray(order, dtype=int)
    records = []
    for budget, features in zip(budgets, fill_budgets(order, costs, budgets), strict=True):
        records.append(
            {
                "value": math.nan,
                "budget": budget,
                "features": features,
                "unused_budget": float(budget - FeatureCosts.of(costs).total(features)),
            }
        )
    return Selection(records, fill_order=order)


THRESHOLDS = ("mean", "none")

THRESHOLD = Parameter(
    "threshold",
    choice(*THRESHOLDS),
    "mean",
    "`mean`: only features scoring at least the mean are eligible, then filled to the budget by "
    "score; `none`: fill from the whole ranking",
)


def thresholded_order(scores: np.ndarray, costs: np.ndarray, threshold: str) -> np.ndarray:
    """Features by decreasing score (ties: lower cost, then lower index); with
    `threshold="mean"` only those scoring at least the mean score."""
    scores = np.asarray(scores, dtype=float)
    order = rank_by_ratio(scores, costs)
    if threshold == "mean":
        order = order[scores[order] >= scores.mean()]
    return order


def thresholded_selection(
    scores: np.ndarray, costs: np.ndarray, budgets: list[float], threshold: str
) -> Selection:
    """Per budget, the scores' ranking cut at `threshold` and filled to the budget."""
    return ranking_selections(thresholded_order(scores, costs, threshold), costs, budgets)
