"""Feature costs with shared-cost groups: tests from one blood draw share the draw's cost.

A feature's cost is its own cost plus, if it belongs to a group, the group's shared cost when
that group is not paid yet. The cost of a set is its features' own costs plus the shared cost
of each group it uses, once. Without groups this is the plain sum of the features' costs.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from costfs.core.errors import DataError

NO_GROUP = -1

BUDGET_TOLERANCE = 1e-9
"""Float slack when comparing summed costs with a budget (costs summed in another order)."""


def _shared_cost(value: object) -> float:
    """A shared cost as a number; NaN (rejected by the caller) for anything else."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


@dataclass(frozen=True, eq=False)
class FeatureCosts:
    """Each feature's `own` cost, its `group` (an index into `shared`, `NO_GROUP` for none)
    and each group's `shared` cost, named `group_names`."""

    own: np.ndarray
    group: np.ndarray
    shared: np.ndarray
    group_names: tuple[str, ...] = ()

    @classmethod
    def ungrouped(cls, own) -> "FeatureCosts":
        own = np.asarray(own, dtype=float)
        return cls(own, np.full(own.size, NO_GROUP), np.zeros(0))

    @classmethod
    def of(cls, costs) -> "FeatureCosts":
        """`costs` itself, or plain per-feature costs without groups."""
        return costs if isinstance(costs, FeatureCosts) else cls.ungrouped(costs)

    @classmethod
    def grouped(
        cls,
        own: np.ndarray,
        feature_groups: Sequence[object],
        group_costs: Mapping[object, object],
        source: str = "group_costs",
    ) -> "FeatureCosts":
        """Own costs with each feature's group label (None, NaN or "": no group) and the
        groups' shared costs; every group named must have a shared cost, a number >= 0."""
        import pandas as pd  # here: the stage jobs that only read costs need no pandas

        labels = [None if pd.isna(g) or str(g) == "" else str(g) for g in feature_groups]
        costs_by_name = {str(name): cost for name, cost in dict(group_costs).items()}
        names = tuple(sorted(costs_by_name))
        index = {name: k for k, name in enumerate(names)}
        unknown = sorted({g for g in labels if g is not None and g not in index})
        if unknown:
            raise DataError(
                f"{source}: no shared cost for group(s) {unknown}; groups with a cost: "
                f"{list(names)}"
            )
        shared = np.array([_shared_cost(costs_by_name[name]) for name in names], dtype=float)
        bad = [name for name, cost in zip(names, shared, strict=True) if not cost >= 0]
        if bad:
            raise DataError(
                f"{source}: shared cost of group {bad[0]!r} is {costs_by_name[bad[0]]!r}; it "
                "must be a number >= 0"
            )
        group = np.array([NO_GROUP if g is None else index[g] for g in labels])
        return cls(np.asarray(own, dtype=float), group, shared, names)

    @property
    def n_features(self) -> int:
        return self.own.size

    @cached_property
    def has_groups(self) -> bool:
        return bool((self.group != NO_GROUP).any())

    def groups_paid(self, paid: np.ndarray) -> np.ndarray:
        """Per group: whether a feature of the boolean mask `paid` belongs to it."""
        used = self.group[np.asarray(paid, dtype=bool) & (self.group != NO_GROUP)]
        flags = np.zeros(self.shared.size, dtype=bool)
        flags[used] = True
        return flags

    def added(self, paid: np.ndarray, candidates) -> np.ndarray:
        """What each candidate feature adds to a set whose features are the mask `paid`: its
        own cost, plus its group's shared cost if no paid feature is in that group. A paid
        candidate adds nothing."""
        candidates = np.asarray(candidates, dtype=int)
        paid = np.asarray(paid, dtype=bool)
        cost = self.own[candidates].copy()
        group = self.group[candidates]
        grouped = group != NO_GROUP
        unpaid_group = np.zeros(candidates.size, dtype=bool)
        unpaid_group[grouped] = ~self.groups_paid(paid)[group[grouped]]
        cost[unpaid_group] += self.shared[group[unpaid_group]]
        cost[paid[candidates]] = 0.0
        return cost

    def added_to_each(self, feature: int, groups_paid: np.ndarray) -> np.ndarray:
        """What `feature` adds to each of several sets, given per set (a row of `groups_paid`,
        sets x groups) which groups it has paid: its own cost, plus its group's shared cost
        where that is unpaid."""
        added = np.full(groups_paid.shape[0], self.own[feature])
        group = self.group[feature]
        if group != NO_GROUP:
            added = added + np.where(groups_paid[:, group], 0.0, self.shared[group])
        return added

    def standalone(self) -> np.ndarray:
        """Each feature's cost as the only feature of a set."""
        return self.added(np.zeros(self.n_features, dtype=bool), np.arange(self.n_features))

    def total(self, features) -> float:
        """The cost of a set: own costs plus each used group's shared cost once."""
        features = np.asarray(features, dtype=int)
        if not self.has_groups:
            return float(self.own[features].sum())
        groups = np.unique(self.group[features])
        return float(self.own[features].sum() + self.shared[groups[groups != NO_GROUP]].sum())

    def row_totals(self, acquired: np.ndarray) -> np.ndarray:
        """Per row of the boolean (rows x features) matrix `acquired`: the cost of its set."""
        totals = acquired @ self.own
        if self.has_groups:
            members = np.zeros((self.n_features, self.shared.size))
            grouped = np.flatnonzero(self.group != NO_GROUP)
            members[grouped, self.group[grouped]] = 1.0
            totals = totals + ((acquired @ members) > 0) @ self.shared
        return totals

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {
            "costs": self.own,
            "group": self.group,
            "shared": self.shared,
            "group_names": np.array(self.group_names, dtype=str),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> "FeatureCosts":
        own = np.asarray(arrays["costs"], dtype=float)
        if "group" not in arrays:
            return cls.ungrouped(own)
        names = tuple(str(name) for name in arrays["group_names"])
        return cls(own, np.asarray(arrays["group"], dtype=int), arrays["shared"], names)
