"""Budgets worth studying for a data set's costs: where what a budget buys changes."""

import math
from collections.abc import Sequence

import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, NO_GROUP, FeatureCosts

MAX_BUDGETS = 8
"""At most this many suggested budgets (each adds a selection and evaluation per method)."""


def _rounded_up(value: float) -> float:
    """`value` up to four significant digits (a price as written: 19.71): a set costing
    `value` fits the budget."""
    if value <= 0:
        return value
    step = 10.0 ** (math.floor(math.log10(value)) - 3)
    return float(f"{math.ceil((value - BUDGET_TOLERANCE) / step) * step:.4g}")


def budget_breakpoints(costs: FeatureCosts, names: Sequence[str]) -> list[tuple[float, str]]:
    """The costs at which what a budget buys can change, each with the set that costs it
    (ascending, below the total cost): the cumulative prices of the cheapest items (a feature,
    or a shared-cost group with all its features) at 1, 2, 3, 5, 8, ... items; each group
    whole; and each expensive feature (over three times the median item's price) alone, a
    group's member with its group's shared cost. At most `MAX_BUDGETS`: the groups' and the
    expensive features' first, then cumulative ones evenly. Where several sets cost the same,
    the reason names them all. Where nothing costs less than every feature together (one
    priced feature), the cheapest item's price."""
    total = costs.total(np.arange(costs.n_features))
    items = []  # (price, label, is a group)
    for j in np.flatnonzero(costs.group == NO_GROUP):
        if costs.own[j] > 0:
            items.append((float(costs.own[j]), str(names[j]), False))
    for g, group_name in enumerate(costs.group_names):
        members = np.flatnonzero(costs.group == g)
        if members.size:
            label = f"group {group_name} whole ({', '.join(str(names[j]) for j in members)})"
            items.append((costs.total(members), label, True))
    items.sort()
    if not items:
        return [(1.0, "every feature is free")]
    median = float(np.median([price for price, _, _ in items]))
    special = [(price, f"{label} costs {price:.4g}") for price, label, group in items if group]
    standalone = costs.standalone()
    for j in range(costs.n_features):
        if standalone[j] > 3 * median:
            g = costs.group[j]
            share = (
                f" ({costs.own[j]:.4g} + {costs.group_names[g]}'s shared {costs.shared[g]:.4g})"
                if g != NO_GROUP and costs.shared[g] > 0
                else ""
            )
            special.append(
                (float(standalone[j]), f"{names[j]} alone costs {standalone[j]:.4g}{share}")
            )
    special.sort()
    cumulative = [(items[0][0], f"the cheapest item, {items[0][1]}, costs {items[0][0]:.4g}")]
    spent = items[0][0]
    for k, (price, label, _) in enumerate(items[1:], start=2):
        spent += price
        if k in (2, 3, 5, 8, 13, 21, 34, 55, 89):
            cumulative.append((spent, f"the {k} cheapest items (up to {label}) cost {spent:.4g}"))
    candidates: dict[float, list[str]] = {}
    for cost, why in special + cumulative:
        budget = _rounded_up(cost)
        if budget < total - 1e-9:
            candidates.setdefault(budget, []).append(why)
    chosen = {budget: "; ".join(candidates[budget]) for budget in sorted(candidates)}
    if len(chosen) > MAX_BUDGETS:
        kept = {_rounded_up(cost) for cost, _ in special} & set(chosen)
        kept = set(sorted(kept)[: MAX_BUDGETS - 2])
        rest = [budget for budget in chosen if budget not in kept]
        picks = np.linspace(0, len(rest) - 1, MAX_BUDGETS - len(kept)).round().astype(int)
        kept |= {rest[i] for i in picks}
        chosen = {budget: chosen[budget] for budget in sorted(kept)}
    return list(chosen.items()) or [(_rounded_up(cumulative[0][0]), cumulative[0][1])]
